package fileops

import (
	"context"
	"io"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/fault"
)

// ReadResult is the result of file_access_read.
type ReadResult struct {
	Path       string `json:"path"`
	Content    string `json:"content"`
	Size       int64  `json:"size"`
	ETag       string `json:"etag"`
	LineEnding string `json:"lineEnding"`
}

// Read returns a whole text file. Files over MaximumFullReadBytes fail with
// limit_exceeded, decided from the object's size before its body is read,
// and again while reading if the object grew.
func (s *Service) Read(ctx context.Context, fileName string) (*ReadResult, error) {
	p, err := s.root.Parse(fileName)
	if err != nil {
		return nil, err
	}
	content, info, err := s.readAll(ctx, p.String(), p.Key(), "")
	if err != nil {
		return nil, err
	}
	return &ReadResult{Path: p.String(), Content: string(content), Size: int64(len(content)), ETag: info.ETag, LineEnding: LineEnding(content)}, nil
}

// readAll reads a whole text object under the full-read limit. It asks for
// at most limit+1 bytes, so an oversized object is refused from its size and
// never transferred.
func (s *Service) readAll(ctx context.Context, path, key, ifMatch string) ([]byte, ObjectInfo, error) {
	limit := s.limits.MaximumFullReadBytes
	obj, err := s.store.Get(ctx, key, GetOptions{Length: limit + 1, IfMatch: ifMatch})
	if err != nil {
		return nil, ObjectInfo{}, MapStoreError("read", path, err)
	}
	defer obj.Body.Close()
	if obj.Info.Size > limit {
		return nil, obj.Info, tooLargeToRead(path, obj.Info.Size, limit)
	}
	content, err := io.ReadAll(io.LimitReader(obj.Body, limit+1))
	if err != nil {
		return nil, obj.Info, MapStoreError("read", path, err)
	}
	if int64(len(content)) > limit {
		return nil, obj.Info, tooLargeToRead(path, int64(len(content)), limit)
	}
	if !IsText(content) {
		return nil, obj.Info, binaryErr(path)
	}
	return content, obj.Info, nil
}

func tooLargeToRead(path string, size, limit int64) error {
	return fault.Limit("maximumFullReadBytes", limit,
		"File '%s' is %d bytes, over the full-read limit of %d bytes; read it in windows with file_access_read_lines or file_context_read_range.",
		path, size, limit).WithPath(path)
}

// InfoResult is the result of file_context_info.
type InfoResult struct {
	Status string    `json:"status"`
	Path   string    `json:"path"`
	Info   *FileInfo `json:"info,omitempty"`
}

// FileInfo describes a file found by Info.
type FileInfo struct {
	Path         string    `json:"path"`
	Type         string    `json:"type"`
	Size         int64     `json:"size"`
	ContentType  string    `json:"contentType"`
	LastModified time.Time `json:"lastModified"`
	ETag         string    `json:"etag"`
}

// Info tells whether a path is a file ("found", with its metadata), a
// directory (only keys under it exist) or absent ("not_found"). Absence is a
// result, never an error. A path ending in "/" or "" asks about a directory.
func (s *Service) Info(ctx context.Context, path string) (*InfoResult, error) {
	d, err := s.root.ParseDir(path)
	if err != nil {
		return nil, err
	}
	if !d.IsRoot() && path[len(path)-1] != '/' {
		f, err := s.root.Parse(path)
		if err != nil {
			return nil, err
		}
		info, err := s.store.Head(ctx, f.Key())
		switch {
		case err == nil:
			return &InfoResult{Status: "found", Path: f.String(), Info: &FileInfo{
				Path: f.String(), Type: "file", Size: info.Size, ContentType: info.ContentType,
				LastModified: info.LastModified.UTC(), ETag: info.ETag,
			}}, nil
		case !isNotFound(err):
			return nil, MapStoreError("inspect", f.String(), err)
		}
	}
	page, err := s.store.List(ctx, ListOptions{Prefix: d.Key(), MaxKeys: 1})
	if err != nil {
		return nil, MapStoreError("list", d.String(), err)
	}
	if len(page.Objects) > 0 || len(page.CommonPrefixes) > 0 || d.IsRoot() {
		return &InfoResult{Status: "directory", Path: d.String()}, nil
	}
	return &InfoResult{Status: "not_found", Path: d.String()}, nil
}
