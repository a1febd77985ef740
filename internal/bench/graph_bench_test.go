package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/filecontext-aws/filecontext/internal/testenv"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/s3store"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

type countGets struct {
	fileops.Store
	n atomic.Int64
}

func (c *countGets) Get(ctx context.Context, k string, o fileops.GetOptions) (*fileops.Object, error) {
	c.n.Add(1)
	return c.Store.Get(ctx, k, o)
}

// BenchmarkGraph: a 1,000-document knowledge base in versitygw. "cold"
// builds with no snapshot anywhere; "unchanged-warm" is a call in the same
// process (the snapshot in memory); "unchanged-cold-process" is a new
// process reading the stored snapshot; "one-changed" follows a change of one
// file; "listing-only" lists the scope and does nothing else, the floor of
// every call. Each reports its GETs of Markdown and, for cold, MB/s of
// Markdown.
func BenchmarkGraph(b *testing.B) {
	ctx := context.Background()
	target := testenv.Versitygw(b)
	bucket := testenv.NewBucket(b, target.Client)
	files := DefaultKB.Files()
	raw := s3store.New(target.Client, bucket)
	var total int64
	for name, body := range files {
		if _, err := raw.Put(ctx, name, body, fileops.PutOptions{}); err != nil {
			b.Fatal(err)
		}
		total += int64(len(body))
	}
	data := &countGets{Store: raw}
	systemBucket := testenv.NewBucket(b, target.Client)
	search := func(s *mdkb.Service) *mdkb.SearchResult {
		r, err := s.Search(ctx, mdkb.SearchArgs{Query: "document 42"})
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	var cold time.Duration
	b.Run("cold", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			start := time.Now()
			r := search(mdkb.New(data, pathsafe.Root{}, memstore.New(), mdkb.DefaultLimits()))
			cold = time.Since(start)
			if r.Snapshot.Reused || r.DocumentCount != DefaultKB.Docs {
				b.Fatalf("cold build: %+v", r.Snapshot)
			}
		}
	})
	snaps := s3store.New(target.Client, systemBucket)
	warm := mdkb.New(data, pathsafe.Root{}, snaps, mdkb.DefaultLimits())
	search(warm)
	report := func(b *testing.B, d time.Duration, gets int64) {
		b.ReportMetric(float64(d.Microseconds())/float64(cold.Microseconds()), "of-cold")
		b.ReportMetric(float64(gets), "md-GETs")
	}
	// What every call costs before anything else: listing the scope (the
	// listing proves a snapshot current), with no graph work at all.
	b.Run("listing-only", func(b *testing.B) {
		for b.Loop() {
			start := time.Now()
			n, token := 0, ""
			for {
				page, err := raw.List(ctx, fileops.ListOptions{Token: token})
				if err != nil {
					b.Fatal(err)
				}
				n += len(page.Objects)
				if token = page.NextToken; token == "" {
					break
				}
			}
			report(b, time.Since(start), 0)
			if n != DefaultKB.Docs {
				b.Fatalf("listed %d", n)
			}
		}
	})
	b.Run("unchanged-warm", func(b *testing.B) {
		warm.Flush()
		for b.Loop() {
			before := data.n.Load()
			start := time.Now()
			r := search(warm)
			report(b, time.Since(start), data.n.Load()-before)
			if !r.Snapshot.Reused {
				b.Fatal("not reused")
			}
		}
	})
	b.Run("unchanged-cold-process", func(b *testing.B) {
		warm.Flush()
		for b.Loop() {
			before := data.n.Load()
			start := time.Now()
			r := search(mdkb.New(data, pathsafe.Root{}, snaps, mdkb.DefaultLimits()))
			report(b, time.Since(start), data.n.Load()-before)
			if !r.Snapshot.Reused {
				b.Fatal("not reused")
			}
		}
	})
	i := 0
	b.Run("one-changed", func(b *testing.B) {
		for b.Loop() {
			i++
			body := append([]byte(nil), files["area07/doc0007.md"]...)
			body = append(body, []byte(fmt.Sprintf("\nchange %d\n", i))...)
			if _, err := raw.Put(ctx, "area07/doc0007.md", body, fileops.PutOptions{}); err != nil {
				b.Fatal(err)
			}
			warm.Flush() // the previous iteration's background save
			before := data.n.Load()
			start := time.Now()
			r := search(warm)
			report(b, time.Since(start), data.n.Load()-before)
			if r.Snapshot.Fetched != 1 {
				b.Fatalf("fetched %d", r.Snapshot.Fetched)
			}
		}
	})
}
