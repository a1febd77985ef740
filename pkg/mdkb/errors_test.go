package mdkb_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
)

// flakyStore fails List or Get, or breaks bodies, or loses keys.
type flakyStore struct {
	fileops.Store
	list, get error
	body      error
	vanish    string
}

func (f *flakyStore) List(ctx context.Context, o fileops.ListOptions) (fileops.ListPage, error) {
	if f.list != nil {
		return fileops.ListPage{}, f.list
	}
	return f.Store.List(ctx, o)
}

func (f *flakyStore) Get(ctx context.Context, k string, o fileops.GetOptions) (*fileops.Object, error) {
	if f.get != nil {
		return nil, f.get
	}
	if f.vanish != "" && strings.HasSuffix(k, f.vanish) {
		return nil, fileops.ErrNotFound
	}
	obj, err := f.Store.Get(ctx, k, o)
	if err == nil && f.body != nil {
		obj.Body = io.NopCloser(errReader{f.body})
	}
	return obj, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestStorageFailures(t *testing.T) {
	ctx := context.Background()
	data := &flakyStore{Store: memstore.New()}
	loadFixture(t, data.Store, "kb-root/")
	s := newService(t, data, nil, func(l *mdkb.Limits) { l.FetchConcurrency = 2 })
	data.list = &fileops.StoreError{Code: "SlowDown", Err: errors.New("x")}
	_, err := s.Search(ctx, mdkb.SearchArgs{Query: "x"})
	if fe := fault.As(err); fe.Code != fault.StorageError || !strings.Contains(fe.Message, "SlowDown") {
		t.Errorf("list failure: %v", err)
	}
	data.list = context.DeadlineExceeded
	_, err = s.Search(ctx, mdkb.SearchArgs{Query: "x"})
	if fault.CodeOf(err) != fault.Timeout {
		t.Errorf("list timeout: %v", err)
	}
	data.list = nil
	data.get = errors.New("broken")
	_, err = s.Export(ctx, mdkb.ExportArgs{Format: "dot"})
	if fault.CodeOf(err) != fault.StorageError {
		t.Errorf("get failure: %v", err)
	}
	data.get = nil
	data.body = errors.New("reset")
	_, err = s.Search(ctx, mdkb.SearchArgs{Query: "x"})
	if fault.CodeOf(err) != fault.StorageError {
		t.Errorf("body failure: %v", err)
	}
	data.body = nil
	data.vanish = "index.md" // deleted between the listing and the read
	r, err := s.Search(ctx, mdkb.SearchArgs{Query: "x"})
	if err != nil || r.DocumentCount != 11 {
		t.Errorf("a vanished file: %v %v", r, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	fresh := newService(t, data, nil, nil)
	if _, err := fresh.Search(cctx, mdkb.SearchArgs{Query: "x"}); fault.CodeOf(err) != fault.Timeout {
		t.Errorf("canceled: %v", err)
	}
}

func TestSnapshotStoreFailuresOnlyCostARebuild(t *testing.T) {
	ctx := context.Background()
	data := memstore.New()
	loadFixture(t, data, "kb-root/")
	snaps := &flakyStore{Store: memstore.New()}
	a := newService(t, data, snaps, nil)
	if _, err := a.Search(ctx, mdkb.SearchArgs{Query: "x"}); err != nil {
		t.Fatal(err)
	}
	a.Flush()
	// A corrupt stored snapshot is ignored.
	page, _ := snaps.Store.List(ctx, fileops.ListOptions{})
	for _, o := range page.Objects {
		snaps.Store.Put(ctx, o.Key, []byte("not a snapshot"), fileops.PutOptions{})
	}
	b := newService(t, data, snaps, nil)
	r, err := b.Search(ctx, mdkb.SearchArgs{Query: "x"})
	if err != nil || r.Snapshot.Reused || r.Snapshot.Fetched != 12 {
		t.Errorf("corrupt snapshot: %+v %v", r, err)
	}
	// A snapshot store that fails to read or list still serves.
	snaps.get = errors.New("down")
	snaps.list = errors.New("down")
	c := newService(t, data, snaps, nil)
	if r, err := c.Search(ctx, mdkb.SearchArgs{Query: "x"}); err != nil || r.Snapshot.Reused {
		t.Errorf("unreadable snapshots: %+v %v", r, err)
	}
	if n, err := c.Refresh(ctx, "kb-root/notes/glossary.md"); err != nil || n != 1 {
		t.Errorf("refresh without a listable snapshot store: %d %v", n, err)
	}
	// A refresh of a scope that lost all its Markdown is not an error.
	empty := newService(t, memstore.New(), nil, nil)
	if n, err := empty.Refresh(ctx, "kb-root/x.md"); err != nil || n != 0 {
		t.Errorf("refresh of an empty root = %d %v", n, err)
	}
	broken := newService(t, &flakyStore{Store: data, list: errors.New("down")}, nil, nil)
	if _, err := broken.Refresh(ctx, "kb-root/x.md"); fault.CodeOf(err) != fault.StorageError {
		t.Errorf("refresh with a broken data store: %v", err)
	}
}

func TestTurtleEscapesAndPrefixes(t *testing.T) {
	g := mdkb.Build([]*mdkb.DocInfo{{Path: "dir with space/a b.md", Title: "Quote \" back\\slash\ttab\nnew\rline \x01", Keywords: []string{"k"},
		Edges: []mdkb.Edge{{Predicate: "https://example.org/vocab#custom", Object: "Thing One"}, {Predicate: "prov:used", Object: "Thing Two"}, {Predicate: "!!!", Object: "Thing Three"}}}})
	ttl := g.Turtle()
	for _, want := range []string{`"Quote \" back\\slash\ttab\nnew\rline \u0001"`, "<https://example.org/vocab#custom>", "prov:used", "kb:relatedTo", "<https://kb.filecontext.invalid/doc/dir%20with%20space/a%20b.md>"} {
		if !strings.Contains(ttl, want) {
			t.Errorf("turtle lacks %s:\n%s", want, ttl)
		}
	}
	if !strings.Contains(g.NQuads(), `"Quote \" back`) || !strings.Contains(g.Mermaid(), "#quot;") {
		t.Error("escaping in N-Triples or Mermaid")
	}
}
