// Package fileops holds the file operations of CONTRACT §4–§5 over one
// storage port, Store.
//
// The operations are written once here; memstore, dirstore and s3store only
// move bytes. Every operation takes paths as strings exactly as an agent sent
// them, checks them with pathsafe before any storage call, and fails with a
// *fault.Error from the one vocabulary. Nothing here logs.
package fileops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

// Service runs the file operations over one Store under one root.
type Service struct {
	store  Store
	root   pathsafe.Root
	limits Limits
}

// New returns a Service. It fails when the limits are not valid.
func New(store Store, root pathsafe.Root, limits Limits) (*Service, error) {
	if store == nil {
		return nil, errors.New("fileops: nil store")
	}
	if err := limits.Validate(); err != nil {
		return nil, fmt.Errorf("fileops: %w", err)
	}
	return &Service{store: store, root: root, limits: limits}, nil
}

// Limits returns the service's limits.
func (s *Service) Limits() Limits { return s.limits }

// Root returns the service's root.
func (s *Service) Root() pathsafe.Root { return s.root }

// Store returns the service's store.
func (s *Service) Store() Store { return s.store }

// MapStoreError maps a Store error for an operation on a logical path into the
// vocabulary. The message names the logical path and the provider's error
// code only: never a key, a bucket or a root prefix.
func MapStoreError(op string, path string, err error) error {
	var fe *fault.Error
	switch {
	case errors.As(err, &fe):
		return fe
	case errors.Is(err, ErrNotFound):
		return notFound(path)
	case errors.Is(err, ErrPreconditionFailed):
		return fault.New(fault.Conflict, "File '%s' changed since it was read; read it again and retry.", path).WithPath(path)
	case errors.Is(err, ErrKeyConflict):
		return fault.New(fault.Conflict, "'%s' conflicts with an existing file or directory of the same name.", path).WithPath(path)
	case errors.Is(err, ErrOutsideRoot):
		return fault.New(fault.Forbidden, "'%s' cannot be used: the path leaves the root.", path).WithPath(path)
	case errors.Is(err, ErrUnsupportedName):
		return fault.New(fault.InvalidPath, "Invalid path %q: the store cannot hold a name in it (longer than 255 bytes, or reserved).", path).WithPath(path)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return fault.As(err).WithPath(path)
	}
	code := "unknown"
	var se *StoreError
	if errors.As(err, &se) && se.Code != "" {
		code = se.Code
	}
	msg := fmt.Sprintf("Storage failed to %s '%s': %s.", op, path, code)
	if hint, ok := storeHints[code]; ok {
		msg += " " + hint
	}
	return fault.New(fault.StorageError, "%s", msg).WithPath(path).WithCause(err).With("storeCode", code)
}

// storeHints tell an operator the likely cause of a storage failure, in
// words that name no bucket, prefix or endpoint.
var storeHints = map[string]string{
	"NoCredentials":         "No AWS credentials were found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.",
	"EndpointUnreachable":   "The storage endpoint refused the connection: check AWS_ENDPOINT_URL (or AWS_ENDPOINT_URL_S3) and that the service runs.",
	"EndpointNotFound":      "The storage endpoint's host name did not resolve: check AWS_ENDPOINT_URL and AWS_REGION.",
	"NoSuchBucket":          "The configured bucket does not exist in this account and region.",
	"AccessDenied":          "The credentials are not allowed this action: check the role's policy.",
	"InvalidAccessKeyId":    "The access key is not known to the storage service: check the credentials (and AWS_ENDPOINT_URL for an emulator).",
	"SignatureDoesNotMatch": "The secret key does not match the access key: check the credentials.",
}

func notFound(path string) error {
	return fault.New(fault.NotFound, "File '%s' was not found.", path).WithPath(path)
}

func binaryErr(path string) error {
	return fault.New(fault.BinaryContent, "File '%s' is not UTF-8 text; use file_context_download to read its bytes.", path).WithPath(path)
}

// IsText reports whether b is UTF-8 text: valid UTF-8 without NUL bytes.
func IsText(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}

// sameETag compares two ETags, ignoring quotes and a weak prefix, so an agent
// may send an ETag with or without its quotes.
func sameETag(a, b string) bool {
	return normETag(a) == normETag(b)
}

func normETag(e string) string {
	return strings.Trim(strings.TrimPrefix(e, "W/"), `"`)
}

// ctxErr returns the vocabulary error of a done context, or nil.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fault.As(err)
	}
	return nil
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

func isPrecondition(err error) bool { return errors.Is(err, ErrPreconditionFailed) }
