package dirstore

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
)

func newTestStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "root")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

func TestOpenRefusesAMissingDirectory(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("opened a missing directory")
	}
}

func TestSymlinksCannotEscape(t *testing.T) {
	ctx := context.Background()
	s, dir := newTestStore(t)
	outside := filepath.Join(filepath.Dir(dir), "secret.txt")
	os.WriteFile(outside, []byte("secret"), 0o644)
	os.WriteFile(filepath.Join(dir, "inside.txt"), []byte("inside"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "escape.txt"))
	os.Symlink("../", filepath.Join(dir, "up"))
	os.Symlink("inside.txt", filepath.Join(dir, "alias.txt"))

	if _, err := s.Get(ctx, "escape.txt", fileops.GetOptions{Length: -1}); err == nil {
		t.Error("a link to a file outside the root was readable")
	}
	if _, err := s.Get(ctx, "up/secret.txt", fileops.GetOptions{Length: -1}); err == nil {
		t.Error("a link to the parent directory was followed")
	}
	if _, err := s.Put(ctx, "up/new.txt", []byte("x"), fileops.PutOptions{}); err == nil {
		t.Error("a write through a link to the parent succeeded")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "new.txt")); err == nil {
		t.Error("a file was written outside the root")
	}
	obj, err := s.Get(ctx, "alias.txt", fileops.GetOptions{Length: -1})
	if err != nil {
		t.Fatalf("a link inside the root: %v", err)
	}
	b, _ := io.ReadAll(obj.Body)
	obj.Body.Close()
	if string(b) != "inside" {
		t.Errorf("alias read %q", b)
	}
	page, err := s.List(ctx, fileops.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range page.Objects {
		if o.Key == "escape.txt" || o.Key == "up/secret.txt" {
			t.Errorf("listing shows %q", o.Key)
		}
	}
}

func TestDirectoriesAreNotObjects(t *testing.T) {
	ctx := context.Background()
	s, dir := newTestStore(t)
	os.MkdirAll(filepath.Join(dir, "docs", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "sub", "a.md"), []byte("a"), 0o644)
	for _, k := range []string{"docs", "docs/", "docs/sub"} {
		if _, err := s.Get(ctx, k, fileops.GetOptions{Length: -1}); !errors.Is(err, fileops.ErrNotFound) {
			t.Errorf("Get(%q) = %v", k, err)
		}
		if _, err := s.Head(ctx, k); !errors.Is(err, fileops.ErrNotFound) {
			t.Errorf("Head(%q) = %v", k, err)
		}
	}
	if _, err := s.Put(ctx, "docs/sub", []byte("x"), fileops.PutOptions{}); !errors.Is(err, fileops.ErrKeyConflict) {
		t.Errorf("a file over a directory: %v", err)
	}
	if _, err := s.Put(ctx, "docs/sub/a.md/", nil, fileops.PutOptions{}); !errors.Is(err, fileops.ErrKeyConflict) {
		t.Errorf("a folder marker over a file: %v", err)
	}
	if _, err := s.Put(ctx, "m/", []byte("body"), fileops.PutOptions{}); err == nil {
		t.Error("a folder marker with a body was accepted")
	}
	if err := s.Delete(ctx, "docs/", fileops.DeleteOptions{}); err != nil {
		t.Errorf("deleting the marker of a non-empty directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs", "sub", "a.md")); err != nil {
		t.Error("deleting a marker removed its contents")
	}
	if err := s.Delete(ctx, "docs/sub", fileops.DeleteOptions{}); err != nil {
		t.Errorf("deleting a directory as a file: %v", err)
	}
	if _, err := s.Put(ctx, "empty/", nil, fileops.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "empty/", fileops.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "empty")); err == nil {
		t.Error("an empty directory's marker delete left it")
	}
	if err := s.Delete(ctx, "docs/sub/a.md", fileops.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs")); err == nil {
		t.Error("empty parents were left after the last delete")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Error("the root itself was removed")
	}
}

func TestListingEdges(t *testing.T) {
	ctx := context.Background()
	s, dir := newTestStore(t)
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(dir, tempPrefix+"x"), []byte("partial"), 0o644)
	if _, err := s.List(ctx, fileops.ListOptions{Delimiter: "|"}); err == nil {
		t.Error("an unsupported delimiter was accepted")
	}
	page, err := s.List(ctx, fileops.ListOptions{Prefix: "a.md/"})
	if err != nil || len(page.Objects) != 0 {
		t.Errorf("listing under a file = %+v %v", page, err)
	}
	page, err = s.List(ctx, fileops.ListOptions{Prefix: "../"})
	if err != nil || len(page.Objects) != 0 {
		t.Errorf("listing above the root = %+v %v", page, err)
	}
	page, _ = s.List(ctx, fileops.ListOptions{})
	if len(page.Objects) != 1 || page.Objects[0].Key != "a.md" {
		t.Errorf("temporary files are listed: %+v", page.Objects)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.List(cctx, fileops.ListOptions{Prefix: "x/"}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled walk: %v", err)
	}
	a, _ := s.Head(ctx, "a.md")
	b, _ := s.Head(ctx, "a.md")
	if a.ETag != b.ETag {
		t.Error("the ETag of an unchanged file changed")
	}
	obj, err := s.Get(ctx, "a.md", fileops.GetOptions{Offset: 99, Length: 5})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(obj.Body); len(b) != 0 || obj.Info.Size != 1 {
		t.Errorf("a range past the end read %q", b)
	}
	obj.Body.Close()
}

func TestErrorMapping(t *testing.T) {
	var se *fileops.StoreError
	if err := mapErr(fs.ErrPermission); !errors.As(err, &se) || se.Code != "AccessDenied" {
		t.Errorf("permission: %v", err)
	}
	if err := mapErr(errors.New("disk on fire")); !errors.As(err, &se) || se.Code != "IOError" || se.Error() == "" {
		t.Errorf("other: %v", err)
	}
	if mapErr(nil) != nil {
		t.Error("nil mapped to an error")
	}
	if err := conflictOr(fs.ErrExist); !errors.Is(err, fileops.ErrKeyConflict) {
		t.Errorf("exists: %v", err)
	}
	if err := conflictOr(fs.ErrNotExist); !errors.Is(err, fileops.ErrNotFound) {
		t.Errorf("not exist: %v", err)
	}
	if _, err := name(""); err == nil {
		t.Error("an empty key has a name")
	}
}

// A link that leads out of the root is ErrOutsideRoot for every method, a
// name the file system cannot hold (or a reserved temporary name) is
// ErrUnsupportedName, and a write that fails creates no directory.
func TestLinksOutOfTheRootAndNamesItCannotHold(t *testing.T) {
	ctx := context.Background()
	s, dir := newTestStore(t)
	outside := filepath.Join(filepath.Dir(dir), "outside")
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "f.md"), []byte("secret"), 0o644)
	os.Symlink(filepath.Join(outside, "f.md"), filepath.Join(dir, "lf.md"))
	os.Symlink(outside, filepath.Join(dir, "ld"))
	for _, key := range []string{"lf.md", "ld/f.md"} {
		if _, err := s.Get(ctx, key, fileops.GetOptions{Length: -1}); !errors.Is(err, fileops.ErrOutsideRoot) {
			t.Errorf("Get %s: %v", key, err)
		}
		if _, err := s.Head(ctx, key); !errors.Is(err, fileops.ErrOutsideRoot) {
			t.Errorf("Head %s: %v", key, err)
		}
		if err := s.Delete(ctx, key, fileops.DeleteOptions{}); !errors.Is(err, fileops.ErrOutsideRoot) {
			t.Errorf("Delete %s: %v", key, err)
		}
	}
	if _, err := s.Put(ctx, "ld/new.md", []byte("x"), fileops.PutOptions{}); !errors.Is(err, fileops.ErrOutsideRoot) {
		t.Errorf("Put through a link: %v", err)
	}
	long := "a/b/" + strings.Repeat("n", 256)
	for _, key := range []string{long, ".filecontext-tmp-X", "d/.filecontext-tmp-Y/z"} {
		if _, err := s.Put(ctx, key, []byte("x"), fileops.PutOptions{}); !errors.Is(err, fileops.ErrUnsupportedName) {
			t.Errorf("Put %.40s: %v", key, err)
		}
		if _, err := s.Get(ctx, key, fileops.GetOptions{Length: -1}); !errors.Is(err, fileops.ErrUnsupportedName) {
			t.Errorf("Get %.40s: %v", key, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Error("a refused write created a directory")
	}
	// A write whose parent is a file fails after nothing was created.
	s.Put(ctx, "file", []byte("x"), fileops.PutOptions{})
	if _, err := s.Put(ctx, "file/sub/x.md", []byte("x"), fileops.PutOptions{}); !errors.Is(err, fileops.ErrKeyConflict) {
		t.Errorf("a file in the way: %v", err)
	}
	if err := mapErr(syscall.ENAMETOOLONG); !errors.Is(err, fileops.ErrUnsupportedName) {
		t.Errorf("ENAMETOOLONG: %v", err)
	}
}

// The ETag changes with the change time: a same-size rewrite that restores
// the modification time is still a new version.
func TestETagSeesTheChangeTime(t *testing.T) {
	ctx := context.Background()
	s, dir := newTestStore(t)
	p := filepath.Join(dir, "f.txt")
	os.WriteFile(p, []byte("AAAA"), 0o644)
	before, _ := s.Head(ctx, "f.txt")
	fi, _ := os.Stat(p)
	time.Sleep(5 * time.Millisecond)
	f, _ := os.OpenFile(p, os.O_WRONLY, 0)
	f.WriteString("BBBB")
	f.Close()
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	after, _ := s.Head(ctx, "f.txt")
	if before.ETag == after.ETag {
		t.Errorf("the etag %s did not change", before.ETag)
	}
	if _, err := s.Put(ctx, "f.txt", []byte("CCCC"), fileops.PutOptions{IfMatch: before.ETag}); !errors.Is(err, fileops.ErrPreconditionFailed) {
		t.Errorf("a write on the old etag: %v", err)
	}
}
