package pathsafe_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

func TestParseAcceptsNames(t *testing.T) {
	for _, s := range []string{
		"a.md", "docs/a.md", "notes..md", "...", "docs/.../x", ".hidden", "a/.b",
		"%2e%2e/x", "%2e%2e", "..%2f..%2fetc", "．．/x", "․․/x", // fullwidth and one-dot leaders are names
		"dir with space/file name.txt", "ünïcödé/日本.md", "😀.md", "ab:c", "1:/x", "C", "C-/x",
		"docs-other/x", "a%00b", "a+b=c&d", "....", "a/..b/c..", strings.Repeat("a", pathsafe.MaxKeyBytes),
	} {
		p, err := pathsafe.Parse(s)
		if err != nil {
			t.Errorf("Parse(%q) = %v, want accepted", s, err)
			continue
		}
		if p.String() != s || p.Key() != s || p.IsDir() {
			t.Errorf("Parse(%q) = {%q %q dir=%v}", s, p.String(), p.Key(), p.IsDir())
		}
	}
}

func TestParseRejectsEveryContractCase(t *testing.T) {
	for _, tc := range []struct{ name, path string }{
		{"empty", ""},
		{"only whitespace", "   "},
		{"leading whitespace", " a.md"},
		{"trailing whitespace", "a.md "},
		{"trailing tab", "a.md\t"},
		{"leading no-break space", "\u00a0a.md"},
		{"leading slash", "/a.md"},
		{"absolute unix", "/etc/passwd"},
		{"backslash", `a\b.md`},
		{"backslash traversal", `..\..\x`},
		{"double slash", "a//b.md"},
		{"dot segment", "./a.md"},
		{"inner dot segment", "a/./b.md"},
		{"dotdot segment", "../a.md"},
		{"inner dotdot", "a/../b.md"},
		{"trailing dotdot", "a/.."},
		{"dotdot alone", ".."},
		{"dot alone", "."},
		{"four dots then slashes", "....//x"},
		{"NUL", "a\x00b"},
		{"newline", "a\nb"},
		{"carriage return", "a\rb"},
		{"escape", "a\x1bb"},
		{"DEL", "a\x7fb"},
		{"invalid UTF-8", "a\xffb"},
		{"overlong dot", "\xc0\xae\xc0\xae/x"},
		{"overlong slash", "a\xc0\xafb"},
		{"surrogate half", "\xed\xa0\x80.md"},
		{"drive", "C:"},
		{"drive path", "C:/Windows"},
		{"drive relative", "c:notes.md"},
		{"file ending in slash", "docs/"},
		{"too long", strings.Repeat("a", pathsafe.MaxKeyBytes+1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pathsafe.Parse(tc.path)
			if fault.CodeOf(err) != fault.InvalidPath {
				t.Fatalf("Parse(%q) = %v, want invalid_path", tc.path, err)
			}
			if fault.As(err).Path != tc.path {
				t.Errorf("error path = %q, want %q", fault.As(err).Path, tc.path)
			}
		})
	}
}

func TestParseDir(t *testing.T) {
	for _, tc := range []struct {
		in, logical, key string
		root             bool
	}{
		{"", "", "", true},
		{"docs", "docs", "docs/", false},
		{"docs/", "docs", "docs/", false},
		{"a/b/", "a/b", "a/b/", false},
	} {
		p, err := pathsafe.ParseDir(tc.in)
		if err != nil {
			t.Fatalf("ParseDir(%q): %v", tc.in, err)
		}
		if p.String() != tc.logical || p.Key() != tc.key || p.IsRoot() != tc.root || !p.IsDir() {
			t.Errorf("ParseDir(%q) = {%q %q root=%v}", tc.in, p.String(), p.Key(), p.IsRoot())
		}
	}
	for _, bad := range []string{"/", "//", "docs//", "/docs", " docs", "../", "a/./", `a\`, "C:/"} {
		if _, err := pathsafe.ParseDir(bad); fault.CodeOf(err) != fault.InvalidPath {
			t.Errorf("ParseDir(%q) = %v, want invalid_path", bad, err)
		}
	}
}

func TestRootJoinCannotEscapeOrReachSiblings(t *testing.T) {
	root, err := pathsafe.NewRoot("docs")
	if err != nil {
		t.Fatal(err)
	}
	if root.Prefix() != "docs/" {
		t.Fatalf("prefix = %q", root.Prefix())
	}
	p, err := root.Parse("a.md")
	if err != nil || p.Key() != "docs/a.md" || p.String() != "a.md" {
		t.Fatalf("Parse = %v %q", err, p.Key())
	}
	for _, s := range []string{"../docs-other/x", "..", "../x"} {
		if _, err := root.Parse(s); err == nil {
			t.Errorf("%q escaped the root", s)
		}
	}
	if _, ok := root.Rel("docs-other/x"); ok {
		t.Error("a sibling prefix is under the root")
	}
	if _, ok := root.Rel("docs/"); ok {
		t.Error("the root itself is a key under the root")
	}
	if rel, ok := root.Rel("docs/sub/a.md"); !ok || rel != "sub/a.md" {
		t.Errorf("Rel = %q %v", rel, ok)
	}
	if fp, err := root.FromKey("docs/sub/a.md"); err != nil || fp.String() != "sub/a.md" {
		t.Errorf("FromKey = %v %v", fp, err)
	}
	if _, err := root.FromKey("docs-other/a.md"); err == nil {
		t.Error("FromKey accepted a key outside the root")
	}
	d, _ := root.ParseDir("")
	if d.Key() != "docs/" || !d.IsRoot() {
		t.Errorf("root dir key = %q", d.Key())
	}
	same, _ := pathsafe.NewRoot("docs/")
	if same != root {
		t.Error("docs and docs/ are different roots")
	}
	for _, bad := range []string{"/docs", "../docs", "a//b", "a\\b"} {
		if _, err := pathsafe.NewRoot(bad); err == nil {
			t.Errorf("NewRoot(%q) accepted", bad)
		}
	}
}

func TestLengthCountsTheRootPrefix(t *testing.T) {
	root, _ := pathsafe.NewRoot(strings.Repeat("r", 100))
	if _, err := root.Parse(strings.Repeat("a", pathsafe.MaxKeyBytes-101)); err != nil {
		t.Errorf("a path that fits with the prefix was refused: %v", err)
	}
	if _, err := root.Parse(strings.Repeat("a", pathsafe.MaxKeyBytes-100)); fault.CodeOf(err) != fault.InvalidPath {
		t.Errorf("a path over the limit with the prefix was accepted: %v", err)
	}
}

func TestName(t *testing.T) {
	for in, want := range map[string]string{"a.md": "a.md", "x/y/z.txt": "z.txt"} {
		p, _ := pathsafe.Parse(in)
		if p.Name() != want {
			t.Errorf("Name(%q) = %q", in, p.Name())
		}
	}
	d, _ := pathsafe.ParseDir("")
	if d.Name() != "" {
		t.Errorf("root name = %q", d.Name())
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"a.md", "../x", "a//b", "C:/x", "．．/x", "a\x00", "docs/", "\xc0\xae", "....//", " a", "a/b/c.md"} {
		f.Add(s, "")
		f.Add(s, "tenant/")
	}
	f.Fuzz(func(t *testing.T, s, prefix string) {
		root, err := pathsafe.NewRoot(prefix)
		if err != nil {
			return
		}
		for _, parse := range []func(string) (pathsafe.Path, error){root.Parse, root.ParseDir} {
			p, err := parse(s)
			if err != nil {
				if fault.CodeOf(err) != fault.InvalidPath {
					t.Fatalf("error code %v", err)
				}
				continue
			}
			l := p.String()
			if !utf8.ValidString(l) {
				t.Fatalf("accepted invalid UTF-8 %q", s)
			}
			if l != "" {
				for _, seg := range strings.Split(l, "/") {
					if seg == "" || seg == "." || seg == ".." {
						t.Fatalf("accepted segment %q in %q", seg, s)
					}
				}
			}
			for _, c := range l {
				if c < 0x20 || c == 0x7f || c == '\\' {
					t.Fatalf("accepted character %q in %q", c, s)
				}
			}
			if !strings.HasPrefix(p.Key(), root.Prefix()) || len(p.Key()) > pathsafe.MaxKeyBytes+1 {
				t.Fatalf("key %q not under prefix %q", p.Key(), root.Prefix())
			}
			again, err := parse(l)
			if p.IsDir() && l == "" {
				again, err = root.ParseDir("")
			}
			if err != nil || again != p {
				t.Fatalf("Parse(p.String()) = %v, %v; want %v", again, err, p)
			}
		}
	})
}
