package fileops

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestSplitLinesVectors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\nb\n", []string{"a\n", "b\n"}},
		{"a\r\nb\nc\r", []string{"a\r\n", "b\n", "c\r"}},
		{"\r\r\n", []string{"\r", "\r\n"}},
		{"\n\n", []string{"\n", "\n"}},
		{"\r", []string{"\r"}},
		{"a\n\rb", []string{"a\n", "\r", "b"}},
		{"x\r\r\r\n\n", []string{"x\r", "\r", "\r\n", "\n"}},
		{"日本\r\n😀", []string{"日本\r\n", "😀"}},
	} {
		got := SplitLines([]byte(tc.in))
		if len(got) != len(tc.want) {
			t.Errorf("SplitLines(%q) = %q, want %q", tc.in, got, tc.want)
			continue
		}
		for i := range got {
			if string(got[i]) != tc.want[i] {
				t.Errorf("SplitLines(%q)[%d] = %q, want %q", tc.in, i, got[i], tc.want[i])
			}
		}
		if n := CountLines([]byte(tc.in)); n != len(tc.want) {
			t.Errorf("CountLines(%q) = %d, want %d", tc.in, n, len(tc.want))
		}
		for bufSize := 2; bufSize <= 5; bufSize++ {
			if got := readAllLines(t, iotest.OneByteReader(strings.NewReader(tc.in)), bufSize); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("lineReader(%q, buf %d) = %q, want %q", tc.in, bufSize, got, tc.want)
			}
		}
	}
}

func readAllLines(t testing.TB, r io.Reader, bufSize int) []string {
	lr := newLineReader(r, bufSize)
	var out []string
	for {
		line, err := lr.next(nil, -1, true)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(line))
	}
}

func TestLineReaderBoundaries(t *testing.T) {
	// A '\r' at the end of one read and the '\n' at the start of the next
	// are one terminator; a lone '\r' at a buffer edge is a terminator.
	for _, tc := range []struct {
		name   string
		chunks []string
		want   []string
	}{
		{"CRLF split across reads", []string{"ab\r", "\ncd"}, []string{"ab\r\n", "cd"}},
		{"lone CR at a read boundary", []string{"ab\r", "cd"}, []string{"ab\r", "cd"}},
		{"CR as the last byte", []string{"ab", "\r"}, []string{"ab\r"}},
		{"emoji split across reads", []string{"x\xf0\x9f", "\x98\x80\n", "y"}, []string{"x😀\n", "y"}},
		{"two-byte character split", []string{"\xc3", "\xa9\r", "\n"}, []string{"é\r\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for bufSize := 2; bufSize <= 8; bufSize++ {
				got := readAllLines(t, &chunkReader{chunks: append([]string(nil), tc.chunks...)}, bufSize)
				if strings.Join(got, "|") != strings.Join(tc.want, "|") {
					t.Fatalf("buf %d: %q, want %q", bufSize, got, tc.want)
				}
			}
		})
	}
}

type chunkReader struct{ chunks []string }

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	c.chunks[0] = c.chunks[0][n:]
	if c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

func TestLineReaderBudgetDoesNotBufferTheLine(t *testing.T) {
	// An endless line: the reader must stop at the budget.
	endless := &countingZeroReader{}
	lr := newLineReader(endless, 64)
	_, err := lr.next(nil, 1000, true)
	if err != errLineTooLong {
		t.Fatalf("err = %v", err)
	}
	if endless.n > 1000+64 {
		t.Errorf("read %d bytes of the line for a budget of 1000", endless.n)
	}
	// Lines skipped without keeping them have no budget.
	lr = newLineReader(strings.NewReader(strings.Repeat("x", 5000)+"\nok\n"), 16)
	if _, err := lr.next(nil, -1, false); err != nil {
		t.Fatal(err)
	}
	if line, err := lr.next(nil, 10, true); err != nil || string(line) != "ok\n" || lr.Offset() != 5004 {
		t.Fatalf("after skipping: %q %v offset %d", line, err, lr.Offset())
	}
	if eof, _ := lr.atEOF(); !eof {
		t.Error("not at EOF")
	}
	// A read error surfaces after the buffered lines.
	lr = newLineReader(iotest.TimeoutReader(strings.NewReader("a\nb")), 16)
	if line, err := lr.next(nil, -1, true); err != nil || string(line) != "a\n" {
		t.Fatalf("first line %q %v", line, err)
	}
	if _, err := lr.next(nil, -1, true); err == nil || err == io.EOF {
		t.Errorf("read error lost: %v", err)
	}
}

type countingZeroReader struct{ n int }

func (z *countingZeroReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'z'
	}
	z.n += len(p)
	return len(p), nil
}

func TestLineEnding(t *testing.T) {
	for in, want := range map[string]string{"": "none", "a": "none", "a\n": "lf", "a\r\n": "crlf", "a\r": "cr", "a\r\nb\n": "mixed", "a\rb\n": "mixed"} {
		if got := LineEnding([]byte(in)); got != want {
			t.Errorf("LineEnding(%q) = %s, want %s", in, got, want)
		}
	}
}

func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"a\r\nb\nc\r", "\r\r\n", "", "\n", "x\r", "é\r\n😀"} {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, buf uint8) {
		lines := SplitLines([]byte(s))
		var joined bytes.Buffer
		for _, l := range lines {
			joined.Write(l)
			if len(l) == 0 {
				t.Fatal("empty line")
			}
		}
		if joined.String() != s {
			t.Fatalf("lines do not concatenate back: %q", lines)
		}
		if CountLines([]byte(s)) != len(lines) {
			t.Fatalf("CountLines = %d, SplitLines = %d", CountLines([]byte(s)), len(lines))
		}
		got := readAllLines(t, iotest.HalfReader(strings.NewReader(s)), int(buf%16)+2)
		if len(got) != len(lines) {
			t.Fatalf("lineReader = %q, SplitLines = %q", got, lines)
		}
		for i := range got {
			if got[i] != string(lines[i]) {
				t.Fatalf("line %d: %q vs %q", i, got[i], lines[i])
			}
		}
	})
}
