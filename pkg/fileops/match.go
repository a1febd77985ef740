package fileops

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// matcher finds the lines of a text that a regular expression matches, by the
// line rule: each line is matched without its terminator.
//
// Most patterns require one of a few literal strings in every match. The
// matcher extracts them from the parsed pattern and searches the whole text
// for them first with bytes.Index, running the regular expression only on the
// lines that contain one. For a case-insensitive pattern the search runs over
// an ASCII-lowered copy; literal characters whose case folding leaves ASCII
// (k → K, the Kelvin sign; s → ſ) or that are not ASCII split the literal, so
// the prefilter never rejects a line the expression would match.
type matcher struct {
	re   *regexp.Regexp
	lits [][]byte // any-of literals, nil when there is no prefilter
	fold bool     // lits are ASCII-lowered; search a lowered copy
	// whole holds the pattern's literals, whole, when the pattern is
	// nothing else (a literal or an alternation of them): a line is then
	// decided by searching it for them, without running the expression.
	// Case-insensitive literals must be ASCII and the line too, where ASCII
	// lowering is exactly case folding (no ſ, no Kelvin sign).
	whole [][]byte
}

// maxPrefilterLiterals bounds the alternatives searched one by one.
const maxPrefilterLiterals = 16

func newMatcher(re *regexp.Regexp) *matcher {
	m := &matcher{re: re}
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return m
	}
	simple := parsed.Simplify()
	lits, ok := requiredLiterals(simple)
	if !ok || len(lits) == 0 || len(lits) > maxPrefilterLiterals {
		return m
	}
	for _, l := range lits {
		if l.fold {
			m.fold = true
		}
	}
	exact := onlyLiterals(simple)
	var whole [][]byte
	for _, l := range lits {
		b := prefilterBytes(l, m.fold)
		if len(b) == 0 || bytes.ContainsAny(b, "\r\n") {
			return &matcher{re: re}
		}
		m.lits = append(m.lits, b)
		w := []byte(string(l.runes))
		if m.fold {
			if l.fold != m.fold || !isASCII(w) {
				exact = false
			}
			lowerInto(w, w)
		}
		whole = append(whole, w)
	}
	if exact {
		m.whole = whole
	}
	return m
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// decide reports whether the line text[start:end] matches: by the whole
// literals where they decide it, else by the expression.
func (m *matcher) decide(text, hay []byte, start, end int) bool {
	line := text[start:end]
	if m.whole == nil || m.fold && !isASCII(line) {
		return m.re.Match(line)
	}
	for _, w := range m.whole {
		if bytes.Contains(hay[start:end], w) {
			return true
		}
	}
	return false
}

// onlyLiterals reports whether a pattern is a literal or an alternation of
// literals, captures aside.
func onlyLiterals(re *syntax.Regexp) bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	switch re.Op {
	case syntax.OpLiteral:
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			for sub.Op == syntax.OpCapture {
				sub = sub.Sub[0]
			}
			if sub.Op != syntax.OpLiteral {
				return false
			}
		}
		return true
	}
	return false
}

type literal struct {
	runes []rune
	fold  bool
}

// requiredLiterals returns literals one of which occurs in every match.
func requiredLiterals(re *syntax.Regexp) ([]literal, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []literal{{re.Rune, re.Flags&syntax.FoldCase != 0}}, true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []literal
		bestLen := 0
		for _, sub := range re.Sub {
			lits, ok := requiredLiterals(sub)
			if !ok {
				continue
			}
			if l := shortest(lits); l > bestLen {
				best, bestLen = lits, l
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var all []literal
		for _, sub := range re.Sub {
			lits, ok := requiredLiterals(sub)
			if !ok {
				return nil, false
			}
			all = append(all, lits...)
		}
		return all, true
	}
	return nil, false
}

func shortest(lits []literal) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l.runes) < n {
			n = len(l.runes)
		}
	}
	return n
}

// prefilterBytes turns a literal into the bytes to search for: itself when
// not folding; when folding, its longest run of characters whose every case
// variant is ASCII, lowered.
func prefilterBytes(l literal, fold bool) []byte {
	if !fold {
		return []byte(string(l.runes))
	}
	var best, cur []byte
	for _, r := range l.runes {
		if !l.fold && r >= utf8.RuneSelf {
			// A case-sensitive non-ASCII rune is unchanged by ASCII lowering.
			cur = utf8.AppendRune(cur, r)
		} else if asciiFoldOnly(r) {
			cur = append(cur, lowerASCII(byte(r)))
		} else {
			cur = nil
		}
		if len(cur) > len(best) {
			best = append(best[:0], cur...)
		}
	}
	return best
}

// asciiFoldOnly reports whether r and all its case variants are ASCII.
func asciiFoldOnly(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// lowerInto writes the ASCII-lowered src into dst (len(dst) >= len(src)),
// eight bytes at a time.
func lowerInto(dst, src []byte) {
	const ones = 0x0101010101010101
	i := 0
	for ; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		h := w & (0x7f * ones)
		upper := (h + (0x80-'A')*ones) &^ (h + (0x80-'Z'-1)*ones) &^ w & (0x80 * ones)
		binary.LittleEndian.PutUint64(dst[i:], w|upper>>2)
	}
	for ; i < len(src); i++ {
		dst[i] = lowerASCII(src[i])
	}
}

// lineMatch is one matched line: its number and byte range in the text
// (terminator included).
type lineMatch struct {
	number     int
	start, end int
	termLen    int
}

// scan calls fn for each matching line in order until fn returns false.
// scratch is reused for the lowered copy. check is called now and then and
// stops the scan with its error.
func (m *matcher) scan(text []byte, scratch *[]byte, check func() error, fn func(lineMatch) bool) error {
	if m.lits == nil {
		return m.scanAll(text, check, fn)
	}
	hay := text
	if m.fold {
		if cap(*scratch) < len(text) {
			*scratch = make([]byte, len(text))
		}
		hay = (*scratch)[:len(text)]
		lowerInto(hay, text)
	}
	next := make([]int, len(m.lits)) // next hit of each literal at or after pos, len(text) if none
	for i := range next {
		next[i] = -1
	}
	eol := newEOLFinder(text)
	pos, lineNo := 0, 1
	for n := 0; pos < len(text); n++ {
		hit := len(text)
		for i, lit := range m.lits {
			if next[i] < pos {
				next[i] = indexFrom2(hay, pos, lit)
			}
			hit = min(hit, next[i])
		}
		if hit == len(text) {
			return nil
		}
		// The line starts after the last terminator before the hit: walk
		// back over the one line rather than searching the whole gap.
		start := hit
		for start > pos && text[start-1] != '\n' && text[start-1] != '\r' {
			start--
		}
		lineNo += countTerminators(text[pos:start])
		idx, size := eol.next(start)
		end := idx + size
		if m.decide(text, hay, start, idx) {
			if !fn(lineMatch{number: lineNo, start: start, end: end, termLen: size}) {
				return nil
			}
		}
		lineNo++
		pos = end
		if n&0xff == 0xff {
			if err := check(); err != nil {
				return err
			}
		}
	}
	return nil
}

func indexFrom2(b []byte, pos int, lit []byte) int {
	if i := bytes.Index(b[pos:], lit); i >= 0 {
		return pos + i
	}
	return len(b)
}

// countTerminators counts the line terminators in whole lines.
func countTerminators(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return bytes.Count(b, []byte{'\n'}) + bytes.Count(b, []byte{'\r'}) - bytes.Count(b, []byte("\r\n"))
}

// scanAll matches every line.
func (m *matcher) scanAll(text []byte, check func() error, fn func(lineMatch) bool) error {
	var err error
	forEachLine(text, func(n, start, end, termLen int) bool {
		if n&0x3ff == 0 {
			if err = check(); err != nil {
				return false
			}
		}
		if m.re.Match(text[start : end-termLen]) {
			return fn(lineMatch{number: n, start: start, end: end, termLen: termLen})
		}
		return true
	})
	return err
}
