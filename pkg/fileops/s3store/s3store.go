// Package s3store is a fileops.Store over Amazon S3 (aws-sdk-go-v2).
//
// Reads are ranged GETs, listings ListObjectsV2 with a delimiter, writes
// conditional PUTs (If-Match / If-None-Match: *) and deletes conditional
// DELETEs. Provider errors map to the store vocabulary: NoSuchKey and 404 to
// fileops.ErrNotFound, 412 PreconditionFailed (and 409
// ConditionalRequestConflict) to fileops.ErrPreconditionFailed, anything else
// to a *fileops.StoreError with the provider's error code only. The SDK's
// standard retryer already retries throttling and 5xx answers.
package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
)

// Store is a fileops.Store over one bucket.
type Store struct {
	client *s3.Client
	bucket string
}

var _ fileops.Store = (*Store)(nil)

// New returns a store over bucket using client.
func New(client *s3.Client, bucket string) *Store {
	return &Store{client: client, bucket: bucket}
}

// Get implements fileops.Store.
func (s *Store) Get(ctx context.Context, key string, opts fileops.GetOptions) (*fileops.Object, error) {
	in := &s3.GetObjectInput{Bucket: &s.bucket, Key: &key}
	if opts.IfMatch != "" {
		in.IfMatch = aws.String(opts.IfMatch)
	}
	if opts.Offset > 0 || opts.Length >= 0 {
		if opts.Length == 0 {
			// An empty range cannot be expressed; HEAD answers the metadata.
			info, err := s.Head(ctx, key)
			if err == nil && opts.IfMatch != "" && opts.IfMatch != info.ETag {
				err = fileops.ErrPreconditionFailed
			}
			if err != nil {
				return nil, err
			}
			return &fileops.Object{Info: info, Body: io.NopCloser(bytes.NewReader(nil))}, nil
		}
		r := "bytes=" + strconv.FormatInt(opts.Offset, 10) + "-"
		if opts.Length > 0 {
			r += strconv.FormatInt(opts.Offset+opts.Length-1, 10)
		}
		in.Range = aws.String(r)
	}
	out, err := s.client.GetObject(ctx, in)
	if err != nil {
		if isInvalidRange(err) {
			// The range starts at or past the end (or the object is empty).
			info, herr := s.Head(ctx, key)
			if herr != nil {
				return nil, herr
			}
			return &fileops.Object{Info: info, Body: io.NopCloser(bytes.NewReader(nil))}, nil
		}
		return nil, mapErr(err)
	}
	info := fileops.ObjectInfo{Key: key, ETag: aws.ToString(out.ETag), ContentType: aws.ToString(out.ContentType), Size: aws.ToInt64(out.ContentLength)}
	if out.LastModified != nil {
		info.LastModified = *out.LastModified
	}
	if total, ok := totalFromContentRange(aws.ToString(out.ContentRange)); ok {
		info.Size = total
	}
	return &fileops.Object{Info: info, Body: out.Body}, nil
}

// totalFromContentRange reads the full size from "bytes 0-99/1234".
func totalFromContentRange(cr string) (int64, bool) {
	i := strings.LastIndexByte(cr, '/')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(cr[i+1:], 10, 64)
	return n, err == nil
}

// Head implements fileops.Store.
func (s *Store) Head(ctx context.Context, key string) (fileops.ObjectInfo, error) {
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		return fileops.ObjectInfo{}, s.headErr(ctx, key, err)
	}
	info := fileops.ObjectInfo{Key: key, Size: aws.ToInt64(out.ContentLength), ETag: aws.ToString(out.ETag), ContentType: aws.ToString(out.ContentType)}
	if out.LastModified != nil {
		info.LastModified = *out.LastModified
	}
	return info, nil
}

// headErr explains a failed HEAD. A HEAD answer has no body, so it carries
// no error code: a missing bucket looks like a missing key, and a key the
// store refuses (KeyTooLongError) like any bad request. The bucket is asked
// about a 404, and a 400 is asked again as a one-byte GET, whose answer names
// its error, so callers see the failure every other operation reports.
func (s *Store) headErr(ctx context.Context, key string, err error) error {
	mapped := mapErr(err)
	if errors.Is(mapped, fileops.ErrNotFound) {
		return s.bucketMissing(ctx, mapped)
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() == http.StatusBadRequest {
		out, gerr := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &key, Range: aws.String("bytes=0-0")})
		if gerr != nil {
			return mapErr(gerr)
		}
		out.Body.Close()
	}
	return mapped
}

// bucketMissing returns notFound when the bucket exists, and the storage
// failure of the bucket otherwise (NoSuchBucket for a 404).
func (s *Store) bucketMissing(ctx context.Context, notFound error) error {
	_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.bucket})
	if err == nil {
		return notFound
	}
	if mapped := mapErr(err); !errors.Is(mapped, fileops.ErrNotFound) {
		return mapped
	}
	return &fileops.StoreError{Code: "NoSuchBucket", Err: err}
}

// List implements fileops.Store.
func (s *Store) List(ctx context.Context, opts fileops.ListOptions) (fileops.ListPage, error) {
	in := &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(opts.Prefix)}
	if opts.Delimiter != "" {
		in.Delimiter = aws.String(opts.Delimiter)
	}
	if opts.Token != "" {
		in.ContinuationToken = aws.String(opts.Token)
	}
	if opts.MaxKeys > 0 {
		in.MaxKeys = aws.Int32(int32(opts.MaxKeys))
	}
	// Keys may hold characters XML 1.0 cannot carry (U+0001 to U+001F), which
	// would make the whole page unreadable; S3 percent-encodes them on
	// request ("encoding-type=url", ListObjectsV2 in the S3 API reference).
	// An answer that does not say it is encoded is taken verbatim.
	in.EncodingType = types.EncodingTypeUrl
	out, err := s.client.ListObjectsV2(ctx, in)
	if err != nil {
		return fileops.ListPage{}, mapErr(err)
	}
	decode := func(k *string) string { return aws.ToString(k) }
	if out.EncodingType == types.EncodingTypeUrl {
		decode = func(k *string) string {
			if d, err := url.QueryUnescape(aws.ToString(k)); err == nil {
				return d
			}
			return aws.ToString(k)
		}
	}
	page := fileops.ListPage{}
	for _, o := range out.Contents {
		info := fileops.ObjectInfo{Key: decode(o.Key), Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag)}
		if o.LastModified != nil {
			info.LastModified = *o.LastModified
		}
		page.Objects = append(page.Objects, info)
	}
	for _, cp := range out.CommonPrefixes {
		page.CommonPrefixes = append(page.CommonPrefixes, decode(cp.Prefix))
	}
	if aws.ToBool(out.IsTruncated) {
		page.NextToken = aws.ToString(out.NextContinuationToken)
	}
	return page, nil
}

// Put implements fileops.Store.
func (s *Store) Put(ctx context.Context, key string, body []byte, opts fileops.PutOptions) (fileops.ObjectInfo, error) {
	in := &s3.PutObjectInput{Bucket: &s.bucket, Key: &key, Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body)))}
	if opts.ContentType != "" {
		in.ContentType = aws.String(opts.ContentType)
	}
	if opts.IfMatch != "" {
		in.IfMatch = aws.String(opts.IfMatch)
	}
	if opts.IfNoneMatch != "" {
		in.IfNoneMatch = aws.String(opts.IfNoneMatch)
	}
	out, err := s.client.PutObject(ctx, in)
	if err != nil {
		return fileops.ObjectInfo{}, mapErr(err)
	}
	return fileops.ObjectInfo{Key: key, Size: int64(len(body)), ETag: aws.ToString(out.ETag), ContentType: opts.ContentType}, nil
}

// Delete implements fileops.Store.
func (s *Store) Delete(ctx context.Context, key string, opts fileops.DeleteOptions) error {
	in := &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &key}
	if opts.IfMatch != "" {
		// AWS answers a conditional delete of a missing key with 404, but
		// versitygw with 204; asking first gives one answer on both. The
		// DELETE itself stays conditional, so a change in between is caught.
		if _, err := s.Head(ctx, key); err != nil {
			if errors.Is(err, fileops.ErrNotFound) {
				return fileops.ErrPreconditionFailed
			}
			return err
		}
		in.IfMatch = aws.String(opts.IfMatch)
	}
	_, err := s.client.DeleteObject(ctx, in)
	if err != nil {
		err = mapErr(err)
		if opts.IfMatch != "" && errors.Is(err, fileops.ErrNotFound) {
			return fileops.ErrPreconditionFailed
		}
		if errors.Is(err, fileops.ErrNotFound) {
			return nil
		}
	}
	return err
}

// mapErr maps an SDK error into the store vocabulary.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var nsk *types.NoSuchKey
	var nf *types.NotFound
	if errors.As(err, &nsk) || errors.As(err, &nf) {
		return fileops.ErrNotFound
	}
	code := ""
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	status := 0
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	switch {
	case code == "NoSuchKey" || status == http.StatusNotFound && code != "NoSuchBucket":
		return fileops.ErrNotFound
	case code == "PreconditionFailed" || status == http.StatusPreconditionFailed,
		code == "ConditionalRequestConflict":
		return fileops.ErrPreconditionFailed
	case code == "ObjectParentIsFile", code == "ExistingObjectIsDirectory", code == "DirectoryObjectContainsData":
		// A posix-backed gateway cannot hold a file and a directory of one name.
		return fileops.ErrKeyConflict
	case code == "KeyTooLongError":
		// S3's answer for a key over 1,024 bytes; a posix-backed gateway
		// also gives it for a segment over its file system's name limit.
		return fmt.Errorf("%w: %w", fileops.ErrUnsupportedName, err)
	}
	if code == "" {
		code = failureCode(err, status)
	}
	return &fileops.StoreError{Code: code, Err: err}
}

// failureCode names a failure that has no S3 error code: an endpoint that
// does not resolve or accept connections, credentials that cannot be had,
// or an HTTP status without a body. The names are safe to show and tell the
// likely cause (fileops adds a hint for each).
func failureCode(err error, status int) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case status != 0:
		return fmt.Sprintf("HTTP%d", status)
	case errors.As(err, &dns):
		return "EndpointNotFound"
	case errors.As(err, &op):
		return "EndpointUnreachable"
	case strings.Contains(err.Error(), "get credentials:") || strings.Contains(err.Error(), "failed to retrieve credentials"):
		return "NoCredentials"
	}
	return "RequestFailed"
}

func isInvalidRange(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "InvalidRange" {
		return true
	}
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusRequestedRangeNotSatisfiable
}

// MaxConnections is how many connections to S3 the HTTP client of
// NewHTTPClient keeps open: as many as grep and the graph fetch at once.
const MaxConnections = 128

// NewHTTPClient is the SDK's HTTP client with enough idle connections kept
// for the concurrent fetches of grep and the graph build: the SDK's default
// keeps 10 per host (aws/transport/http DefaultHTTPTransportMaxIdleConnsPerHost),
// so every fetch past the tenth would open a new connection (a TLS
// handshake on S3).
func NewHTTPClient() *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConns, t.MaxIdleConnsPerHost = MaxConnections, MaxConnections
	})
}
