package mdkb_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
)

// answers are what a service says of a scope: searches, an export and a
// document's neighbourhood, without the snapshot information.
func answers(t *testing.T, s *mdkb.Service) []any {
	t.Helper()
	ctx := context.Background()
	var out []any
	for _, q := range []string{"approvals", "plugin templates", "tar", "embed files", "daily notes about sync", "ana costa"} {
		r, err := s.Search(ctx, mdkb.SearchArgs{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r.Matches, r.DocumentCount, r.TripleCount)
	}
	e, err := s.Export(ctx, mdkb.ExportArgs{Format: "turtle"})
	if err != nil {
		t.Fatal(err)
	}
	rel, err := s.Related(ctx, mdkb.RelatedArgs{Path: "index.md", Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	return append(out, e.Content, e.TripleCount, rel.Links)
}

// TestANewProcessAnswersAsTheOneThatBuiltIt: a process that reads the
// stored snapshot (no Markdown fetched), and one that takes a change into
// its graph from the stored snapshot or from memory, answer exactly as a
// process that builds everything from the files.
func TestANewProcessAnswersAsTheOneThatBuiltIt(t *testing.T) {
	ctx := context.Background()
	data := &countingStore{Store: memstore.New()}
	storetest.LoadDir(t, data.Store, "kb-root/", filepath.Join("testdata", "vault"))
	snaps := memstore.New()
	first := newService(t, data, snaps, nil)
	built := answers(t, first)
	first.Flush()

	before := data.gets.Load()
	second := newService(t, data, snaps, nil)
	if got := answers(t, second); !reflect.DeepEqual(got, built) {
		t.Errorf("a new process answers otherwise:\n%v\n%v", got, built)
	}
	if n := data.gets.Load() - before; n != 0 {
		t.Errorf("a new process fetched %d Markdown files", n)
	}

	if _, err := data.Put(ctx, "kb-root/guides/Setup.md", []byte("# Setup\n\nNow about zebra approvals, see [[tar]] and [[Approvals|the approvals]].\n"), fileops.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	fresh := answers(t, newService(t, data, nil, nil))
	if got := answers(t, first); !reflect.DeepEqual(got, fresh) {
		t.Errorf("after a change, the process holding the graph answers otherwise:\n%v\n%v", got, fresh)
	}
	if got := answers(t, newService(t, data, snaps, nil)); !reflect.DeepEqual(got, fresh) {
		t.Errorf("after a change, a new process answers otherwise:\n%v\n%v", got, fresh)
	}
}

// TestConcurrentCallsWhileFilesChange: calls of several processes sharing
// the snapshot store, while files change, all answer; once the changes
// stop, every process answers as a fresh build. (Run with -race to check
// that graphs, parts and indexes are shared without data races.)
func TestConcurrentCallsWhileFilesChange(t *testing.T) {
	ctx := context.Background()
	data := memstore.New()
	storetest.LoadDir(t, data, "kb-root/", filepath.Join("testdata", "vault"))
	snaps := memstore.New()
	procs := []*mdkb.Service{newService(t, data, snaps, nil), newService(t, data, snaps, nil), newService(t, data, snaps, nil)}
	done := make(chan error)
	for k, s := range procs {
		go func() {
			for i := range 15 {
				_, err := s.Search(ctx, mdkb.SearchArgs{Query: "approvals"})
				if err == nil && i%5 == 0 {
					_, err = s.Export(ctx, mdkb.ExportArgs{Format: "jsonld"})
				}
				if err == nil && i%3 == 0 {
					_, err = s.Related(ctx, mdkb.RelatedArgs{Path: "index.md"})
				}
				if err == nil && i%4 == k {
					_, err = s.Refresh(ctx, "kb-root/guides/Setup.md")
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for i := range 10 {
		body := []byte("# Setup\n\nround " + string(rune('a'+i)) + " approvals [[tar]]\n")
		if _, err := data.Put(ctx, "kb-root/guides/Setup.md", body, fileops.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for range procs {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	fresh := answers(t, newService(t, data, nil, nil))
	for i, s := range procs {
		s.Flush()
		if got := answers(t, s); !reflect.DeepEqual(got, fresh) {
			t.Errorf("process %d answers otherwise after the changes", i)
		}
	}
}
