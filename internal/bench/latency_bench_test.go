package bench

import (
	"context"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/filecontext-aws/filecontext/internal/testenv"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/s3store"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

// latencyCorpus is the grep input of the latency benchmark: 500 files of
// 100 KiB.
var latencyCorpus = Corpus{Files: 500, Dirs: 10, FileBytes: 100 << 10}

// S3's first-byte latency (CloudWatch's FirstByteLatency: from the request
// received to the response starting) is tens of milliseconds per GET, and
// the S3 user guide's performance guidelines answer it by "scaling storage
// connections horizontally": many requests in flight
// (docs.aws.amazon.com/AmazonS3/latest/userguide/optimizing-performance-guidelines.html).
// 20 ms with up to 5 ms of jitter stands for it here.
const (
	s3Delay  = 20 * time.Millisecond
	s3Jitter = 5 * time.Millisecond
)

// BenchmarkLatency: grep over 500 files of 100 KiB and a cold graph build of
// 1,000 documents, in versitygw directly and through a proxy that adds S3's
// first-byte latency to every request. Each reports its peak heap and the
// peak of requests in flight.
func BenchmarkLatency(b *testing.B) {
	ctx := context.Background()
	target := testenv.Versitygw(b)
	proxy, err := StartLatencyProxy(os.Getenv("FILECONTEXT_TEST_VERSITYGW_URL"), s3Delay, s3Jitter)
	if err != nil {
		b.Fatal(err)
	}
	defer proxy.Close()
	slow := testenv.NewS3Client(proxy.URL, os.Getenv("FILECONTEXT_TEST_VERSITYGW_ACCESS_KEY"), os.Getenv("FILECONTEXT_TEST_VERSITYGW_SECRET_KEY"))

	dir, err := latencyCorpus.Dir()
	if err != nil {
		b.Fatal(err)
	}
	grepBucket := corpusBucket(b, dir)
	kbBucket := testenv.NewBucket(b, target.Client)
	raw := s3store.New(target.Client, kbBucket)
	for name, body := range DefaultKB.Files() {
		if _, err := raw.Put(ctx, name, body, fileops.PutOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	clients := []struct {
		name string
		c    *s3.Client
	}{{"direct", target.Client}, {"20ms", slow}}
	measure := func(b *testing.B, run func(b *testing.B)) {
		// Twice: the first collection only moves pooled buffers to the
		// pools' victim caches. What is live then (the corpus, what earlier
		// benchmarks of this process keep) is reported as base-heap-MiB.
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		proxy.Reset()
		stop := storetest.HeapWatch()
		for b.Loop() {
			run(b)
		}
		b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "base-heap-MiB")
		b.ReportMetric(float64(proxy.PeakConcurrency()), "peak-in-flight")
	}
	for _, cl := range clients {
		b.Run("grep/"+cl.name, func(b *testing.B) {
			s := service(b, s3store.New(cl.c, grepBucket), unlimited)
			measure(b, func(b *testing.B) {
				if n := grepOnce(b, s, "TimeoutException", true); n == 0 {
					b.Fatal("no match")
				}
			})
		})
	}
	for _, cl := range clients {
		b.Run("graph-cold/"+cl.name, func(b *testing.B) {
			data := s3store.New(cl.c, kbBucket)
			measure(b, func(b *testing.B) {
				r, err := mdkb.New(data, pathsafe.Root{}, memstore.New(), mdkb.DefaultLimits()).Search(ctx, mdkb.SearchArgs{Query: "document 42"})
				if err != nil || r.DocumentCount != DefaultKB.Docs || r.Snapshot.Reused {
					b.Fatalf("%+v %v", r, err)
				}
			})
		})
	}
}
