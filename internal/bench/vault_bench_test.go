package bench

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/fileops/dirstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

// BenchmarkGraphVault: the graph over a local vault of 14,000 notes on the
// directory store, with snapshots in a state directory: a cold build, a
// call on the unchanged vault in the same process (target ≤ 150 ms) and in
// a new process (the stored snapshot), each with its peak heap.
func BenchmarkGraphVault(b *testing.B) {
	ctx := context.Background()
	dir, err := VaultKB.Dir()
	if err != nil {
		b.Fatal(err)
	}
	ds, err := dirstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	state := b.TempDir()
	snaps, err := dirstore.Open(state)
	if err != nil {
		b.Fatal(err)
	}
	defer snaps.Close()
	search := func(b *testing.B, s *mdkb.Service) *mdkb.SearchResult {
		r, err := s.Search(ctx, mdkb.SearchArgs{Query: "document 42"})
		if err != nil {
			b.Fatal(err)
		}
		if r.DocumentCount != VaultKB.Docs || r.Truncated {
			b.Fatalf("documents %d of %d, truncated %v", r.DocumentCount, r.FilesInScope, r.Truncated)
		}
		return r
	}
	measure := func(b *testing.B, run func(b *testing.B)) {
		runtime.GC()
		stop := storetest.HeapWatch()
		var total time.Duration
		for b.Loop() {
			start := time.Now()
			run(b)
			total += time.Since(start)
		}
		b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/call")
	}
	b.Run("cold", func(b *testing.B) {
		measure(b, func(b *testing.B) {
			os.RemoveAll(filepath.Join(state, "snapshots"))
			s := mdkb.New(ds, pathsafe.Root{}, snaps, mdkb.DefaultLimits())
			if r := search(b, s); r.Snapshot.Reused {
				b.Fatal("reused")
			}
			s.Flush()
		})
	})
	warm := mdkb.New(ds, pathsafe.Root{}, snaps, mdkb.DefaultLimits())
	search(b, warm)
	warm.Flush()
	b.Run("unchanged-same-process", func(b *testing.B) {
		measure(b, func(b *testing.B) {
			if r := search(b, warm); !r.Snapshot.Reused {
				b.Fatal("not reused")
			}
		})
	})
	b.Run("unchanged-new-process", func(b *testing.B) {
		measure(b, func(b *testing.B) {
			if r := search(b, mdkb.New(ds, pathsafe.Root{}, snaps, mdkb.DefaultLimits())); !r.Snapshot.Reused {
				b.Fatal("not reused")
			}
		})
	})
}
