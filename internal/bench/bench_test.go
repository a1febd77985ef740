package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/filecontext-aws/filecontext/internal/testenv"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/dirstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/s3store"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

// The two grep patterns of the targets: a case-sensitive literal, and a
// case-insensitive alternation.
var grepCases = []struct {
	name, pattern string
	caseSensitive bool
}{
	{"literal", "TimeoutException", true},
	{"alternation-i", "warning|timeoutexception|refused", false},
}

// unlimited lifts the grep limits so every file is scanned and every match
// reported, as rg does.
func unlimited(l *fileops.Limits) {
	l.MaximumGrepFilesScanned = 1 << 20
	l.MaximumGrepFilesMatched = 1 << 20
	l.MaximumGrepLinesPerFile = 1 << 20
	l.RegexTimeout = time.Hour
}

func service(b *testing.B, store fileops.Store, tune func(*fileops.Limits)) *fileops.Service {
	l := fileops.DefaultLimits()
	if tune != nil {
		tune(&l)
	}
	s, err := fileops.New(store, pathsafe.Root{}, l)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func corpus(b *testing.B) (string, int64) {
	dir, err := DefaultCorpus.Dir()
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, _ error) error {
		if fi != nil && !fi.IsDir() {
			total += fi.Size()
		}
		return nil
	})
	return dir, total
}

func grepOnce(b *testing.B, s *fileops.Service, pattern string, cs bool) int {
	r, err := s.Grep(context.Background(), fileops.GrepArgs{RegexPattern: pattern, CaseSensitive: cs})
	if err != nil {
		b.Fatal(err)
	}
	if r.Truncated {
		b.Fatalf("grep truncated at %s", r.Limit)
	}
	n := 0
	for _, f := range r.Results {
		n += len(f.MatchingLines)
	}
	return n
}

// BenchmarkGrep: fileops grep over dirstore and versitygw, and rg over the
// same files, in one run. b.SetBytes makes each report MB/s of corpus.
func BenchmarkGrep(b *testing.B) {
	dir, total := corpus(b)
	ds, err := dirstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	for _, tc := range grepCases {
		b.Run("rg/"+tc.name, func(b *testing.B) {
			rg, err := exec.LookPath("rg")
			if err != nil {
				b.Fatal("rg (Debian ripgrep) is not installed; scripts/bench installs it")
			}
			args := []string{"-n", "--no-heading", "--no-ignore", "--hidden"}
			if tc.caseSensitive {
				args = append(args, "-s")
			} else {
				args = append(args, "-i")
			}
			args = append(args, "-e", tc.pattern, dir)
			b.SetBytes(total)
			for b.Loop() {
				out, err := exec.Command(rg, args...).Output()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(strings.Count(string(out), "\n")), "lines")
			}
		})
		b.Run("dirstore/"+tc.name, func(b *testing.B) {
			s := service(b, ds, unlimited)
			b.SetBytes(total)
			for b.Loop() {
				b.ReportMetric(float64(grepOnce(b, s, tc.pattern, tc.caseSensitive)), "lines")
			}
		})
		b.Run("versitygw/"+tc.name, func(b *testing.B) {
			s := service(b, s3store.New(versitygwClient(b), corpusBucket(b, dir)), unlimited)
			b.SetBytes(total)
			for b.Loop() {
				b.ReportMetric(float64(grepOnce(b, s, tc.pattern, tc.caseSensitive)), "lines")
			}
		})
	}
}

func versitygwClient(b *testing.B) *s3.Client {
	for _, t := range testenv.S3Targets(b) {
		if t.Name == "versitygw" {
			return t.Client
		}
	}
	b.Fatal("no versitygw")
	return nil
}

var (
	uploadOnce sync.Map // bucket name by source path
)

// corpusBucket uploads a directory tree to a fresh versitygw bucket once per
// benchmark process.
func corpusBucket(b *testing.B, dir string) string {
	if v, ok := uploadOnce.Load(dir); ok {
		return v.(string)
	}
	c := versitygwClient(b)
	bucket := "bench-" + fmt.Sprint(time.Now().UnixNano())
	if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		b.Fatal(err)
	}
	var paths []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, _ error) error {
		if fi != nil && !fi.IsDir() && !strings.HasPrefix(fi.Name(), ".") {
			paths = append(paths, p)
		}
		return nil
	})
	var wg sync.WaitGroup
	var failed atomic.Value
	sem := make(chan struct{}, 16)
	for _, p := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f, err := os.Open(p)
			if err == nil {
				defer f.Close()
				fi, _ := f.Stat()
				rel, _ := filepath.Rel(dir, p)
				_, err = c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &bucket, Key: aws.String(filepath.ToSlash(rel)), Body: f, ContentLength: aws.Int64(fi.Size())})
			}
			if err != nil {
				failed.Store(err)
			}
		}()
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	uploadOnce.Store(dir, bucket)
	return bucket
}

// BenchmarkReadRange: a 200-line window at line 1 and at line 5,000,000 of a
// 1 GiB object, the deep one through a cursor, over dirstore and versitygw.
// Each reports the peak heap seen while it ran.
func BenchmarkReadRange(b *testing.B) {
	path, err := DefaultLinedObject.Path()
	if err != nil {
		b.Fatal(err)
	}
	ds, err := dirstore.Open(filepath.Dir(path))
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	stores := []struct {
		name string
		open func(b *testing.B) (fileops.Store, string)
	}{
		{"dirstore", func(*testing.B) (fileops.Store, string) { return ds, filepath.Base(path) }},
		{"versitygw", func(b *testing.B) (fileops.Store, string) {
			c := versitygwClient(b)
			return s3store.New(c, objectBucket(b, c, path)), "lined.txt"
		}},
	}
	for _, st := range stores {
		var store fileops.Store
		var key string
		var deep string // cursor of line 5,000,000
		setup := func(b *testing.B) *fileops.Service {
			if store == nil {
				store, key = st.open(b)
			}
			s := service(b, store, nil)
			if deep == "" {
				r, err := s.ReadRange(context.Background(), fileops.ReadRangeArgs{Path: key, StartLine: 5_000_000 - 200, LineCount: 200})
				if err != nil {
					b.Fatal(err)
				}
				deep = r.Next.Cursor
			}
			return s
		}
		for _, at := range []string{"line1", "line5000000-cursor", "line5000000-scan"} {
			b.Run(st.name+"/"+at, func(b *testing.B) {
				s := setup(b)
				args := fileops.ReadRangeArgs{Path: key, StartLine: 1, LineCount: 200}
				switch at {
				case "line5000000-cursor":
					args = fileops.ReadRangeArgs{Path: key, StartLine: 5_000_000, LineCount: 200, Cursor: deep}
				case "line5000000-scan":
					args = fileops.ReadRangeArgs{Path: key, StartLine: 5_000_000, LineCount: 200}
				}
				runtime.GC()
				stop := storetest.HeapWatch()
				for b.Loop() {
					r, err := s.ReadRange(context.Background(), args)
					if err != nil {
						b.Fatal(err)
					}
					if r.EndLine != args.StartLine+199 || r.CursorStale {
						b.Fatalf("window %d-%d stale=%v", r.StartLine, r.EndLine, r.CursorStale)
					}
				}
				b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MiB")
			})
		}
	}
}

// objectBucket uploads one file to a fresh versitygw bucket as "lined.txt",
// once per benchmark process.
func objectBucket(b *testing.B, c *s3.Client, path string) string {
	if v, ok := uploadOnce.Load(path); ok {
		return v.(string)
	}
	bucket := "bench-obj-" + fmt.Sprint(time.Now().UnixNano())
	if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	if _, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("lined.txt"), Body: f, ContentLength: aws.Int64(fi.Size())}); err != nil {
		b.Fatal(err)
	}
	uploadOnce.Store(path, bucket)
	return bucket
}
