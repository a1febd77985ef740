// Package memstore is a fileops.Store in memory: a faithful model of the S3
// semantics the operations rely on (byte-ordered keys, real paging with
// delimiters, ranged and conditional reads, conditional writes), safe for
// concurrent use. It also counts the bytes its readers returned, so tests
// can assert that an operation read only a range.
package memstore

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
)

// Store is an in-memory fileops.Store. The zero value is not usable; call New.
type Store struct {
	mu     sync.RWMutex
	keys   []string // sorted
	objs   map[string]*object
	served atomic.Int64
	now    func() time.Time
}

type object struct {
	data []byte // never modified after Put: readers share it
	info fileops.ObjectInfo
}

var _ fileops.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{objs: map[string]*object{}, now: time.Now}
}

// BytesServed returns how many bytes all Get bodies have yielded so far.
func (s *Store) BytesServed() int64 { return s.served.Load() }

// Get implements fileops.Store.
func (s *Store) Get(ctx context.Context, key string, opts fileops.GetOptions) (*fileops.Object, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	o, ok := s.objs[key]
	s.mu.RUnlock()
	if !ok {
		return nil, fileops.ErrNotFound
	}
	if opts.IfMatch != "" && opts.IfMatch != o.info.ETag {
		return nil, fileops.ErrPreconditionFailed
	}
	start := min(max(opts.Offset, 0), int64(len(o.data)))
	end := int64(len(o.data))
	if opts.Length >= 0 {
		end = min(end, start+opts.Length)
	}
	// The body hides bytes.Reader's Seek: callers must work forward only.
	body := &countingReader{r: bytes.NewReader(o.data[start:end]), n: &s.served}
	return &fileops.Object{Info: o.info, Body: body}, nil
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingReader) Close() error { return nil }

// Head implements fileops.Store.
func (s *Store) Head(ctx context.Context, key string) (fileops.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return fileops.ObjectInfo{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	o, ok := s.objs[key]
	if !ok {
		return fileops.ObjectInfo{}, fileops.ErrNotFound
	}
	return o.info, nil
}

// List implements fileops.Store.
func (s *Store) List(ctx context.Context, opts fileops.ListOptions) (fileops.ListPage, error) {
	if err := ctx.Err(); err != nil {
		return fileops.ListPage{}, err
	}
	s.mu.RLock()
	i := sort.SearchStrings(s.keys, opts.Prefix)
	var objs []fileops.ObjectInfo
	for ; i < len(s.keys) && len(s.keys[i]) >= len(opts.Prefix) && s.keys[i][:len(opts.Prefix)] == opts.Prefix; i++ {
		objs = append(objs, s.objs[s.keys[i]].info)
	}
	s.mu.RUnlock()
	return fileops.PageSorted(objs, opts)
}

// Put implements fileops.Store.
func (s *Store) Put(ctx context.Context, key string, body []byte, opts fileops.PutOptions) (fileops.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return fileops.ObjectInfo{}, err
	}
	data := bytes.Clone(body)
	if data == nil {
		data = []byte{}
	}
	sum := md5.Sum(data)
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, exists := s.objs[key]
	if opts.IfNoneMatch == "*" && exists {
		return fileops.ObjectInfo{}, fileops.ErrPreconditionFailed
	}
	if opts.IfMatch != "" && (!exists || cur.info.ETag != opts.IfMatch) {
		if !exists {
			return fileops.ObjectInfo{}, fileops.ErrNotFound
		}
		return fileops.ObjectInfo{}, fileops.ErrPreconditionFailed
	}
	info := fileops.ObjectInfo{Key: key, Size: int64(len(data)), ETag: `"` + hex.EncodeToString(sum[:]) + `"`,
		LastModified: s.now().UTC().Truncate(time.Millisecond), ContentType: opts.ContentType}
	if info.ContentType == "" {
		info.ContentType = "application/octet-stream"
	}
	if !exists {
		i := sort.SearchStrings(s.keys, key)
		s.keys = append(s.keys, "")
		copy(s.keys[i+1:], s.keys[i:])
		s.keys[i] = key
	}
	s.objs[key] = &object{data: data, info: info}
	return info, nil
}

// Delete implements fileops.Store.
func (s *Store) Delete(ctx context.Context, key string, opts fileops.DeleteOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, exists := s.objs[key]
	if opts.IfMatch != "" && (!exists || cur.info.ETag != opts.IfMatch) {
		return fileops.ErrPreconditionFailed
	}
	if !exists {
		return nil
	}
	delete(s.objs, key)
	i := sort.SearchStrings(s.keys, key)
	s.keys = append(s.keys[:i], s.keys[i+1:]...)
	return nil
}
