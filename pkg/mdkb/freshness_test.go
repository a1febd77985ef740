package mdkb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
)

// storeFactory makes a fresh, empty store.
type storeFactory func(t *testing.T) fileops.Store

func TestFreshness(t *testing.T) {
	runFreshness(t, func(*testing.T) fileops.Store { return memstore.New() })
}

// runFreshness proves that snapshots are reused only when current, that a
// partial change fetches only what changed, and that an event-built
// snapshot serves the next call.
func runFreshness(t *testing.T, newStore storeFactory) {
	ctx := context.Background()
	data := &countingStore{Store: newStore(t)}
	snaps := newStore(t)
	loadFixture(t, data.Store, "kb-root/")
	put := func(path, content string) {
		if _, err := data.Store.Put(ctx, "kb-root/"+path, []byte(content), fileops.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	search := func(s *mdkb.Service, q string) *mdkb.SearchResult {
		t.Helper()
		r, err := s.Search(ctx, mdkb.SearchArgs{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := newService(t, data, snaps, nil)

	r := search(a, "setup")
	if r.Snapshot.Reused || r.Snapshot.Fetched != 12 || data.gets.Load() != 12 {
		t.Fatalf("cold build: %+v after %d GETs", r.Snapshot, data.gets.Load())
	}
	before := data.gets.Load()
	r = search(a, "setup")
	if !r.Snapshot.Reused || r.Snapshot.Fetched != 0 || data.gets.Load() != before {
		t.Errorf("unchanged: %+v, %d GETs", r.Snapshot, data.gets.Load()-before)
	}

	put("guides/setup.md", "---\ntitle: Renamed Installation Manual\n---\n# x\n")
	before = data.gets.Load()
	r = search(a, "renamed installation manual")
	if r.Snapshot.Reused || r.Snapshot.Fetched != 1 || data.gets.Load()-before != 1 || len(r.Matches) == 0 || r.Matches[0].Score != 1 {
		t.Errorf("one changed file: %+v, %d GETs, matches %+v", r.Snapshot, data.gets.Load()-before, r.Matches)
	}
	if r := search(a, "setup guide"); len(r.Matches) > 0 && r.Matches[0].Path == "guides/setup.md" && r.Matches[0].Score == 1 {
		t.Error("the old title is still found")
	}

	if err := data.Store.Delete(ctx, "kb-root/notes/no-title.md", fileops.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	before = data.gets.Load()
	r = search(a, "quokka")
	if len(r.Matches) != 0 || r.DocumentCount != 11 || r.Snapshot.Fetched != 0 || data.gets.Load() != before {
		t.Errorf("a deleted file: %d matches, %d documents, %+v", len(r.Matches), r.DocumentCount, r.Snapshot)
	}

	// An S3 event refreshes the snapshot; a cold service reuses it.
	a.Flush()
	put("notes/glossary.md", "# Glossary\n\nNow with wombat.\n")
	events := newService(t, data, snaps, nil)
	if n, err := events.Refresh(ctx, "kb-root/notes/glossary.md"); err != nil || n != 1 {
		t.Fatalf("refresh = %d, %v", n, err)
	}
	cold := newService(t, data, snaps, nil)
	before = data.gets.Load()
	r = search(cold, "wombat")
	if !r.Snapshot.Reused || data.gets.Load() != before || len(r.Matches) != 1 {
		t.Errorf("event-built snapshot: %+v, %d GETs, %d matches", r.Snapshot, data.gets.Load()-before, len(r.Matches))
	}

	// A snapshot older than the listing is never used.
	put("notes/glossary.md", "# Glossary\n\nNow with numbat.\n")
	stale := newService(t, data, snaps, nil)
	r = search(stale, "numbat")
	if r.Snapshot.Reused || r.Snapshot.Fetched != 1 || len(r.Matches) != 1 {
		t.Errorf("stale snapshot: %+v, %d matches", r.Snapshot, len(r.Matches))
	}
	if r := search(stale, "wombat"); len(r.Matches) != 0 {
		t.Error("content of a stale snapshot was served")
	}

	// Keys that are not Markdown, or outside the root, change nothing.
	for _, k := range []string{"kb-root/notes/readme.txt", "elsewhere/a.md"} {
		if n, err := events.Refresh(ctx, k); n != 0 || err != nil {
			t.Errorf("refresh %s = %d, %v", k, n, err)
		}
	}
	// A scope snapshot is refreshed with the root's.
	if _, err := a.Search(ctx, mdkb.SearchArgs{Query: "x", Directory: "guides"}); err != nil {
		t.Fatal(err)
	}
	a.Flush() // the scope snapshot was saved in the background
	put("guides/first-steps.md", "# First Steps\n\nplatypus\n")
	if n, err := events.Refresh(ctx, "kb-root/guides/first-steps.md"); err != nil || n != 2 {
		t.Errorf("refresh of a scoped key = %d, %v", n, err)
	}
	r, _ = cold.Search(ctx, mdkb.SearchArgs{Query: "platypus", Directory: "guides"})
	if !r.Snapshot.Reused || len(r.Matches) != 1 || !strings.HasPrefix(r.Matches[0].Path, "guides/") {
		t.Errorf("scoped search after refresh: %+v", r)
	}
}
