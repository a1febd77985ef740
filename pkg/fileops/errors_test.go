package fileops_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

// failingStore wraps a memstore and fails the methods named in fail with err.
type failingStore struct {
	*memstore.Store
	fail map[string]error
	// bodyErr makes Get bodies fail after their first bytes.
	bodyErr error
}

func (f *failingStore) Get(ctx context.Context, key string, o fileops.GetOptions) (*fileops.Object, error) {
	if err := f.fail["Get"]; err != nil {
		return nil, err
	}
	obj, err := f.Store.Get(ctx, key, o)
	if err == nil && f.bodyErr != nil {
		obj.Body = io.NopCloser(io.MultiReader(io.LimitReader(obj.Body, 1), errReader{f.bodyErr}))
	}
	return obj, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func (f *failingStore) Head(ctx context.Context, key string) (fileops.ObjectInfo, error) {
	if err := f.fail["Head"]; err != nil {
		return fileops.ObjectInfo{}, err
	}
	return f.Store.Head(ctx, key)
}

func (f *failingStore) List(ctx context.Context, o fileops.ListOptions) (fileops.ListPage, error) {
	if err := f.fail["List"]; err != nil {
		return fileops.ListPage{}, err
	}
	return f.Store.List(ctx, o)
}

func (f *failingStore) Put(ctx context.Context, key string, b []byte, o fileops.PutOptions) (fileops.ObjectInfo, error) {
	if err := f.fail["Put"]; err != nil {
		return fileops.ObjectInfo{}, err
	}
	return f.Store.Put(ctx, key, b, o)
}

func (f *failingStore) Delete(ctx context.Context, key string, o fileops.DeleteOptions) error {
	if err := f.fail["Delete"]; err != nil {
		return err
	}
	return f.Store.Delete(ctx, key, o)
}

// noCallStore fails the test on any storage call.
type noCallStore struct{ t *testing.T }

func (n noCallStore) Get(context.Context, string, fileops.GetOptions) (*fileops.Object, error) {
	n.t.Fatal("storage call Get")
	return nil, nil
}
func (n noCallStore) Head(context.Context, string) (fileops.ObjectInfo, error) {
	n.t.Fatal("storage call Head")
	return fileops.ObjectInfo{}, nil
}
func (n noCallStore) List(context.Context, fileops.ListOptions) (fileops.ListPage, error) {
	n.t.Fatal("storage call List")
	return fileops.ListPage{}, nil
}
func (n noCallStore) Put(context.Context, string, []byte, fileops.PutOptions) (fileops.ObjectInfo, error) {
	n.t.Fatal("storage call Put")
	return fileops.ObjectInfo{}, nil
}
func (n noCallStore) Delete(context.Context, string, fileops.DeleteOptions) error {
	n.t.Fatal("storage call Delete")
	return nil
}

func TestInvalidPathsNeverReachStorage(t *testing.T) {
	o := storetest.NewOps(t, noCallStore{t}, "root", nil)
	ctx := context.Background()
	for _, bad := range []string{"../x", "/x", "a\\b", "a//b", "C:/x", "a\x00"} {
		calls := []func() error{
			func() error { _, err := o.Read(ctx, bad); return err },
			func() error {
				_, err := o.ReadLines(ctx, fileops.ReadLinesArgs{FileName: bad, StartLine: 1})
				return err
			},
			func() error { _, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: bad}); return err },
			func() error { _, err := o.Ls(ctx, fileops.LsArgs{Directory: bad}); return err },
			func() error { _, err := o.Grep(ctx, fileops.GrepArgs{RegexPattern: "x", Directory: bad}); return err },
			func() error { _, err := o.Info(ctx, bad); return err },
			func() error { _, err := o.Write(ctx, fileops.WriteArgs{FileName: bad}); return err },
			func() error { _, err := o.Delete(ctx, fileops.DeleteArgs{FileName: bad}); return err },
			func() error { _, err := o.Replace(ctx, fileops.ReplaceArgs{FileName: bad, OldString: "a"}); return err },
			func() error {
				_, err := o.ReplaceLines(ctx, fileops.ReplaceLinesArgs{FileName: bad, Edits: []fileops.LineEdit{{LineNumber: 1}}})
				return err
			},
		}
		for i, call := range calls {
			if code := fault.CodeOf(call()); code != fault.InvalidPath {
				t.Errorf("operation %d on %q: %s, want invalid_path", i, bad, code)
			}
		}
	}
}

func TestStorageFailuresAreStorageErrorsWithoutKeys(t *testing.T) {
	ctx := context.Background()
	boom := &fileops.StoreError{Code: "SlowDown", Err: errors.New("bucket secret-bucket key root/a.md throttled")}
	for _, method := range []string{"Get", "Head", "List", "Put", "Delete"} {
		fs := &failingStore{Store: memstore.New(), fail: map[string]error{}}
		o := storetest.NewOps(t, fs, "root", nil)
		o.Put("a.md", "a\nb\n")
		fs.fail[method] = boom
		results := []error{}
		add := func(_ any, err error) { results = append(results, err) }
		add(o.Read(ctx, "a.md"))
		add(o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "a.md"}))
		add(o.Ls(ctx, fileops.LsArgs{}))
		add(o.Grep(ctx, fileops.GrepArgs{RegexPattern: "a"}))
		add(o.Info(ctx, "a.md"))
		add(o.Write(ctx, fileops.WriteArgs{FileName: "a.md", Content: "x", Overwrite: true}))
		add(o.Delete(ctx, fileops.DeleteArgs{FileName: "a.md"}))
		seen := false
		for _, err := range results {
			if err == nil {
				continue
			}
			fe := fault.As(err)
			if fe.Code != fault.StorageError {
				t.Errorf("%s failing: %v, want storage_error", method, err)
				continue
			}
			seen = true
			if !strings.Contains(fe.Message, "SlowDown") || strings.Contains(fe.Message, "secret-bucket") || strings.Contains(fe.Message, "root/") {
				t.Errorf("message %q", fe.Message)
			}
			if !errors.Is(fe, boom) {
				t.Errorf("the cause is not kept for the log")
			}
		}
		if !seen {
			t.Errorf("%s failing: no operation reported it", method)
		}
	}
}

func TestOtherStoreErrors(t *testing.T) {
	ctx := context.Background()
	fs := &failingStore{Store: memstore.New(), fail: map[string]error{}}
	o := storetest.NewOps(t, fs, "", nil)
	o.Put("a.md", "a\nb\nc\n")

	fs.fail["Put"] = fileops.ErrKeyConflict
	_, err := o.Write(ctx, fileops.WriteArgs{FileName: "a.md", Content: "x", Overwrite: true})
	storetest.WantCode(t, err, fault.Conflict)
	fs.fail["Put"] = errors.New("plain")
	_, err = o.Write(ctx, fileops.WriteArgs{FileName: "a.md", Content: "x", Overwrite: true})
	if fe := storetest.WantCode(t, err, fault.StorageError); !strings.Contains(fe.Message, "unknown") {
		t.Errorf("message %q", fe.Message)
	}
	fs.fail["Put"] = context.DeadlineExceeded
	_, err = o.Write(ctx, fileops.WriteArgs{FileName: "a.md", Content: "x", Overwrite: true})
	storetest.WantCode(t, err, fault.Timeout)
	fs.fail["Put"] = fault.New(fault.Forbidden, "no")
	_, err = o.Write(ctx, fileops.WriteArgs{FileName: "a.md", Content: "x", Overwrite: true})
	storetest.WantCode(t, err, fault.Forbidden)
	delete(fs.fail, "Put")

	fs.bodyErr = errors.New("connection reset")
	for name, call := range map[string]func() error{
		"read":       func() error { _, err := o.Read(ctx, "a.md"); return err },
		"read_range": func() error { _, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "a.md"}); return err },
		"skip": func() error {
			_, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "a.md", StartLine: 3})
			return err
		},
		"grep": func() error { _, err := o.Grep(ctx, fileops.GrepArgs{RegexPattern: "a"}); return err },
	} {
		if code := fault.CodeOf(call()); code != fault.StorageError {
			t.Errorf("%s with a broken body: %s", name, code)
		}
	}
	fs.bodyErr = nil

	// The cursor window of a grown or vanished file.
	r, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "a.md", LineCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	fs.fail["Get"] = fileops.ErrNotFound
	_, err = o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "a.md", Cursor: r.Next.Cursor})
	storetest.WantCode(t, err, fault.NotFound)
	delete(fs.fail, "Get")

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = o.Grep(cctx, fileops.GrepArgs{RegexPattern: "a"})
	storetest.WantCode(t, err, fault.Timeout)
}

func TestGrepTimeBudget(t *testing.T) {
	ctx := context.Background()
	o := storetest.NewOps(t, memstore.New(), "", func(l *fileops.Limits) { l.RegexTimeout = time.Nanosecond })
	o.Put("big.txt", strings.Repeat("aaaa aaaa\n", 5000))
	_, err := o.Grep(ctx, fileops.GrepArgs{RegexPattern: "a+ a+"})
	fe := storetest.WantCode(t, err, fault.LimitExceeded)
	if fe.Details["limit"] != "regexTimeout" {
		t.Errorf("details %v", fe.Details)
	}
	o = storetest.NewOps(t, memstore.New(), "", func(l *fileops.Limits) { l.MaximumGrepPatternLength = 3 })
	_, err = o.Grep(ctx, fileops.GrepArgs{RegexPattern: "abcd"})
	storetest.WantCode(t, err, fault.LimitExceeded)
}

func TestGrepSkipsFilesThatVanish(t *testing.T) {
	ctx := context.Background()
	fs := &failingStore{Store: memstore.New(), fail: map[string]error{}}
	o := storetest.NewOps(t, fs, "", nil)
	o.Put("a.md", "x")
	fs.fail["Get"] = fileops.ErrNotFound
	r, err := o.Grep(ctx, fileops.GrepArgs{RegexPattern: "x"})
	if err != nil || r.FilesScanned != 0 || len(r.Results) != 0 {
		t.Errorf("grep = %+v %v", r, err)
	}
}

func TestCursorWindowsReadOnlyARange(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	o := storetest.NewOps(t, s, "", func(l *fileops.Limits) { l.DefaultLineCount = 10 })
	var b strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&b, "line %d\n", i+1)
	}
	o.Put("big.txt", b.String())
	first, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "big.txt", StartLine: 90000})
	if err != nil {
		t.Fatal(err)
	}
	before := s.BytesServed()
	r, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "big.txt", Cursor: first.Next.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if r.StartLine != 90010 || !strings.HasPrefix(r.Content, "line 90010\n") {
		t.Errorf("window = %+v", r)
	}
	limit := int64(o.Limits().MaximumWindowBytes) + 2
	if fetched := s.BytesServed() - before; fetched > limit {
		t.Errorf("the cursor window fetched %d bytes, more than the %d-byte range", fetched, limit)
	}
	// The same window without a cursor scans from the start.
	before = s.BytesServed()
	if _, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "big.txt", StartLine: 90010}); err != nil {
		t.Fatal(err)
	}
	if fetched := s.BytesServed() - before; fetched < int64(b.Len())*8/10 {
		t.Errorf("a scan from the start fetched only %d bytes", fetched)
	}
}

func TestNewRefusesBadConfiguration(t *testing.T) {
	if _, err := fileops.New(nil, pathsafe.Root{}, fileops.DefaultLimits()); err == nil {
		t.Error("nil store accepted")
	}
	bad := fileops.DefaultLimits()
	bad.GrepConcurrency = 0
	if _, err := fileops.New(memstore.New(), pathsafe.Root{}, bad); err == nil || !strings.Contains(err.Error(), "grepConcurrency") {
		t.Errorf("zero limit: %v", err)
	}
	for _, tune := range []func(*fileops.Limits){
		func(l *fileops.Limits) { l.DefaultLineCount = l.MaximumLineCount + 1 },
		func(l *fileops.Limits) { l.DefaultDownloadBytes = l.MaximumDownloadBytes + 1 },
		func(l *fileops.Limits) { l.RegexTimeout = -1 },
	} {
		l := fileops.DefaultLimits()
		tune(&l)
		if err := l.Validate(); err == nil {
			t.Errorf("limits %+v accepted", l)
		}
	}
	s, err := fileops.New(memstore.New(), pathsafe.Root{}, fileops.DefaultLimits())
	if err != nil || s.Store() == nil || s.Limits() != fileops.DefaultLimits() {
		t.Errorf("New = %v", err)
	}
}

func TestGlobDialect(t *testing.T) {
	for _, tc := range []struct {
		glob  string
		match []string
		miss  []string
	}{
		{"*.md", []string{"a.md", "A.MD", ".md"}, []string{"d/a.md", "a.txt"}},
		{"**/*.md", []string{"a.md", "d/a.md", "d/e/a.md"}, []string{"a.txt"}},
		{"d/**", []string{"d/a", "d/e/f"}, []string{"e/a"}},
		{"?.txt", []string{"a.txt"}, []string{"ab.txt", "/.txt"}},
		{"[ab].txt", []string{"a.txt", "B.txt"}, []string{"c.txt"}},
		{"[!ab].txt", []string{"c.txt"}, []string{"a.txt"}},
		{"[]x].txt", []string{"].txt", "x.txt"}, []string{"y.txt"}},
		{"{a,b{c,d}}.md", []string{"a.md", "bc.md", "bd.md"}, []string{"b.md"}},
		{"a,b", []string{"a,b"}, []string{"a"}},
		{"(x)+.md", []string{"(x)+.md"}, []string{"x.md"}},
		{"", []string{"anything/at/all"}, nil},
	} {
		g, err := fileops.CompileGlob(tc.glob)
		if err != nil {
			t.Fatalf("%q: %v", tc.glob, err)
		}
		for _, m := range tc.match {
			if !g.Match(m) {
				t.Errorf("%q does not match %q", tc.glob, m)
			}
		}
		for _, m := range tc.miss {
			if g.Match(m) {
				t.Errorf("%q matches %q", tc.glob, m)
			}
		}
	}
	for _, bad := range []string{"[abc", "{a,b", "a}", "[z-a]"} {
		if _, err := fileops.CompileGlob(bad); fault.CodeOf(err) != fault.InvalidArgument {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
