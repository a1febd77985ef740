package fileops

import (
	"bytes"
	"errors"
	"io"
)

// The line rule (CONTRACT §2), in one place: terminators are "\r\n" (one
// terminator), "\n" and a lone "\r"; every line keeps its terminator, so the
// lines concatenate back to the content byte for byte; content that ends in a
// terminator has no empty line after it, and empty content has no lines.

// eolFinder finds line terminators in one slice in linear time overall. It
// remembers the next '\r' and '\n' it has seen, so a text with only one kind
// of terminator is not rescanned for the other kind at every line.
type eolFinder struct {
	b      []byte
	cr, lf int // index of the next '\r' / '\n' at or after the last query, len(b) if none; -1 unknown
}

func newEOLFinder(b []byte) eolFinder { return eolFinder{b: b, cr: -1, lf: -1} }

// next returns the index of the first terminator at or after pos and its
// length (1 or 2), or (len(b), 0) when there is none. A '\r' that is the last
// byte is a lone '\r'.
func (f *eolFinder) next(pos int) (idx, size int) {
	if f.cr < pos {
		f.cr = indexFrom(f.b, pos, '\r')
	}
	if f.lf < pos {
		f.lf = indexFrom(f.b, pos, '\n')
	}
	switch {
	case f.lf < f.cr:
		return f.lf, 1
	case f.cr < len(f.b):
		if f.cr+1 < len(f.b) && f.b[f.cr+1] == '\n' {
			return f.cr, 2
		}
		return f.cr, 1
	}
	return len(f.b), 0
}

func indexFrom(b []byte, pos int, c byte) int {
	if i := bytes.IndexByte(b[pos:], c); i >= 0 {
		return pos + i
	}
	return len(b)
}

// SplitLines splits content into lines by the line rule; each line keeps its
// terminator and the lines share content's memory.
func SplitLines(content []byte) [][]byte {
	var lines [][]byte
	forEachLine(content, func(_, start, end, _ int) bool {
		lines = append(lines, content[start:end])
		return true
	})
	return lines
}

// CountLines returns how many lines content has by the line rule.
func CountLines(content []byte) int {
	n := bytes.Count(content, []byte{'\n'}) + bytes.Count(content, []byte{'\r'}) - bytes.Count(content, []byte("\r\n"))
	if len(content) > 0 {
		if last := content[len(content)-1]; last != '\n' && last != '\r' {
			n++
		}
	}
	return n
}

// forEachLine calls fn for every line with its 1-based number, its byte range
// (terminator included) and the terminator's length, until fn returns false.
func forEachLine(content []byte, fn func(number, start, end, termLen int) bool) {
	f := newEOLFinder(content)
	for pos, n := 0, 1; pos < len(content); n++ {
		idx, size := f.next(pos)
		end := idx + size
		if !fn(n, pos, end, size) {
			return
		}
		pos = end
	}
}

// trimEOL returns a line without its terminator.
func trimEOL(line []byte) []byte {
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
	}
	if n > 0 && line[n-1] == '\r' {
		n--
	}
	return line[:n]
}

// LineEnding classifies the terminators of content: "lf", "crlf", "cr",
// "mixed" when more than one kind occurs, "none" when there is none.
func LineEnding(content []byte) string {
	crlf := bytes.Count(content, []byte("\r\n"))
	lf := bytes.Count(content, []byte{'\n'}) - crlf
	cr := bytes.Count(content, []byte{'\r'}) - crlf
	kinds, name := 0, "none"
	for _, k := range []struct {
		n    int
		name string
	}{{lf, "lf"}, {crlf, "crlf"}, {cr, "cr"}} {
		if k.n > 0 {
			kinds++
			name = k.name
		}
	}
	if kinds > 1 {
		return "mixed"
	}
	return name
}

// errLineTooLong reports a line longer than the byte budget it was read with.
var errLineTooLong = errors.New("line longer than the byte budget")

// lineReader reads lines from a stream forward only, with a fixed buffer: it
// never seeks and never holds more of a line than the caller's budget.
type lineReader struct {
	r          io.Reader
	buf        []byte
	start, end int
	eof        bool
	err        error // a read error other than io.EOF, returned once the buffer is drained
	consumed   int64 // bytes of the stream consumed by returned lines
	fnd        eolFinder
}

func newLineReader(r io.Reader, bufSize int) *lineReader {
	lr := &lineReader{r: r, buf: make([]byte, bufSize)}
	lr.fnd = newEOLFinder(nil)
	return lr
}

// Offset returns the stream offset of the next line.
func (lr *lineReader) Offset() int64 { return lr.consumed }

// fill moves the unread bytes to the front of the buffer and reads more.
func (lr *lineReader) fill() {
	if lr.start > 0 {
		lr.end = copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start = 0
	}
	for !lr.eof && lr.end < len(lr.buf) {
		n, err := lr.r.Read(lr.buf[lr.end:])
		lr.end += n
		if err != nil {
			lr.eof = true
			if err != io.EOF {
				lr.err = err
			}
			break
		}
		if n > 0 {
			break
		}
	}
	lr.fnd = newEOLFinder(lr.buf[:lr.end])
}

// next reads one line. With keep it appends the line (terminator included)
// to dst; without, the line is skipped and not kept. A line longer than
// limit bytes (limit < 0: no limit) fails with errLineTooLong after reading
// at most limit+1 of its bytes. At the end of the stream it returns io.EOF.
func (lr *lineReader) next(dst []byte, limit int, keep bool) ([]byte, error) {
	lineLen := 0
	for {
		if lr.start == lr.end {
			if lr.eof {
				if lr.err != nil {
					return dst, lr.err
				}
				if lineLen > 0 {
					return dst, nil
				}
				return dst, io.EOF
			}
			lr.fill()
			continue
		}
		idx, size := lr.fnd.next(lr.start)
		// A '\r' at the end of what is buffered may be the first half of "\r\n".
		crAtEdge := size == 1 && lr.buf[idx] == '\r' && idx+1 == lr.end && !lr.eof
		if size > 0 && !crAtEdge {
			n := idx + size - lr.start
			if limit >= 0 && lineLen+n > limit {
				return dst, errLineTooLong
			}
			if keep {
				dst = append(dst, lr.buf[lr.start:idx+size]...)
			}
			lr.start += n
			lr.consumed += int64(n)
			return dst, nil
		}
		n := idx - lr.start // everything before the edge '\r', or all that is buffered
		if limit >= 0 && lineLen+n > limit {
			return dst, errLineTooLong
		}
		if keep {
			dst = append(dst, lr.buf[lr.start:idx]...)
		}
		lineLen += n
		lr.start += n
		lr.consumed += int64(n)
		lr.fill()
	}
}

// atEOF reports whether no byte is left to read.
func (lr *lineReader) atEOF() (bool, error) {
	if lr.start == lr.end && !lr.eof {
		lr.fill()
	}
	return lr.start == lr.end && lr.eof, lr.err
}
