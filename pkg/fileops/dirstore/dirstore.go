// Package dirstore is a fileops.Store over a local directory: the embedded
// default of the local server.
//
// Every access goes through an *os.Root, so neither a ".." nor a symbolic
// link can reach outside the directory. Keys map to slash-separated relative
// paths; a key ending in "/" is a folder marker and maps to a directory.
// Writes go to a temporary file in the target directory and are renamed into
// place, so a reader sees the old or the new content, never half of one.
// ETags derive from the file's inode, size and modification time: stable
// while the file is unchanged, different after any write through this store.
// Conditional writes are atomic within one process; two processes writing
// one directory are not coordinated.
//
// A filesystem cannot hold a file and a directory of the same name, so a key
// that is also a prefix of other keys fails with fileops.ErrKeyConflict.
package dirstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
)

// tempPrefix starts the names of files being written; listings skip them.
const tempPrefix = ".filecontext-tmp-"

// Store is a fileops.Store over a directory.
type Store struct {
	root     *os.Root
	mu       sync.Mutex // serialises conditional writes and deletes
	listings listings
}

var _ fileops.Store = (*Store)(nil)

// Open opens a store over an existing directory.
func Open(dir string) (*Store, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("dirstore: %w", err)
	}
	return &Store{root: r}, nil
}

// Close releases the directory.
func (s *Store) Close() error { return s.root.Close() }

// name maps a key to a path under the root, refusing keys that are not a
// clean relative path.
// A segment that starts like a temporary file, or is longer than the file
// system can name, is a key the store cannot hold: it fails with
// fileops.ErrUnsupportedName, so a file being written can never be read or
// replaced by name.
func name(key string) (string, error) {
	n := strings.TrimSuffix(key, "/")
	if n == "" || !fs.ValidPath(n) || strings.ContainsRune(n, 0) {
		return "", &fileops.StoreError{Code: "InvalidKey", Err: fmt.Errorf("key %q is not a relative path", key)}
	}
	for seg := range strings.SplitSeq(n, "/") {
		if len(seg) > maxNameBytes || strings.HasPrefix(seg, tempPrefix) {
			return "", fileops.ErrUnsupportedName
		}
	}
	return n, nil
}

// maxNameBytes is NAME_MAX of Linux file systems (ext4, xfs, tmpfs) and of
// macOS's APFS: the longest name of one directory entry, in bytes.
const maxNameBytes = 255

// etag derives a version from the inode, size, modification time and change
// time. The change time cannot be set by a user (touch -d or utimes set the
// modification time and move the change time to now), so a same-size rewrite
// that restores the old modification time still changes the ETag.
func etag(fi fs.FileInfo) string {
	h := fnv.New64a()
	var ino uint64
	var ctime int64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = st.Ino
		ctime = st.Ctim.Nano()
	}
	fmt.Fprintf(h, "%d/%d/%d/%d", ino, fi.Size(), fi.ModTime().UnixNano(), ctime)
	return `"` + hex.EncodeToString(h.Sum(nil)) + `"`
}

func info(key string, fi fs.FileInfo) fileops.ObjectInfo {
	return fileops.ObjectInfo{Key: key, Size: fi.Size(), ETag: etag(fi), LastModified: fi.ModTime().UTC(), ContentType: fileops.ContentTypeOf(key)}
}

// mapErr turns filesystem errors into the store vocabulary.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return fileops.ErrNotFound
	case errors.Is(err, fs.ErrPermission):
		return &fileops.StoreError{Code: "AccessDenied", Err: err}
	case errors.Is(err, syscall.ENAMETOOLONG):
		return fileops.ErrUnsupportedName
	case strings.Contains(err.Error(), "path escapes from parent"):
		// os.Root refuses a link that leads out of the root with an error
		// the os package does not export (errPathEscapes in os/file.go).
		return fmt.Errorf("%w: %w", fileops.ErrOutsideRoot, err)
	}
	return &fileops.StoreError{Code: "IOError", Err: err}
}

// Get implements fileops.Store.
func (s *Store) Get(ctx context.Context, key string, opts fileops.GetOptions) (*fileops.Object, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, err := name(key)
	if err != nil || strings.HasSuffix(key, "/") {
		return nil, readNameErr(err)
	}
	f, err := s.root.Open(n)
	if err != nil {
		return nil, mapErr(err)
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		err = fs.ErrNotExist
	}
	if err != nil {
		f.Close()
		return nil, mapErr(err)
	}
	inf := info(key, fi)
	if opts.IfMatch != "" && opts.IfMatch != inf.ETag {
		f.Close()
		return nil, fileops.ErrPreconditionFailed
	}
	var body io.Reader = f
	if opts.Offset > 0 {
		if _, err := f.Seek(opts.Offset, io.SeekStart); err != nil {
			f.Close()
			return nil, mapErr(err)
		}
	}
	if opts.Length >= 0 {
		body = io.LimitReader(f, opts.Length)
	}
	return &fileops.Object{Info: inf, Body: readCloser{body, f}}, nil
}

// readNameErr is what a read of a key the store cannot name answers: a name
// it cannot hold is refused as such; a folder marker or a key that is not a
// relative path is simply not there.
func readNameErr(err error) error {
	if errors.Is(err, fileops.ErrUnsupportedName) {
		return err
	}
	return fileops.ErrNotFound
}

type readCloser struct {
	io.Reader
	io.Closer
}

// Head implements fileops.Store.
func (s *Store) Head(ctx context.Context, key string) (fileops.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return fileops.ObjectInfo{}, err
	}
	n, err := name(key)
	if err != nil || strings.HasSuffix(key, "/") {
		return fileops.ObjectInfo{}, readNameErr(err)
	}
	fi, err := s.root.Stat(n)
	if err != nil {
		return fileops.ObjectInfo{}, mapErr(err)
	}
	if fi.IsDir() {
		return fileops.ObjectInfo{}, fileops.ErrNotFound
	}
	return info(key, fi), nil
}

// List implements fileops.Store. Only "/" and "" are supported delimiters.
// Each page walks the directories the prefix names, so a listing of n keys
// costs O(n) per page.
func (s *Store) List(ctx context.Context, opts fileops.ListOptions) (fileops.ListPage, error) {
	if opts.Delimiter != "" && opts.Delimiter != "/" {
		return fileops.ListPage{}, &fileops.StoreError{Code: "InvalidArgument", Err: fmt.Errorf("delimiter %q is not supported", opts.Delimiter)}
	}
	// A continuation pages through the walk of its first page: a listing
	// of many pages walks the tree once, and sees it as it was then.
	gen, inner, _ := strings.Cut(opts.Token, ".")
	if inner == "" {
		gen, inner = "", opts.Token
	}
	objs, ok := s.listings.get(gen, opts.Prefix, opts.Delimiter)
	if !ok {
		dir := opts.Prefix[:strings.LastIndexByte(opts.Prefix, '/')+1]
		if err := s.walk(ctx, dir, opts.Prefix, opts.Delimiter == "", &objs); err != nil {
			return fileops.ListPage{}, err
		}
		sort.Slice(objs, func(i, j int) bool { return objs[i].Key < objs[j].Key })
		gen = ""
	}
	o := opts
	o.Token = inner
	page, err := fileops.PageSorted(objs, o)
	if err != nil || page.NextToken == "" {
		return page, err
	}
	if gen == "" {
		gen = s.listings.put(objs, opts.Prefix, opts.Delimiter)
	}
	page.NextToken = gen + "." + page.NextToken
	return page, nil
}

// listings keeps the walks of listings in progress for their continuations:
// a few, for a short time.
type listings struct {
	mu   sync.Mutex
	next int
	kept map[string]*listing
}

type listing struct {
	prefix, delimiter string
	objs              []fileops.ObjectInfo
	used              time.Time
}

const (
	listingsKept = 8
	listingTTL   = 2 * time.Minute
)

func (l *listings) get(gen, prefix, delimiter string) ([]fileops.ObjectInfo, bool) {
	if gen == "" {
		return nil, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.kept[gen]
	if k == nil || k.prefix != prefix || k.delimiter != delimiter || time.Since(k.used) > listingTTL {
		return nil, false
	}
	k.used = time.Now()
	return k.objs, true
}

func (l *listings) put(objs []fileops.ObjectInfo, prefix, delimiter string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kept == nil {
		l.kept = map[string]*listing{}
	}
	for len(l.kept) >= listingsKept {
		oldest := ""
		for g, k := range l.kept {
			if oldest == "" || k.used.Before(l.kept[oldest].used) {
				oldest = g
			}
		}
		delete(l.kept, oldest)
	}
	l.next++
	gen := fmt.Sprintf("w%x", l.next)
	l.kept[gen] = &listing{prefix: prefix, delimiter: delimiter, objs: objs, used: time.Now()}
	return gen
}

// walk collects the files under dir whose keys start with prefix. Without
// recursion a subdirectory is collected as a marker key "sub/", which
// PageSorted folds into a common prefix.
func (s *Store) walk(ctx context.Context, dir, prefix string, recursive bool, out *[]fileops.ObjectInfo) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	open := "."
	if dir != "" {
		n, err := name(dir)
		if err != nil {
			return nil
		}
		open = n
	}
	f, err := s.root.Open(open)
	if err != nil {
		if errors.Is(mapErr(err), fileops.ErrNotFound) {
			return nil
		}
		return mapErr(err)
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		return mapErr(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			continue
		}
		key := dir + e.Name()
		fi, err := e.Info() // an lstat beside the open directory
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			fi, err = s.root.Stat(key) // follows links that stay inside the root
		}
		if err != nil {
			continue
		}
		if fi.IsDir() {
			key += "/"
			if !strings.HasPrefix(key, prefix) && !strings.HasPrefix(prefix, key) {
				continue
			}
			if recursive {
				if err := s.walk(ctx, key, prefix, true, out); err != nil {
					return err
				}
			} else if strings.HasPrefix(key, prefix) && key != prefix {
				*out = append(*out, fileops.ObjectInfo{Key: key})
			}
			continue
		}
		if strings.HasPrefix(key, prefix) {
			*out = append(*out, info(key, fi))
		}
	}
	return nil
}

// Put implements fileops.Store. A folder marker (a key ending in "/", with an
// empty body) creates the directory.
func (s *Store) Put(ctx context.Context, key string, body []byte, opts fileops.PutOptions) (fileops.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return fileops.ObjectInfo{}, err
	}
	n, err := name(key)
	if err != nil {
		return fileops.ObjectInfo{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.HasSuffix(key, "/") {
		if len(body) > 0 {
			return fileops.ObjectInfo{}, &fileops.StoreError{Code: "InvalidKey", Err: errors.New("a folder marker must be empty")}
		}
		if err := s.root.MkdirAll(n, 0o755); err != nil {
			return fileops.ObjectInfo{}, conflictOr(err)
		}
		return fileops.ObjectInfo{Key: key, ETag: `"d41d8cd98f00b204e9800998ecf8427e"`}, nil
	}
	cur, err := s.root.Stat(n)
	exists := err == nil && !cur.IsDir()
	switch {
	case err == nil && cur.IsDir():
		return fileops.ObjectInfo{}, fileops.ErrKeyConflict
	case err != nil && !errors.Is(mapErr(err), fileops.ErrNotFound):
		return fileops.ObjectInfo{}, mapErr(err)
	case opts.IfNoneMatch == "*" && exists:
		return fileops.ObjectInfo{}, fileops.ErrPreconditionFailed
	case opts.IfMatch != "" && !exists:
		return fileops.ObjectInfo{}, fileops.ErrNotFound
	case opts.IfMatch != "" && etag(cur) != opts.IfMatch:
		return fileops.ObjectInfo{}, fileops.ErrPreconditionFailed
	}
	// A write that fails leaves no directory it created behind.
	created := s.missingDirs(path.Dir(n))
	undo := func() {
		for _, d := range created {
			if s.root.Remove(d) != nil {
				break
			}
		}
	}
	if len(created) > 0 {
		if err := s.root.MkdirAll(path.Dir(n), 0o755); err != nil {
			undo()
			return fileops.ObjectInfo{}, conflictOr(err)
		}
	}
	tmp := path.Join(path.Dir(n), tempPrefix+rand.Text())
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		undo()
		return fileops.ObjectInfo{}, conflictOr(err)
	}
	_, werr := io.Copy(f, bytes.NewReader(body))
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = s.root.Rename(tmp, n)
	}
	if werr != nil {
		s.root.Remove(tmp)
		undo()
		return fileops.ObjectInfo{}, mapErr(werr)
	}
	fi, err := s.root.Stat(n)
	if err != nil {
		return fileops.ObjectInfo{}, mapErr(err)
	}
	return info(key, fi), nil
}

// missingDirs returns the directories of dir (a relative directory, "."
// for the root) that do not exist yet, deepest first.
func (s *Store) missingDirs(dir string) []string {
	var missing []string
	for d := dir; d != "."; d = path.Dir(d) {
		if _, err := s.root.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	return missing
}

// conflictOr maps "a file is in the way" to ErrKeyConflict.
func conflictOr(err error) error {
	if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
		return fileops.ErrKeyConflict
	}
	return mapErr(err)
}

// Delete implements fileops.Store. Directories left empty by the delete are
// removed up to the root, as a prefix vanishes in S3 with its last key.
func (s *Store) Delete(ctx context.Context, key string, opts fileops.DeleteOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n, err := name(key)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fi, err := s.root.Stat(n)
	marker := strings.HasSuffix(key, "/")
	switch {
	case err != nil && errors.Is(mapErr(err), fileops.ErrNotFound), err == nil && fi.IsDir() != marker:
		if opts.IfMatch != "" {
			return fileops.ErrPreconditionFailed
		}
		return nil
	case err != nil:
		return mapErr(err)
	case opts.IfMatch != "" && !marker && etag(fi) != opts.IfMatch:
		return fileops.ErrPreconditionFailed
	}
	if err := s.root.Remove(n); err != nil {
		if marker { // a directory that still holds keys stays, as in S3
			return nil
		}
		return mapErr(err)
	}
	for d := path.Dir(n); d != "."; d = path.Dir(d) {
		if s.root.Remove(d) != nil {
			break
		}
	}
	return nil
}
