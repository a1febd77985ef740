package fileops

import (
	"context"
	"encoding/base64"
	"unicode/utf8"

	"github.com/filecontext-aws/filecontext/pkg/fault"
)

// DownloadArgs are the arguments of file_context_download. MaxBytes 0 means
// the default page; Encoding "" means "auto".
type DownloadArgs struct {
	Path         string
	OffsetBytes  int64
	MaxBytes     int
	Encoding     string
	ExpectedETag string
}

// DownloadResult is one byte page of a file. Exactly one of Text and Base64
// is set.
type DownloadResult struct {
	Path            string  `json:"path"`
	Size            int64   `json:"size"`
	ETag            string  `json:"etag"`
	ContentType     string  `json:"contentType"`
	OffsetBytes     int64   `json:"offsetBytes"`
	BytesRead       int     `json:"bytesRead"`
	HasMore         bool    `json:"hasMore"`
	NextOffsetBytes *int64  `json:"nextOffsetBytes,omitempty"`
	Encoding        string  `json:"encoding"`
	Text            *string `json:"text,omitempty"`
	Base64          *string `json:"base64,omitempty"`
}

// Download returns a byte page of any file as a ranged read. With encoding
// "auto" a page that is valid UTF-8 comes back as text, cut back to a
// character boundary when the page ends inside a character; any other page
// comes back as base64. "utf8" insists on text (binary_content otherwise),
// "base64" always encodes. ExpectedETag makes a changed file fail with
// conflict, so pages of two versions are never mixed.
func (s *Service) Download(ctx context.Context, a DownloadArgs) (*DownloadResult, error) {
	p, err := s.root.Parse(a.Path)
	if err != nil {
		return nil, err
	}
	if a.OffsetBytes < 0 {
		return nil, fault.New(fault.InvalidArgument, "offsetBytes must not be negative, got %d.", a.OffsetBytes)
	}
	if a.MaxBytes < 0 {
		return nil, fault.New(fault.InvalidArgument, "maxBytes must be positive, got %d.", a.MaxBytes)
	}
	enc := a.Encoding
	switch enc {
	case "":
		enc = "auto"
	case "auto", "utf8", "base64":
	default:
		return nil, fault.New(fault.InvalidArgument, "encoding must be auto, utf8 or base64, got %q.", a.Encoding)
	}
	n := a.MaxBytes
	if n == 0 {
		n = s.limits.DefaultDownloadBytes
	}
	n = min(n, s.limits.MaximumDownloadBytes)
	obj, err := s.store.Get(ctx, p.Key(), GetOptions{Offset: a.OffsetBytes, Length: int64(n), IfMatch: a.ExpectedETag})
	if err != nil {
		if isPrecondition(err) {
			return nil, fault.New(fault.Conflict, "File '%s' changed since expectedEtag was read; start again from offset 0.", p.String()).WithPath(p.String())
		}
		return nil, MapStoreError("read", p.String(), err)
	}
	page, err := readBody(obj, int64(n), nil)
	if err != nil {
		return nil, MapStoreError("read", p.String(), err)
	}
	if a.ExpectedETag != "" && !sameETag(a.ExpectedETag, obj.Info.ETag) {
		return nil, fault.New(fault.Conflict, "File '%s' changed since expectedEtag was read; start again from offset 0.", p.String()).WithPath(p.String())
	}
	end := a.OffsetBytes + int64(len(page))
	if enc != "base64" {
		if cut, ok := utf8Page(page, end < obj.Info.Size); ok {
			page = page[:cut]
			enc = "utf8"
		} else if enc == "utf8" {
			return nil, binaryErr(p.String())
		} else {
			enc = "base64"
		}
	}
	end = a.OffsetBytes + int64(len(page))
	res := &DownloadResult{Path: p.String(), Size: obj.Info.Size, ETag: obj.Info.ETag, ContentType: obj.Info.ContentType,
		OffsetBytes: a.OffsetBytes, BytesRead: len(page), Encoding: enc, HasMore: end < obj.Info.Size}
	if res.HasMore {
		res.NextOffsetBytes = &end
	}
	if enc == "utf8" {
		t := string(page)
		res.Text = &t
	} else {
		b := base64.StdEncoding.EncodeToString(page)
		res.Base64 = &b
	}
	return res, nil
}

// utf8Page reports whether a page is UTF-8 text and how much of it to
// return: when more follows, an incomplete character at the end is left for
// the next page.
func utf8Page(page []byte, more bool) (int, bool) {
	if utf8.Valid(page) {
		return len(page), true
	}
	if !more {
		return 0, false
	}
	for cut := len(page) - 1; cut >= 0 && cut >= len(page)-utf8.UTFMax; cut-- {
		if utf8.RuneStart(page[cut]) {
			if !utf8.FullRune(page[cut:]) && utf8.Valid(page[:cut]) && cut > 0 {
				return cut, true
			}
			break
		}
	}
	return 0, false
}
