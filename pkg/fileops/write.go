package fileops

import (
	"bytes"
	"context"
	"mime"
	"path"
	"strconv"
	"strings"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

// Tool names of the write operations, as the catalog spells them.
const (
	ToolWrite        = "file_access_write"
	ToolDelete       = "file_access_delete"
	ToolReplace      = "file_access_replace"
	ToolReplaceLines = "file_access_replace_lines"
)

// Change is a write computed and checked at request time, not yet applied.
// It applies only while the file is as it was: BaseETag (If-Match), or absent
// when Exists is false (If-None-Match: *).
type Change struct {
	Tool     string
	Path     pathsafe.Path
	Exists   bool   // the file existed when the change was computed
	BaseETag string // its ETag then, "" when it did not exist
	Delete   bool
	Content  []byte // the proposed content; nil for a delete
	Message  string // what Apply reports, e.g. "File 'a.md' written."
	// Old is the content the change was computed from, when the operation
	// read it (replace, replace_lines); nil otherwise.
	Old []byte
}

// Applied is the result of a write applied at once.
type Applied struct {
	Status  string `json:"status"` // "applied"
	Tool    string `json:"tool"`
	Path    string `json:"path"`
	ETag    string `json:"etag,omitempty"`
	Message string `json:"message"`
}

// WriteArgs are the arguments of file_access_write.
type WriteArgs struct {
	FileName     string
	Content      string
	Overwrite    bool
	ExpectedETag string
}

// DeleteArgs are the arguments of file_access_delete.
type DeleteArgs struct {
	FileName     string
	ExpectedETag string
}

// ReplaceArgs are the arguments of file_access_replace.
type ReplaceArgs struct {
	FileName     string
	OldString    string
	NewString    string
	ReplaceAll   bool
	ExpectedETag string
}

// LineEdit is one edit of file_access_replace_lines, addressed by the
// file's original numbering.
type LineEdit struct {
	LineNumber   int     `json:"line_number"`
	NewLine      string  `json:"new_line"`
	ExpectedLine *string `json:"expected_line,omitempty"`
}

// ReplaceLinesArgs are the arguments of file_access_replace_lines.
type ReplaceLinesArgs struct {
	FileName     string
	Edits        []LineEdit
	ExpectedETag string
}

// PlanWrite checks a write and computes its change.
func (s *Service) PlanWrite(ctx context.Context, a WriteArgs) (*Change, error) {
	p, err := s.root.Parse(a.FileName)
	if err != nil {
		return nil, err
	}
	if n := int64(len(a.Content)); n > s.limits.MaximumWriteBytes {
		return nil, fault.Limit("maximumWriteBytes", s.limits.MaximumWriteBytes,
			"content is %d bytes, over the write limit of %d bytes.", n, s.limits.MaximumWriteBytes).WithPath(p.String())
	}
	info, err := s.store.Head(ctx, p.Key())
	exists := err == nil
	if err != nil && !isNotFound(err) {
		return nil, MapStoreError("inspect", p.String(), err)
	}
	switch {
	case exists && !a.Overwrite:
		return nil, fault.New(fault.AlreadyExists, "File '%s' already exists; pass overwrite: true to replace it.", p.String()).WithPath(p.String())
	case a.ExpectedETag != "" && !exists:
		return nil, fault.New(fault.Conflict, "File '%s' no longer exists, so expectedEtag does not match.", p.String()).WithPath(p.String())
	}
	if err := checkExpected(p, a.ExpectedETag, info.ETag); err != nil {
		return nil, err
	}
	return &Change{Tool: ToolWrite, Path: p, Exists: exists, BaseETag: info.ETag, Content: []byte(a.Content),
		Message: "File '" + p.String() + "' written."}, nil
}

// PlanDelete checks a delete and computes its change.
func (s *Service) PlanDelete(ctx context.Context, a DeleteArgs) (*Change, error) {
	p, err := s.root.Parse(a.FileName)
	if err != nil {
		return nil, err
	}
	info, err := s.store.Head(ctx, p.Key())
	if err != nil {
		return nil, MapStoreError("inspect", p.String(), err)
	}
	if err := checkExpected(p, a.ExpectedETag, info.ETag); err != nil {
		return nil, err
	}
	return &Change{Tool: ToolDelete, Path: p, Exists: true, BaseETag: info.ETag, Delete: true,
		Message: "File '" + p.String() + "' deleted."}, nil
}

// PlanReplace checks a string replacement and computes its change. In a file
// whose terminators are all "\r\n" (or all "\r"), a "\n" in oldString and
// newString stands for that terminator, so the file keeps its line endings.
func (s *Service) PlanReplace(ctx context.Context, a ReplaceArgs) (*Change, error) {
	p, err := s.root.Parse(a.FileName)
	if err != nil {
		return nil, err
	}
	if a.OldString == "" {
		return nil, rejected(p, "empty_old_string", "oldString must not be empty.")
	}
	old, info, err := s.readAll(ctx, p.String(), p.Key(), "")
	if err != nil {
		return nil, err
	}
	if err := checkExpected(p, a.ExpectedETag, info.ETag); err != nil {
		return nil, err
	}
	oldS, newS := a.OldString, a.NewString
	if eol := nativeEOL(old); eol != "" {
		oldS, newS = withEOL(oldS, eol), withEOL(newS, eol)
	}
	n := bytes.Count(old, []byte(oldS))
	switch {
	case n == 0:
		return nil, rejected(p, "no_match", "oldString was not found in '%s'; read the file again and copy the text exactly.", p.String())
	case n > 1 && !a.ReplaceAll:
		return nil, rejected(p, "not_unique", "oldString occurs %d times in '%s'; add surrounding text to make it unique, or pass replaceAll: true.", n, p.String()).With("count", n)
	}
	if !a.ReplaceAll {
		n = 1
	}
	// The size is known before the result is built, so a small request
	// cannot make the service build (or stage) an oversized file.
	if err := s.checkResultSize(p, int64(len(old))+int64(n)*(int64(len(newS))-int64(len(oldS)))); err != nil {
		return nil, err
	}
	content := bytes.Replace(old, []byte(oldS), []byte(newS), n)
	return &Change{Tool: ToolReplace, Path: p, Exists: true, BaseETag: info.ETag, Content: content, Old: old,
		Message: "Replaced " + itoa(n) + " occurrence(s) in '" + p.String() + "'."}, nil
}

// PlanReplaceLines checks line edits and computes their change. Edits
// address the original numbering and are all checked before any applies. An
// empty new_line removes the line with its terminator; a new_line without a
// terminator keeps the replaced line's terminator; one that ends in a
// terminator is used verbatim.
func (s *Service) PlanReplaceLines(ctx context.Context, a ReplaceLinesArgs) (*Change, error) {
	p, err := s.root.Parse(a.FileName)
	if err != nil {
		return nil, err
	}
	if len(a.Edits) == 0 {
		return nil, fault.New(fault.InvalidArgument, "edits must hold at least one edit.")
	}
	old, info, err := s.readAll(ctx, p.String(), p.Key(), "")
	if err != nil {
		return nil, err
	}
	if err := checkExpected(p, a.ExpectedETag, info.ETag); err != nil {
		return nil, err
	}
	lines := SplitLines(old)
	byLine := make(map[int]LineEdit, len(a.Edits))
	for _, e := range a.Edits {
		if e.LineNumber < 1 || e.LineNumber > len(lines) {
			return nil, rejected(p, "out_of_range", "line_number %d is outside '%s', which has %d line(s).", e.LineNumber, p.String(), len(lines)).
				With("lineNumber", e.LineNumber).With("totalLines", len(lines))
		}
		if _, dup := byLine[e.LineNumber]; dup {
			return nil, rejected(p, "duplicate_line", "line_number %d is edited more than once.", e.LineNumber).With("lineNumber", e.LineNumber)
		}
		// The refusal names the line number, never the line: a principal
		// allowed only replace_lines must not read a file through it.
		if e.ExpectedLine != nil && !bytes.Equal(trimEOL(lines[e.LineNumber-1]), trimEOL([]byte(*e.ExpectedLine))) {
			return nil, rejected(p, "expected_line_mismatch", "Line %d of '%s' is not expected_line; read it again.", e.LineNumber, p.String()).
				With("lineNumber", e.LineNumber)
		}
		byLine[e.LineNumber] = e
	}
	size := int64(len(old))
	for n, e := range byLine {
		line := lines[n-1]
		size -= int64(len(line))
		switch {
		case e.NewLine == "":
		case endsWithEOL(e.NewLine):
			size += int64(len(e.NewLine))
		default:
			size += int64(len(e.NewLine) + len(line) - len(trimEOL(line)))
		}
	}
	if err := s.checkResultSize(p, size); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(int(size))
	for i, line := range lines {
		e, ok := byLine[i+1]
		switch {
		case !ok:
			out.Write(line)
		case e.NewLine == "":
		case endsWithEOL(e.NewLine):
			out.WriteString(e.NewLine)
		default:
			out.WriteString(e.NewLine)
			out.Write(line[len(trimEOL(line)):])
		}
	}
	return &Change{Tool: ToolReplaceLines, Path: p, Exists: true, BaseETag: info.ETag, Content: out.Bytes(), Old: old,
		Message: "Replaced " + itoa(len(a.Edits)) + " line(s) in '" + p.String() + "'."}, nil
}

// Apply applies a change conditionally on the file being as it was when the
// change was computed; a file changed since fails with conflict and is left
// as it is.
func (s *Service) Apply(ctx context.Context, c *Change) (*Applied, error) {
	name := c.Path.String()
	if c.Delete {
		if err := s.store.Delete(ctx, c.Path.Key(), DeleteOptions{IfMatch: c.BaseETag}); err != nil {
			return nil, applyErr(name, err)
		}
		return &Applied{Status: "applied", Tool: c.Tool, Path: name, Message: c.Message}, nil
	}
	opts := PutOptions{ContentType: ContentTypeOf(name)}
	if c.Exists {
		opts.IfMatch = c.BaseETag
	} else {
		opts.IfNoneMatch = "*"
	}
	info, err := s.store.Put(ctx, c.Path.Key(), c.Content, opts)
	if err != nil {
		return nil, applyErr(name, err)
	}
	return &Applied{Status: "applied", Tool: c.Tool, Path: name, ETag: info.ETag, Message: c.Message}, nil
}

func applyErr(name string, err error) error {
	if isNotFound(err) {
		err = ErrPreconditionFailed
	}
	if isPrecondition(err) {
		return fault.New(fault.Conflict, "File '%s' changed since the change was computed; it was not overwritten. Read it again and retry.", name).WithPath(name)
	}
	return MapStoreError("write", name, err)
}

// Write, Delete, Replace and ReplaceLines plan and apply at once: the
// behaviour when the host turned approval off.
func (s *Service) Write(ctx context.Context, a WriteArgs) (*Applied, error) {
	return s.planApply(ctx, func() (*Change, error) { return s.PlanWrite(ctx, a) })
}

// Delete plans and applies a delete at once.
func (s *Service) Delete(ctx context.Context, a DeleteArgs) (*Applied, error) {
	return s.planApply(ctx, func() (*Change, error) { return s.PlanDelete(ctx, a) })
}

// Replace plans and applies a replacement at once.
func (s *Service) Replace(ctx context.Context, a ReplaceArgs) (*Applied, error) {
	return s.planApply(ctx, func() (*Change, error) { return s.PlanReplace(ctx, a) })
}

// ReplaceLines plans and applies line edits at once.
func (s *Service) ReplaceLines(ctx context.Context, a ReplaceLinesArgs) (*Applied, error) {
	return s.planApply(ctx, func() (*Change, error) { return s.PlanReplaceLines(ctx, a) })
}

func (s *Service) planApply(ctx context.Context, plan func() (*Change, error)) (*Applied, error) {
	c, err := plan()
	if err != nil {
		return nil, err
	}
	return s.Apply(ctx, c)
}

// checkResultSize refuses a change whose result would be over
// maximumWriteBytes, naming the size it would have had.
func (s *Service) checkResultSize(p pathsafe.Path, size int64) error {
	if size > s.limits.MaximumWriteBytes {
		return fault.Limit("maximumWriteBytes", s.limits.MaximumWriteBytes,
			"The result would be %d bytes, over the write limit of %d bytes; make smaller edits.", size, s.limits.MaximumWriteBytes).
			WithPath(p.String()).With("size", size)
	}
	return nil
}

func checkExpected(p pathsafe.Path, expected, current string) error {
	if expected != "" && !sameETag(expected, current) {
		return fault.New(fault.Conflict, "File '%s' changed: expectedEtag %s does not match the current etag %s.", p.String(), expected, current).
			WithPath(p.String()).With("currentEtag", current)
	}
	return nil
}

func rejected(p pathsafe.Path, reason, format string, args ...any) *fault.Error {
	return fault.New(fault.EditRejected, format, args...).WithPath(p.String()).With("reason", reason)
}

// nativeEOL returns "\r\n" or "\r" when every terminator of content is that
// one, else "".
func nativeEOL(content []byte) string {
	switch LineEnding(content) {
	case "crlf":
		return "\r\n"
	case "cr":
		return "\r"
	}
	return ""
}

// withEOL turns the bare "\n" terminators of s into eol.
func withEOL(s, eol string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\n", eol)
}

func endsWithEOL(s string) bool {
	return strings.HasSuffix(s, "\n") || strings.HasSuffix(s, "\r")
}

// ContentTypeOf returns the content type stored with a file, from its
// extension; Markdown and plain text are UTF-8.
func ContentTypeOf(name string) string {
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".md", ".markdown":
		return "text/markdown; charset=utf-8"
	case "":
		return "application/octet-stream"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
	}
	return "application/octet-stream"
}

func itoa(n int) string { return strconv.Itoa(n) }
