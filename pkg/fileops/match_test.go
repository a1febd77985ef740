package fileops

import (
	"regexp"
	"strings"
	"testing"
)

// naive matches every line by the line rule, the reference for matcher.
func naive(re *regexp.Regexp, text []byte) []int {
	var out []int
	for i, l := range SplitLines(text) {
		if re.Match(trimEOL(l)) {
			out = append(out, i+1)
		}
	}
	return out
}

func scanned(t testing.TB, m *matcher, text []byte) []int {
	var out []int
	var scratch []byte
	err := m.scan(text, &scratch, func() error { return nil }, func(lm lineMatch) bool {
		out = append(out, lm.number)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var matchTexts = []string{
	"alpha\r\nbeta match\r\ngamma\nMATCH\rmatch\n",
	"the Kelvin sign \u212a is a k; the long s \u017f is an s\nKK\nss\n",
	"ERROR one\nwarn two\nError three\r\nfoo\rbar\r\n\r\nbaz ERROR",
	"no terminator at all ERROR",
	"",
	"\n\n\r\r\n",
	"Straße STRASSE strasse\nÉcole école\n",
	"REFUSED\nrefu\u017fed\nrefused by the \u212aelvin school\nSCHOOL\n",
}

var matchPatterns = []string{
	"match$", "^match", "(?i)match", "error|warn", "(?i)error|warn", "(?i)k", "(?i)s", "(?i)ss", "kk",
	"(?i)école", "école", "b[a-z]r", "foo|bar|baz", "(?i)(foo)+", "x{0}", "^$", "a*", ".", "(?i)straße",
	"(?i)ERROR.*three", `\bwarn\b`, "(alpha|gamma)\r?$", "E(RR|rr)OR",
	"(?i)warning|timeoutexception|refused", "(?i)refused|school", "(?i:error)|Warn", "(?i)(error|three)", "(?i)kelvin|school", "beta|gamma", "(?i)strasse|école",
}

// TestLiteralPatternsSkipTheExpression: a pattern that is only literals
// (ASCII when case-insensitive) is decided by the literal search alone.
func TestLiteralPatternsSkipTheExpression(t *testing.T) {
	for p, exact := range map[string]bool{
		"(?i)warning|timeoutexception|refused": true, "beta|gamma": true, "(?i)(error|three)": true, "TimeoutException": true,
		"(?i)kelvin|school": true, "(?i:error)|Warn": false, "(?i)strasse|école": false, "E(RR|rr)OR": false, "match$": false,
	} {
		if m := newMatcher(regexp.MustCompile(p)); (m.whole != nil) != exact {
			t.Errorf("%q: decided by literals = %v, want %v (literals %q, fold %v)", p, m.whole != nil, exact, m.lits, m.fold)
		}
	}
}

func TestMatcherAgreesWithPerLineMatching(t *testing.T) {
	for _, p := range matchPatterns {
		re := regexp.MustCompile(p)
		m := newMatcher(re)
		for _, text := range matchTexts {
			want, got := naive(re, []byte(text)), scanned(t, m, []byte(text))
			if fmtInts(got) != fmtInts(want) {
				t.Errorf("pattern %q on %q: matcher %v, per line %v (prefilter %q fold %v)", p, text, got, want, m.lits, m.fold)
			}
		}
	}
}

func fmtInts(v []int) string {
	var b strings.Builder
	for _, n := range v {
		b.WriteString(" ")
		b.WriteString(itoa(n))
	}
	return b.String()
}

func TestMatcherPrefilters(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		lits    []string
		fold    bool
	}{
		{"func main", []string{"func main"}, false},
		{"(?i)Func Main", []string{"func main"}, true},
		{"(?i)error|warning", []string{"error", "warning"}, true},
		{"(?i)task", []string{"ta"}, true},    // k folds to the Kelvin sign
		{"(?i)ss", nil, false},                // nothing ASCII-only left
		{"a+b+", []string{"a"}, false},        // the first required literal
		{"(?i)école", []string{"cole"}, true}, // é is not ASCII
		{"x*", nil, false},
		{"[ab]c", []string{"c"}, false},
		{"(a|b*)", nil, false},
		{"foo(bar){2,3}", []string{"foo"}, false},
	} {
		m := newMatcher(regexp.MustCompile(tc.pattern))
		var got []string
		for _, l := range m.lits {
			got = append(got, string(l))
		}
		if strings.Join(got, "|") != strings.Join(tc.lits, "|") || (tc.lits != nil && m.fold != tc.fold) {
			t.Errorf("%q: literals %q fold %v, want %q fold %v", tc.pattern, got, m.fold, tc.lits, tc.fold)
		}
	}
}

func TestLowerInto(t *testing.T) {
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	all = append(all, "Hello, WORLD! @[`{ AZaz ÄÖ"...)
	dst := make([]byte, len(all))
	lowerInto(dst, all)
	for i, c := range all {
		if dst[i] != lowerASCII(c) {
			t.Fatalf("byte %#x lowered to %#x", c, dst[i])
		}
	}
}

func FuzzMatcher(f *testing.F) {
	for i, p := range matchPatterns {
		f.Add(p, matchTexts[i%len(matchTexts)])
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		want, got := naive(re, []byte(text)), scanned(t, newMatcher(re), []byte(text))
		if fmtInts(want) != fmtInts(got) {
			t.Fatalf("pattern %q on %q: matcher %v, per line %v", pattern, text, got, want)
		}
	})
}
