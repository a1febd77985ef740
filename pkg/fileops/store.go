package fileops

import (
	"context"
	"errors"
	"io"
	"time"
)

// Store is the storage port. Keys are full storage keys (root prefix
// included); the operations in this package build them from checked
// pathsafe.Path values only. Every method honours ctx.
//
// Errors: a missing key is ErrNotFound, a failed condition is
// ErrPreconditionFailed, a key the store cannot hold next to another
// (a file where a directory is, on a filesystem) is ErrKeyConflict; anything
// else should be a *StoreError carrying the provider's safe error code.
type Store interface {
	// Get opens an object, or the byte range of it that opts names. A range
	// that starts at or past the end gives an empty body, not an error.
	// opts.IfMatch makes a changed object fail with ErrPreconditionFailed.
	Get(ctx context.Context, key string, opts GetOptions) (*Object, error)
	// Head returns an object's metadata.
	Head(ctx context.Context, key string) (ObjectInfo, error)
	// List returns one page of keys under opts.Prefix in byte order. With a
	// Delimiter, keys that share a prefix up to the next delimiter are folded
	// into CommonPrefixes, which count against MaxKeys as S3 counts them.
	List(ctx context.Context, opts ListOptions) (ListPage, error)
	// Put stores an object. IfMatch makes it conditional on the current ETag;
	// IfNoneMatch "*" makes it a create that fails when the key exists. A
	// failed condition is ErrPreconditionFailed and changes nothing, except
	// IfMatch on a missing key, which AWS answers with ErrNotFound (some
	// emulators with ErrPreconditionFailed): callers treat both as failed.
	Put(ctx context.Context, key string, body []byte, opts PutOptions) (ObjectInfo, error)
	// Delete removes an object. Deleting a missing key is not an error (as in
	// S3); IfMatch makes a changed or missing object fail with
	// ErrPreconditionFailed.
	Delete(ctx context.Context, key string, opts DeleteOptions) error
}

// ObjectInfo is an object's metadata. ETag is opaque and quoted as S3 sends it.
type ObjectInfo struct {
	Key          string
	Size         int64
	ETag         string
	LastModified time.Time
	ContentType  string
}

// GetOptions selects a byte range and a condition. Length < 0 reads to the end.
type GetOptions struct {
	Offset  int64
	Length  int64
	IfMatch string
}

// Object is an open object. Info describes the whole object (Size is the
// object's full size, not the range's); Body yields the requested range and
// must be closed.
type Object struct {
	Info ObjectInfo
	Body io.ReadCloser
}

// ListOptions selects one page of a listing. Token is the NextToken of the
// previous page; MaxKeys <= 0 means 1,000.
type ListOptions struct {
	Prefix    string
	Delimiter string
	Token     string
	MaxKeys   int
}

// ListPage is one page of a listing. NextToken is "" on the last page.
type ListPage struct {
	Objects        []ObjectInfo
	CommonPrefixes []string
	NextToken      string
}

// PutOptions are the conditions and metadata of a Put.
type PutOptions struct {
	IfMatch     string
	IfNoneMatch string // "" or "*"
	ContentType string
}

// DeleteOptions are the conditions of a Delete.
type DeleteOptions struct {
	IfMatch string
}

// Errors every Store uses, tested with errors.Is.
var (
	ErrNotFound           = errors.New("object not found")
	ErrPreconditionFailed = errors.New("precondition failed")
	ErrKeyConflict        = errors.New("key conflicts with an existing file or directory")
	// ErrOutsideRoot: the key names a link that leads out of a confined
	// store (a directory store); it is never followed.
	ErrOutsideRoot = errors.New("the path leaves the root")
	// ErrUnsupportedName: the store cannot hold a name in the key (a
	// segment over a file system's name limit, or a name it reserves).
	ErrUnsupportedName = errors.New("the store cannot hold a name in the key")
)

// StoreError is a provider failure: Code is the provider's error code (safe
// to show, e.g. "AccessDenied", "SlowDown"), Err the full error for logs.
type StoreError struct {
	Code string
	Err  error
}

func (e *StoreError) Error() string { return e.Code + ": " + e.Err.Error() }
func (e *StoreError) Unwrap() error { return e.Err }

// DefaultMaxKeys is the page size when ListOptions.MaxKeys is not set.
const DefaultMaxKeys = 1000
