package fileops

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/filecontext-aws/filecontext/pkg/fault"
)

// WindowResult is the result of file_access_read_lines and
// file_context_read_range.
type WindowResult struct {
	Path        string      `json:"path"`
	StartLine   int         `json:"startLine"`
	EndLine     int         `json:"endLine"`
	HasMore     bool        `json:"hasMore"`
	Content     string      `json:"content"`
	TotalLines  *int        `json:"totalLines,omitempty"`
	Next        *NextWindow `json:"next,omitempty"`
	CursorStale bool        `json:"cursorStale,omitempty"`
	ETag        string      `json:"etag"`
	// endOffset is the byte offset just after the window's last line, for
	// CursorBefore; it is not part of the answer.
	endOffset int64
}

// CursorBefore returns where a shortened copy of this window continues when
// its last droppedLines lines, droppedBytes bytes of file content in all,
// are left out (a transport cutting an answer to its budget): the line and a
// cursor at its byte offset, so the rest is a ranged read.
func (r *WindowResult) CursorBefore(droppedLines int, droppedBytes int64) NextWindow {
	line := r.EndLine + 1 - droppedLines
	return NextWindow{StartLine: line, Cursor: NewCursor(r.ETag, r.endOffset-droppedBytes, line)}
}

// EndOffset is the byte offset just after the window's last line.
func (r *WindowResult) EndOffset() int64 { return r.endOffset }

// NewCursor returns the cursor of a line that starts at a byte offset of
// the object version etag, as read_range and read_lines take it.
func NewCursor(etag string, offset int64, line int) string {
	return encodeCursor(cursor{ETag: etag, Offset: offset, Line: line})
}

// NextWindow tells where the following window starts.
type NextWindow struct {
	StartLine int    `json:"startLine"`
	Cursor    string `json:"cursor"`
}

// ReadLinesArgs are the arguments of file_access_read_lines. EndLine 0 means
// the default window.
type ReadLinesArgs struct {
	FileName  string
	StartLine int
	EndLine   int
	Cursor    string // optional: a next.cursor for StartLine, from a previous result
}

// ReadRangeArgs are the arguments of file_context_read_range. StartLine 0
// means 1 (or the cursor's line); LineCount 0 means the default window.
type ReadRangeArgs struct {
	Path      string
	StartLine int
	LineCount int
	Cursor    string
}

// ReadLines returns a window of numbered rows "<n>\t<line>", each line
// verbatim with its terminator, so the text after the tab is a valid
// new_line for replace_lines.
func (s *Service) ReadLines(ctx context.Context, a ReadLinesArgs) (*WindowResult, error) {
	if a.StartLine < 1 {
		return nil, fault.New(fault.InvalidArgument, "startLine must be 1 or more (lines are numbered from 1), got %d.", a.StartLine)
	}
	count := s.limits.DefaultLineCount
	if a.EndLine != 0 {
		if a.EndLine < a.StartLine {
			return nil, fault.New(fault.InvalidArgument, "endLine (%d) must not be before startLine (%d).", a.EndLine, a.StartLine)
		}
		count = a.EndLine - a.StartLine + 1
	}
	return s.window(ctx, a.FileName, a.StartLine, count, a.Cursor, true)
}

// ReadRange returns a window of lines verbatim, unnumbered. A cursor from a
// previous result's next makes the window a ranged read at its byte offset.
func (s *Service) ReadRange(ctx context.Context, a ReadRangeArgs) (*WindowResult, error) {
	start := a.StartLine
	if a.Cursor != "" && start == 0 {
		c, err := decodeCursor(a.Cursor)
		if err != nil {
			return nil, err
		}
		start = c.Line
	}
	if start == 0 {
		start = 1
	}
	if start < 1 {
		return nil, fault.New(fault.InvalidArgument, "startLine must be 1 or more (lines are numbered from 1), got %d.", start)
	}
	count := s.limits.DefaultLineCount
	if a.LineCount != 0 {
		if a.LineCount < 1 {
			return nil, fault.New(fault.InvalidArgument, "lineCount must be 1 or more, got %d.", a.LineCount)
		}
		count = a.LineCount
	}
	return s.window(ctx, a.Path, start, count, a.Cursor, false)
}

// cursor is what an opaque cursor carries: the object's ETag and the byte
// offset of a line, so the window there is a ranged read.
type cursor struct {
	Version int    `json:"v"`
	ETag    string `json:"e"`
	Offset  int64  `json:"o"`
	Line    int    `json:"l"`
}

func encodeCursor(c cursor) string {
	c.Version = 1
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.Version != 1 || c.Offset < 0 || c.Line < 1 {
		return cursor{}, fault.New(fault.InvalidArgument, "cursor is not one this service issued; pass the cursor from a previous result's next, unchanged.")
	}
	return c, nil
}

// lineBufferSize is the read buffer of a window: memory per call is this plus
// the window's own content, whatever the size of the object.
const lineBufferSize = 64 << 10

// window is the one engine behind read_lines and read_range.
func (s *Service) window(ctx context.Context, path string, start, count int, cur string, numbered bool) (*WindowResult, error) {
	p, err := s.root.Parse(path)
	if err != nil {
		return nil, err
	}
	count = min(count, s.limits.MaximumLineCount)
	budget := s.limits.MaximumWindowBytes

	var c cursor
	if cur != "" {
		if c, err = decodeCursor(cur); err != nil {
			return nil, err
		}
		if c.Line != start {
			return nil, fault.New(fault.InvalidArgument, "cursor is for line %d, not startLine %d; omit startLine or the cursor.", c.Line, start)
		}
	}
	res := &WindowResult{Path: p.String(), StartLine: start}

	opts := GetOptions{Length: -1}
	lineNo, base := 1, int64(0)
	if cur != "" {
		// The window needs at most the budget plus two bytes: one to tell a
		// line over the budget, one to see the '\n' after a '\r'.
		opts = GetOptions{Offset: c.Offset, Length: int64(budget) + 2, IfMatch: c.ETag}
		lineNo, base = c.Line, c.Offset
	}
	obj, err := s.store.Get(ctx, p.Key(), opts)
	if cur != "" && (errors.Is(err, ErrPreconditionFailed) || err == nil && !sameETag(obj.Info.ETag, c.ETag)) {
		if err == nil {
			obj.Body.Close()
		}
		res.CursorStale = true
		lineNo, base = 1, 0
		obj, err = s.store.Get(ctx, p.Key(), GetOptions{Length: -1})
	}
	if err != nil {
		return nil, MapStoreError("read", p.String(), err)
	}
	defer obj.Body.Close()
	res.ETag = obj.Info.ETag

	lr := newLineReader(obj.Body, lineBufferSize)
	for ; lineNo < start; lineNo++ {
		if _, err := lr.next(nil, -1, false); err != nil {
			if err == io.EOF {
				break
			}
			return nil, MapStoreError("read", p.String(), err)
		}
		if lineNo&0xfff == 0 {
			if err := ctxErr(ctx); err != nil {
				return nil, err
			}
		}
	}

	var content []byte
	reachedEnd, stoppedOnBudget := false, false
	lines := 0
	// nextOffset is the stream offset of the first line not returned: a line
	// that does not fit the budget is partly consumed by the reader, so the
	// offset is taken before each line, never after a refusal.
	nextOffset := base + lr.Offset()
	for lineNo >= start && lines < count {
		nextOffset = base + lr.Offset()
		mark := len(content)
		if numbered {
			content = strconv.AppendInt(content, int64(lineNo), 10)
			content = append(content, '\t')
		}
		before := len(content)
		content, err = lr.next(content, budget, true)
		if err != nil {
			content = content[:mark]
			if err == io.EOF {
				reachedEnd = true
				break
			}
			if errors.Is(err, errLineTooLong) {
				if lines == 0 {
					return nil, fault.Limit("maximumWindowBytes", budget,
						"Line %d of '%s' is longer than the window budget of %d bytes; read its bytes with file_context_download.",
						lineNo, p.String(), budget).WithPath(p.String())
				}
				stoppedOnBudget = true
				break
			}
			return nil, MapStoreError("read", p.String(), err)
		}
		line := content[before:]
		if !IsText(line) {
			return nil, binaryErr(p.String())
		}
		budget -= len(line)
		lines++
		lineNo++
		nextOffset = base + lr.Offset()
	}
	if !reachedEnd && !stoppedOnBudget {
		eof, err := lr.atEOF()
		if err != nil {
			return nil, MapStoreError("read", p.String(), err)
		}
		reachedEnd = eof && base+lr.Offset() >= obj.Info.Size
	}
	if lineNo < start { // the file ended before startLine
		reachedEnd = true
	}
	res.Content = string(content)
	res.EndLine = start + lines - 1
	res.endOffset = nextOffset
	if reachedEnd {
		total := lineNo - 1
		res.TotalLines = &total
	} else {
		res.HasMore = true
		res.Next = &NextWindow{StartLine: lineNo, Cursor: encodeCursor(cursor{ETag: obj.Info.ETag, Offset: nextOffset, Line: lineNo})}
	}
	return res, nil
}
