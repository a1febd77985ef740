package mdkb_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/dirstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
)

// TestTheFileCapKeepsTheMostRecentAndSaysSo: over the cap, the graph holds
// the most recently modified documents (ties by path), and the answer says
// how many were in scope and how many were used.
func TestTheFileCapKeepsTheMostRecentAndSaysSo(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "kb-root"), 0o755)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	order := rng.Perm(30)
	mtime := map[string]time.Time{}
	for i := range 30 {
		name := fmt.Sprintf("n%02d.md", i)
		p := filepath.Join(dir, "kb-root", name)
		os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n\nshared word\n", i)), 0o644)
		mtime[name] = base.Add(time.Duration(order[i]) * time.Minute)
		if i == 7 {
			mtime[name] = mtime["n03.md"] // a tie: the path decides
		}
		os.Chtimes(p, mtime[name], mtime[name])
	}
	ds, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	var names []string
	for n := range mtime {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := mtime[names[i]], mtime[names[j]]
		return a.After(b) || a.Equal(b) && names[i] < names[j]
	})
	want := append([]string(nil), names[:10]...)
	sort.Strings(want)

	for _, snaps := range []fileops.Store{memstore.New(), nil} {
		s := newService(t, ds, snaps, func(l *mdkb.Limits) { l.MaximumFiles = 10 })
		res, err := s.Search(ctx, mdkb.SearchArgs{Query: "shared word", MaxResults: 100})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range res.Matches {
			got = append(got, filepath.Base(m.Path))
		}
		sort.Strings(got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("documents used = %v, want the 10 most recently modified %v", got, want)
		}
		if !res.Truncated || res.Limit != "maximumGraphFiles" || res.FilesInScope != 30 || res.FilesUsed != 10 || res.DocumentCount != 10 ||
			res.Skipped == nil || res.Skipped.Counts["overFileLimit"] != 20 {
			t.Errorf("search = truncated %v %q, %d in scope, %d used, skipped %+v", res.Truncated, res.Limit, res.FilesInScope, res.FilesUsed, res.Skipped)
		}
		exp, err := s.Export(ctx, mdkb.ExportArgs{Format: "turtle"})
		if err != nil {
			t.Fatal(err)
		}
		if !exp.Truncated || exp.Limit != "maximumGraphFiles" || exp.FilesInScope != 30 || exp.FilesUsed != 10 {
			t.Errorf("export = truncated %v %q, %d in scope, %d used", exp.Truncated, exp.Limit, exp.FilesInScope, exp.FilesUsed)
		}
	}
	// The byte cap chooses the same way, most recent first, and a smaller
	// older note may still fit.
	var fit []string
	total := 0
	for _, n := range names {
		size := len(fmt.Sprintf("# Note %s\n\nshared word\n", n[1:3]))
		if n[1] == '0' {
			size-- // "%d" of 0-9 is one digit
		}
		if total+size <= 230 {
			fit = append(fit, n)
			total += size
		}
	}
	s := newService(t, ds, nil, func(l *mdkb.Limits) { l.MaximumTotalBytes = 230 })
	res, err := s.Search(ctx, mdkb.SearchArgs{Query: "shared word", MaxResults: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.Limit != "maximumGraphBytes" || res.FilesUsed != len(fit) || res.Skipped.Counts["overByteLimit"] != 30-len(fit) || len(fit) != 10 {
		t.Errorf("byte cap: truncated %v %q, %d used, skipped %+v", res.Truncated, res.Limit, res.FilesUsed, res.Skipped)
	}
	// Under the cap nothing says truncated.
	s = newService(t, ds, nil, nil)
	res, err = s.Search(ctx, mdkb.SearchArgs{Query: "shared"})
	if err != nil || res.Truncated || res.Limit != "" || res.FilesInScope != 30 || res.FilesUsed != 30 {
		t.Errorf("under the cap: %+v %v", res, err)
	}
}

// TestSkippedIsTheSameFreshOrReused: a file that is not UTF-8 is reported
// the same from a fresh build and from a reused snapshot, and is not
// fetched again when another file changes.
func TestSkippedIsTheSameFreshOrReused(t *testing.T) {
	ctx := context.Background()
	data := &countingStore{Store: memstore.New()}
	data.Put(ctx, "kb-root/a.md", []byte("# A\n\nalpha\n"), fileops.PutOptions{})
	data.Put(ctx, "kb-root/b.md", []byte("# B\n\xff\xfe not text\n"), fileops.PutOptions{})
	data.Put(ctx, "kb-root/c.md", []byte("# C\n\ngamma\n"), fileops.PutOptions{})
	snaps := memstore.New()
	first := newService(t, data, snaps, nil)
	fresh, err := first.Search(ctx, mdkb.SearchArgs{Query: "alpha"})
	first.Flush()
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Skipped == nil || fresh.Skipped.Counts["binary"] != 1 || fresh.FilesInScope != 3 || fresh.FilesUsed != 2 {
		t.Fatalf("fresh: skipped %+v, %d in scope, %d used", fresh.Skipped, fresh.FilesInScope, fresh.FilesUsed)
	}
	s := newService(t, data, snaps, nil)
	reused, err := s.Search(ctx, mdkb.SearchArgs{Query: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if !reused.Snapshot.Reused || !reflect.DeepEqual(reused.Skipped, fresh.Skipped) || reused.FilesInScope != 3 || reused.FilesUsed != 2 {
		t.Errorf("reused: %v, skipped %+v, %d in scope, %d used", reused.Snapshot.Reused, reused.Skipped, reused.FilesInScope, reused.FilesUsed)
	}
	data.Put(ctx, "kb-root/c.md", []byte("# C\n\ngamma delta\n"), fileops.PutOptions{})
	before := data.gets.Load()
	changed, err := s.Search(ctx, mdkb.SearchArgs{Query: "delta"})
	if err != nil {
		t.Fatal(err)
	}
	if gets := data.gets.Load() - before; gets != 1 || changed.Snapshot.Fetched != 1 || !reflect.DeepEqual(changed.Skipped, fresh.Skipped) {
		t.Errorf("after one change: %d GETs, fetched %d, skipped %+v", gets, changed.Snapshot.Fetched, changed.Skipped)
	}
}

// TestAChangeDoesNotRereadTheStoredSnapshot: after one file changes, a
// process whose snapshot is the stored one (same ETag) does not download
// the stored snapshot again to find it stale: one HEAD, no GET.
func TestAChangeDoesNotRereadTheStoredSnapshot(t *testing.T) {
	ctx := context.Background()
	data := memstore.New()
	for i := range 20 {
		data.Put(ctx, fmt.Sprintf("kb-root/n%02d.md", i), []byte(fmt.Sprintf("# Note %d\n\nword\n", i)), fileops.PutOptions{})
	}
	snaps := &countingStore{Store: memstore.New()}
	s := newService(t, data, snaps, nil)
	if _, err := s.Search(ctx, mdkb.SearchArgs{Query: "word"}); err != nil {
		t.Fatal(err)
	}
	s.Flush()
	data.Put(ctx, "kb-root/n03.md", []byte("# Note 3\n\nword changed\n"), fileops.PutOptions{})
	before := snaps.gets.Load()
	res, err := s.Search(ctx, mdkb.SearchArgs{Query: "changed"})
	if err != nil {
		t.Fatal(err)
	}
	if gets := snaps.gets.Load() - before; gets != 0 || res.Snapshot.Fetched != 1 || res.Matches[0].Path != "n03.md" {
		t.Errorf("after one change: %d snapshot GETs, fetched %d, %+v", gets, res.Snapshot.Fetched, res.Matches)
	}
	s.Flush()
	// Another process saved a newer snapshot (the S3 event of a change):
	// that one is read.
	other := newService(t, data, snaps, nil)
	data.Put(ctx, "kb-root/n04.md", []byte("# Note 4\n\nword again\n"), fileops.PutOptions{})
	if n, err := other.Refresh(ctx, "kb-root/n04.md"); err != nil || n != 1 {
		t.Fatalf("refresh = %d %v", n, err)
	}
	before = snaps.gets.Load()
	if _, err := s.Search(ctx, mdkb.SearchArgs{Query: "again"}); err != nil {
		t.Fatal(err)
	}
	if gets := snaps.gets.Load() - before; gets != 1 {
		t.Errorf("a newer stored snapshot was read %d times", gets)
	}
}

// signalGets tells, once, that a Get started.
type signalGets struct {
	fileops.Store
	started chan struct{}
	once    sync.Once
}

func (s *signalGets) Get(ctx context.Context, key string, o fileops.GetOptions) (*fileops.Object, error) {
	s.once.Do(func() { close(s.started) })
	return s.Store.Get(ctx, key, o)
}

// waitingList lists only after the snapshot's Get started, or after 5 s.
type waitingList struct {
	fileops.Store
	snapshotRead chan struct{}
	overlapped   atomic.Bool
}

func (w *waitingList) List(ctx context.Context, o fileops.ListOptions) (fileops.ListPage, error) {
	select {
	case <-w.snapshotRead:
		w.overlapped.Store(true)
	case <-time.After(5 * time.Second):
	}
	return w.Store.List(ctx, o)
}

// TestANewProcessReadsTheSnapshotWhileItLists: a process without the
// scope's snapshot starts reading the stored one before the listing ends,
// so the read hides behind the listing.
func TestANewProcessReadsTheSnapshotWhileItLists(t *testing.T) {
	ctx := context.Background()
	data := memstore.New()
	for i := range 5 {
		data.Put(ctx, fmt.Sprintf("kb-root/n%d.md", i), []byte(fmt.Sprintf("# Note %d\n\nword\n", i)), fileops.PutOptions{})
	}
	snaps := memstore.New()
	first := newService(t, data, snaps, nil)
	if _, err := first.Search(ctx, mdkb.SearchArgs{Query: "word"}); err != nil {
		t.Fatal(err)
	}
	first.Flush()
	signal := &signalGets{Store: snaps, started: make(chan struct{})}
	slow := &waitingList{Store: data, snapshotRead: signal.started}
	res, err := newService(t, slow, signal, nil).Search(ctx, mdkb.SearchArgs{Query: "word"})
	if err != nil {
		t.Fatal(err)
	}
	if !slow.overlapped.Load() || !res.Snapshot.Reused {
		t.Errorf("the snapshot was read during the listing: %v; reused: %v", slow.overlapped.Load(), res.Snapshot.Reused)
	}
}
