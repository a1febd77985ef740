package fileops

import (
	"regexp"
	"strings"

	"github.com/filecontext-aws/filecontext/pkg/fault"
)

// Glob is a compiled glob pattern, matched case-insensitively against a
// slash-separated relative path. The dialect: '*' matches within one
// segment, '**' across segments ("**/" also matches no directory at all, so
// "**/*.md" matches "a.md"), '?' one character other than '/', "[...]" a
// class ("[!...]" or "[^...]" negated), "{a,b}" alternatives (nestable).
// Every other character is literal.
type Glob struct{ re *regexp.Regexp }

// MaxGlobBytes is the longest glob pattern accepted, the same bound as for
// regular expressions.
const MaxGlobBytes = 1000

// CompileGlob compiles a glob pattern; "" matches everything. The pattern
// becomes an RE2 program of size linear in the pattern (a run of stars
// collapses to one "**"), and RE2 matches in time linear in name length ×
// program size, so no pattern can make matching explode.
func CompileGlob(pattern string) (*Glob, error) {
	if pattern == "" {
		return &Glob{}, nil
	}
	if len(pattern) > MaxGlobBytes {
		return nil, fault.New(fault.InvalidPattern, "globPattern is %d bytes, over the limit of %d bytes.", len(pattern), MaxGlobBytes).
			With("limit", MaxGlobBytes)
	}
	var b strings.Builder
	b.WriteString(`(?is)\A`)
	depth := 0
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			if i+1 < len(rs) && rs[i+1] == '*' {
				for i+1 < len(rs) && rs[i+1] == '*' { // "***…" is "**"
					i++
				}
				if i+1 < len(rs) && rs[i+1] == '/' {
					i++
					b.WriteString(`(?:.*/)?`)
				} else {
					b.WriteString(`.*`)
				}
			} else {
				b.WriteString(`[^/]*`)
			}
		case '?':
			b.WriteString(`[^/]`)
		case '[':
			j := i + 1
			if j < len(rs) && (rs[j] == '!' || rs[j] == '^') {
				j++
			}
			if j < len(rs) && rs[j] == ']' {
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				return nil, badGlob(pattern, "an unclosed '['")
			}
			class := rs[i+1 : j]
			b.WriteByte('[')
			if len(class) > 0 && (class[0] == '!' || class[0] == '^') {
				b.WriteByte('^')
				class = class[1:]
			}
			for _, r := range class {
				if r == '\\' || r == '[' || r == ']' {
					b.WriteByte('\\')
				}
				b.WriteRune(r)
			}
			b.WriteByte(']')
			i = j
		case '{':
			depth++
			b.WriteString(`(?:`)
		case '}':
			if depth == 0 {
				return nil, badGlob(pattern, "a '}' without '{'")
			}
			depth--
			b.WriteByte(')')
		case ',':
			if depth > 0 {
				b.WriteByte('|')
			} else {
				b.WriteByte(',')
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if depth != 0 {
		return nil, badGlob(pattern, "an unclosed '{'")
	}
	b.WriteString(`\z`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, badGlob(pattern, "an invalid character class")
	}
	return &Glob{re: re}, nil
}

// Match reports whether a relative path matches.
func (g *Glob) Match(rel string) bool { return g.re == nil || g.re.MatchString(rel) }

func badGlob(pattern, what string) error {
	return fault.New(fault.InvalidArgument, "globPattern %q has %s.", pattern, what)
}
