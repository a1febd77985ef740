// Package storetest is the conformance suite every fileops.Store passes, and
// the suite of file operations run over each store. A store's test file
// calls RunConformance and RunOperations with a constructor that returns a
// fresh, empty store for every subtest.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
)

// Capabilities tells the suite what a store can hold.
type Capabilities struct {
	// LiteralKeys: any byte string is a key, stored and listed verbatim
	// ("../a", "a//b"), as in S3. A filesystem refuses such keys instead.
	LiteralKeys bool
	// FileAndPrefix: a key may also be the prefix of other keys ("a" and
	// "a/b"). A filesystem refuses the second with fileops.ErrKeyConflict.
	FileAndPrefix bool
	// LenientTokens: a continuation token the store did not issue is read
	// as a start-after key instead of being refused (versitygw does this;
	// AWS answers 400).
	LenientTokens bool
	// Outside lists directories a filesystem-backed store must never write
	// into, whatever the key (the parents of its data directory).
	Outside []string
}

// NewStore returns a fresh, empty store for one subtest.
type NewStore func(t *testing.T) fileops.Store

func put(t *testing.T, s fileops.Store, key, body string) fileops.ObjectInfo {
	t.Helper()
	info, err := s.Put(context.Background(), key, []byte(body), fileops.PutOptions{ContentType: fileops.ContentTypeOf(key)})
	if err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
	return info
}

func get(t *testing.T, s fileops.Store, key string, opts fileops.GetOptions) (string, fileops.ObjectInfo) {
	t.Helper()
	obj, err := s.Get(context.Background(), key, opts)
	if err != nil {
		t.Fatalf("Get(%q, %+v): %v", key, opts, err)
	}
	defer obj.Body.Close()
	b, err := io.ReadAll(obj.Body)
	if err != nil {
		t.Fatalf("reading %q: %v", key, err)
	}
	return string(b), obj.Info
}

// listAll pages through a listing and returns every key and common prefix.
func listAll(t *testing.T, s fileops.Store, prefix, delim string, maxKeys int) (keys, prefixes []string, pages int) {
	t.Helper()
	token := ""
	for {
		page, err := s.List(context.Background(), fileops.ListOptions{Prefix: prefix, Delimiter: delim, Token: token, MaxKeys: maxKeys})
		if err != nil {
			t.Fatalf("List(%q, %q): %v", prefix, delim, err)
		}
		pages++
		if maxKeys > 0 && len(page.Objects)+len(page.CommonPrefixes) > maxKeys {
			t.Fatalf("page has %d entries, over MaxKeys %d", len(page.Objects)+len(page.CommonPrefixes), maxKeys)
		}
		for _, o := range page.Objects {
			keys = append(keys, o.Key)
		}
		prefixes = append(prefixes, page.CommonPrefixes...)
		if page.NextToken == "" {
			return keys, prefixes, pages
		}
		if pages > 10000 {
			t.Fatal("listing does not end")
		}
		token = page.NextToken
	}
}

// RunConformance runs the store conformance suite.
func RunConformance(t *testing.T, newStore NewStore, caps Capabilities) {
	ctx := context.Background()

	t.Run("a put object reads back with its metadata", func(t *testing.T) {
		s := newStore(t)
		info := put(t, s, "notes/a.md", "hello\n")
		if !strings.HasPrefix(info.ETag, `"`) || !strings.HasSuffix(info.ETag, `"`) || len(info.ETag) < 3 {
			t.Errorf("ETag %q is not a quoted tag", info.ETag)
		}
		body, got := get(t, s, "notes/a.md", fileops.GetOptions{Length: -1})
		if body != "hello\n" || got.Size != 6 || got.ETag != info.ETag {
			t.Errorf("Get = %q %+v, want hello and ETag %s", body, got, info.ETag)
		}
		h, err := s.Head(ctx, "notes/a.md")
		if err != nil || h.Size != 6 || h.ETag != info.ETag || !strings.HasPrefix(h.ContentType, "text/markdown") || h.LastModified.IsZero() {
			t.Errorf("Head = %+v, %v", h, err)
		}
	})

	t.Run("missing keys are ErrNotFound", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Get(ctx, "nope.md", fileops.GetOptions{Length: -1}); !errors.Is(err, fileops.ErrNotFound) {
			t.Errorf("Get: %v", err)
		}
		if _, err := s.Head(ctx, "nope.md"); !errors.Is(err, fileops.ErrNotFound) {
			t.Errorf("Head: %v", err)
		}
		if err := s.Delete(ctx, "nope.md", fileops.DeleteOptions{}); err != nil {
			t.Errorf("Delete of a missing key: %v", err)
		}
	})

	t.Run("ranged reads return the range and the full size", func(t *testing.T) {
		s := newStore(t)
		put(t, s, "r.txt", "0123456789")
		for _, tc := range []struct {
			off, n int64
			want   string
		}{{0, -1, "0123456789"}, {3, 4, "3456"}, {7, -1, "789"}, {8, 100, "89"}, {10, 5, ""}, {50, -1, ""}, {0, 0, ""}} {
			body, info := get(t, s, "r.txt", fileops.GetOptions{Offset: tc.off, Length: tc.n})
			if body != tc.want || info.Size != 10 {
				t.Errorf("range %d+%d = %q size %d, want %q size 10", tc.off, tc.n, body, info.Size, tc.want)
			}
		}
	})

	t.Run("empty objects exist and read empty", func(t *testing.T) {
		s := newStore(t)
		put(t, s, "empty.txt", "")
		body, info := get(t, s, "empty.txt", fileops.GetOptions{Length: -1})
		if body != "" || info.Size != 0 {
			t.Errorf("Get = %q %+v", body, info)
		}
		body, _ = get(t, s, "empty.txt", fileops.GetOptions{Offset: 0, Length: 10})
		if body != "" {
			t.Errorf("ranged Get = %q", body)
		}
		if h, err := s.Head(ctx, "empty.txt"); err != nil || h.Size != 0 {
			t.Errorf("Head = %+v %v", h, err)
		}
	})

	t.Run("conditional reads", func(t *testing.T) {
		s := newStore(t)
		info := put(t, s, "c.txt", "one")
		if body, _ := get(t, s, "c.txt", fileops.GetOptions{Length: -1, IfMatch: info.ETag}); body != "one" {
			t.Errorf("If-Match with the current ETag read %q", body)
		}
		put(t, s, "c.txt", "two")
		if _, err := s.Get(ctx, "c.txt", fileops.GetOptions{Length: -1, IfMatch: info.ETag}); !errors.Is(err, fileops.ErrPreconditionFailed) {
			t.Errorf("If-Match with a stale ETag: %v", err)
		}
		if _, err := s.Get(ctx, "c.txt", fileops.GetOptions{Offset: 1, Length: 1, IfMatch: info.ETag}); !errors.Is(err, fileops.ErrPreconditionFailed) {
			t.Errorf("ranged If-Match with a stale ETag: %v", err)
		}
	})

	t.Run("conditional writes", func(t *testing.T) {
		s := newStore(t)
		first, err := s.Put(ctx, "w.txt", []byte("v1"), fileops.PutOptions{IfNoneMatch: "*"})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if _, err := s.Put(ctx, "w.txt", []byte("v2"), fileops.PutOptions{IfNoneMatch: "*"}); !errors.Is(err, fileops.ErrPreconditionFailed) {
			t.Errorf("second create: %v", err)
		}
		second, err := s.Put(ctx, "w.txt", []byte("v2"), fileops.PutOptions{IfMatch: first.ETag})
		if err != nil {
			t.Fatalf("update with the current ETag: %v", err)
		}
		if second.ETag == first.ETag {
			t.Errorf("the ETag did not change with the content")
		}
		if _, err := s.Put(ctx, "w.txt", []byte("v3"), fileops.PutOptions{IfMatch: first.ETag}); !errors.Is(err, fileops.ErrPreconditionFailed) {
			t.Errorf("update with a stale ETag: %v", err)
		}
		if body, _ := get(t, s, "w.txt", fileops.GetOptions{Length: -1}); body != "v2" {
			t.Errorf("content = %q after a refused write", body)
		}
		// AWS answers If-Match on a missing key with 404; some emulators with
		// 412. Both mean the condition failed.
		_, err = s.Put(ctx, "missing.txt", []byte("x"), fileops.PutOptions{IfMatch: first.ETag})
		if !errors.Is(err, fileops.ErrNotFound) && !errors.Is(err, fileops.ErrPreconditionFailed) {
			t.Errorf("If-Match on a missing key: %v", err)
		}
		if _, err := s.Head(ctx, "missing.txt"); !errors.Is(err, fileops.ErrNotFound) {
			t.Errorf("a refused write created the key: %v", err)
		}
	})

	t.Run("of two racing creates exactly one wins", func(t *testing.T) {
		s := newStore(t)
		for round := range 5 {
			key := fmt.Sprintf("race-%d.txt", round)
			wins := raceWrites(ctx, s, key, 2, fileops.PutOptions{IfNoneMatch: "*"})
			if wins != 1 {
				t.Fatalf("round %d: %d creates won, want 1", round, wins)
			}
		}
	})

	t.Run("of racing updates from one ETag exactly one wins", func(t *testing.T) {
		s := newStore(t)
		base := put(t, s, "u.txt", "base")
		if wins := raceWrites(ctx, s, "u.txt", 8, fileops.PutOptions{IfMatch: base.ETag}); wins != 1 {
			t.Fatalf("%d updates won, want 1", wins)
		}
	})

	t.Run("deletes", func(t *testing.T) {
		s := newStore(t)
		info := put(t, s, "d/x.txt", "x")
		put(t, s, "d/x.txt", "y")
		err := s.Delete(ctx, "d/x.txt", fileops.DeleteOptions{IfMatch: info.ETag})
		if !errors.Is(err, fileops.ErrPreconditionFailed) {
			t.Errorf("delete with a stale ETag: %v", err)
		}
		if body, _ := get(t, s, "d/x.txt", fileops.GetOptions{Length: -1}); body != "y" {
			t.Errorf("a refused delete changed the object: %q", body)
		}
		cur, _ := s.Head(ctx, "d/x.txt")
		if err := s.Delete(ctx, "d/x.txt", fileops.DeleteOptions{IfMatch: cur.ETag}); err != nil {
			t.Errorf("delete with the current ETag: %v", err)
		}
		if _, err := s.Head(ctx, "d/x.txt"); !errors.Is(err, fileops.ErrNotFound) {
			t.Errorf("deleted object still there: %v", err)
		}
		if err := s.Delete(ctx, "d/x.txt", fileops.DeleteOptions{IfMatch: cur.ETag}); !errors.Is(err, fileops.ErrPreconditionFailed) && !errors.Is(err, fileops.ErrNotFound) {
			t.Errorf("conditional delete of a missing key: %v", err)
		}
		if keys, prefixes, _ := listAll(t, s, "", "/", 0); len(keys)+len(prefixes) != 0 {
			t.Errorf("listing after the last delete = %v %v", keys, prefixes)
		}
	})

	t.Run("listings page across more than a thousand keys", func(t *testing.T) {
		s := newStore(t)
		var want []string
		for i := range 1005 {
			want = append(want, fmt.Sprintf("many/k%04d.txt", i))
		}
		putMany(t, s, want)
		put(t, s, "other.txt", "x")
		keys, _, pages := listAll(t, s, "many/", "", 0)
		if pages != 2 || strings.Join(keys, ",") != strings.Join(want, ",") {
			t.Fatalf("got %d keys in %d pages, want 1005 in byte order in 2 pages", len(keys), pages)
		}
		keys, _, pages = listAll(t, s, "many/k00", "", 7)
		if len(keys) != 100 || pages != 15 || keys[0] != "many/k0000.txt" || keys[99] != "many/k0099.txt" {
			t.Fatalf("small pages: %d keys in %d pages", len(keys), pages)
		}
	})

	t.Run("delimiters fold prefixes and page with them", func(t *testing.T) {
		s := newStore(t)
		putMany(t, s, []string{"a.md", "b/1.md", "b/2.md", "c/x/y.md", "d.md", "e/1.md", "f.md"})
		keys, prefixes, _ := listAll(t, s, "", "/", 0)
		if strings.Join(keys, ",") != "a.md,d.md,f.md" || strings.Join(prefixes, ",") != "b/,c/,e/" {
			t.Errorf("root listing = %v %v", keys, prefixes)
		}
		keys2, prefixes2, pages := listAll(t, s, "", "/", 2)
		if strings.Join(keys2, ",") != "a.md,d.md,f.md" || strings.Join(prefixes2, ",") != "b/,c/,e/" || pages != 3 {
			t.Errorf("paged root listing = %v %v in %d pages", keys2, prefixes2, pages)
		}
		keys, prefixes, _ = listAll(t, s, "c/", "/", 0)
		if len(keys) != 0 || strings.Join(prefixes, ",") != "c/x/" {
			t.Errorf("c/ listing = %v %v", keys, prefixes)
		}
		keys, _, _ = listAll(t, s, "", "", 0)
		if strings.Join(keys, ",") != "a.md,b/1.md,b/2.md,c/x/y.md,d.md,e/1.md,f.md" {
			t.Errorf("recursive listing = %v", keys)
		}
		keys, prefixes, _ = listAll(t, s, "b", "/", 0)
		if len(keys) != 0 || strings.Join(prefixes, ",") != "b/" {
			t.Errorf("partial-name prefix listing = %v %v", keys, prefixes)
		}
		keys, prefixes, _ = listAll(t, s, "nothing/", "/", 0)
		if len(keys)+len(prefixes) != 0 {
			t.Errorf("missing prefix listing = %v %v", keys, prefixes)
		}
	})

	t.Run("keys are bytes in byte order", func(t *testing.T) {
		s := newStore(t)
		names := []string{"Z.md", "a b.md", "a-b.md", "a.md", "a/b.md", "é.md", "日本.md", "😀.md", "%2e%2e.md"}
		putMany(t, s, names)
		keys, _, _ := listAll(t, s, "", "", 0)
		want := "%2e%2e.md,Z.md,a b.md,a-b.md,a.md,a/b.md,é.md,日本.md,😀.md"
		if strings.Join(keys, ",") != want {
			t.Errorf("order = %v, want %s", keys, want)
		}
		for _, n := range names {
			if body, _ := get(t, s, n, fileops.GetOptions{Length: -1}); body != n {
				t.Errorf("%q read %q", n, body)
			}
		}
	})

	t.Run("folder markers are directories", func(t *testing.T) {
		s := newStore(t)
		put(t, s, "docs/", "")
		_, prefixes, _ := listAll(t, s, "", "/", 0)
		if strings.Join(prefixes, ",") != "docs/" {
			t.Errorf("root listing with a folder marker: prefixes %v", prefixes)
		}
		put(t, s, "docs/a.md", "a")
		keys, _, _ := listAll(t, s, "docs/", "/", 0)
		for _, k := range keys {
			if k != "docs/a.md" && k != "docs/" {
				t.Errorf("unexpected key %q", k)
			}
		}
	})

	t.Run("a key that is also a prefix", func(t *testing.T) {
		s := newStore(t)
		put(t, s, "both", "file")
		_, err := s.Put(ctx, "both/child.md", []byte("child"), fileops.PutOptions{})
		if !caps.FileAndPrefix {
			if !errors.Is(err, fileops.ErrKeyConflict) {
				t.Fatalf("a child under a file: %v, want ErrKeyConflict", err)
			}
			if body, _ := get(t, s, "both", fileops.GetOptions{Length: -1}); body != "file" {
				t.Errorf("the file changed: %q", body)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		keys, prefixes, _ := listAll(t, s, "", "/", 0)
		if strings.Join(keys, ",") != "both" || strings.Join(prefixes, ",") != "both/" {
			t.Errorf("listing = %v %v, want the key and the prefix", keys, prefixes)
		}
	})

	t.Run("hostile keys stay inside the store", func(t *testing.T) {
		s := newStore(t)
		for _, k := range []string{"../escape.txt", "a/../../escape.txt", "../foo/../bar", "a//b", "./a", "/abs.txt"} {
			_, err := s.Put(ctx, k, []byte("hostile"), fileops.PutOptions{})
			switch {
			case err != nil && caps.LiteralKeys:
				t.Errorf("Put(%q): %v", k, err)
			case err == nil:
				// Stored: it must read back under the same key.
				if body, _ := get(t, s, k, fileops.GetOptions{Length: -1}); body != "hostile" {
					t.Errorf("%q read back %q", k, body)
				}
			}
		}
		for _, dir := range caps.Outside {
			for _, name := range []string{"escape.txt", "bar", "abs.txt"} {
				if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
					t.Errorf("a hostile key wrote %s outside the store", filepath.Join(dir, name))
				}
			}
		}
	})

	t.Run("canceled contexts stop every method", func(t *testing.T) {
		s := newStore(t)
		put(t, s, "x.txt", "x")
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, e1 := s.Get(cctx, "x.txt", fileops.GetOptions{Length: -1})
		_, e2 := s.Head(cctx, "x.txt")
		_, e3 := s.List(cctx, fileops.ListOptions{})
		_, e4 := s.Put(cctx, "y.txt", []byte("y"), fileops.PutOptions{})
		e5 := s.Delete(cctx, "x.txt", fileops.DeleteOptions{})
		for i, err := range []error{e1, e2, e3, e4, e5} {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("method %d: %v, want context.Canceled", i+1, err)
			}
		}
		if _, err := s.Head(ctx, "y.txt"); !errors.Is(err, fileops.ErrNotFound) {
			t.Errorf("a canceled put wrote: %v", err)
		}
	})

	t.Run("a bad continuation token is refused", func(t *testing.T) {
		s := newStore(t)
		put(t, s, "x.txt", "x")
		_, err := s.List(ctx, fileops.ListOptions{Token: "not-a-token!"})
		if err == nil && !caps.LenientTokens {
			t.Error("a forged token was accepted")
		}
	})
}

// raceWrites starts n conditional writes of one key at once and returns how
// many succeeded. Every failure must be a failed condition.
func raceWrites(ctx context.Context, s fileops.Store, key string, n int, opts fileops.PutOptions) int {
	var wins atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := s.Put(ctx, key, []byte(fmt.Sprintf("writer %d", i)), opts)
			if err == nil {
				wins.Add(1)
			} else if !errors.Is(err, fileops.ErrPreconditionFailed) {
				errs <- err
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return -1000
		}
	}
	return int(wins.Load())
}

// putMany writes keys (each with its key as content) sixteen at a time.
func putMany(t *testing.T, s fileops.Store, keys []string) {
	t.Helper()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	var mu sync.Mutex
	var firstErr error
	for _, k := range keys {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if _, err := s.Put(context.Background(), k, []byte(k), fileops.PutOptions{}); err != nil {
				mu.Lock()
				firstErr = errors.Join(firstErr, fmt.Errorf("%s: %w", k, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
}
