package mdkb_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
)

// pages follows an export's cursors to its end.
func pages(t *testing.T, s *mdkb.Service, format string, maxBytes int) []*mdkb.ExportResult {
	t.Helper()
	var out []*mdkb.ExportResult
	cursor := ""
	for range 1000 {
		r, err := s.Export(context.Background(), mdkb.ExportArgs{Format: format, Cursor: cursor, MaxBytes: maxBytes})
		if err != nil {
			t.Fatalf("%s page %d: %v", format, len(out)+1, err)
		}
		out = append(out, r)
		if r.Next == nil {
			if r.Truncated {
				t.Errorf("%s: the last page says truncated", format)
			}
			return out
		}
		if !r.Truncated {
			t.Errorf("%s page %d: more pages, but truncated is false", format, len(out))
		}
		cursor = r.Next.Cursor
	}
	t.Fatalf("%s: no end after 1,000 pages", format)
	return nil
}

func sortedLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// rapperTriples parses Turtle with rapper and returns its N-Triples.
func rapperTriples(t *testing.T, turtle string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "page.ttl")
	os.WriteFile(path, []byte(turtle), 0o644)
	out, err := exec.Command("rapper", "-q", "-i", "turtle", "-o", "ntriples", path).Output()
	if err != nil {
		t.Fatalf("rapper refused a page: %v\n%.400s", err, turtle)
	}
	return sortedLines(string(out))
}

var edgeLine = regexp.MustCompile(`^\s*(n\d+) (?:-->\|[^|]*\||->) (n\d+)`)

// TestExportsPageToTheWholeGraph: an export larger than a page continues
// with a cursor; every page is valid on its own (Turtle parsed by rapper,
// JSON-LD expanded by json-gold, DOT laid out by Graphviz, Mermaid within
// its default maxEdges and maxTextSize, every node it draws declared), and
// the pages together hold exactly the whole graph.
func TestExportsPageToTheWholeGraph(t *testing.T) {
	data := memstore.New()
	storetest.LoadDir(t, data, "kb-root/", filepath.Join("testdata", "vault"))
	data.Put(context.Background(), "kb-root/markup.md", []byte("---\ntitle: \"**Bold** `code` [[Link]] <b>x</b>\"\n---\nSee [[tar]].\n"), fileops.PutOptions{})
	s := newService(t, data, nil, nil)
	whole, err := s.Export(context.Background(), mdkb.ExportArgs{Format: "turtle"})
	if err != nil || whole.Truncated || whole.Next != nil {
		t.Fatalf("whole turtle: %v %v", err, whole)
	}
	want := rapperTriples(t, whole.Content)
	if len(want) != whole.TripleCount {
		t.Fatalf("rapper read %d triples of %d", len(want), whole.TripleCount)
	}
	const page = 3000
	for _, format := range []string{"turtle", "jsonld"} {
		ps := pages(t, s, format, page)
		if len(ps) < 3 {
			t.Errorf("%s: %d pages of %d bytes", format, len(ps), page)
		}
		var got []string
		for i, p := range ps {
			if len(p.Content) > page {
				t.Errorf("%s page %d: %d bytes", format, i+1, len(p.Content))
			}
			if format == "turtle" {
				got = append(got, rapperTriples(t, p.Content)...)
			} else {
				got = append(got, sortedLines(toNQuads(t, p.Content))...)
			}
		}
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: the pages hold %d triples, the graph %d", format, len(got), len(want))
		}
	}
	for _, format := range []string{"mermaid", "dot"} {
		full, _ := s.Export(context.Background(), mdkb.ExportArgs{Format: format})
		wantEdges := 0
		for _, l := range strings.Split(full.Content, "\n") {
			if edgeLine.MatchString(l) {
				wantEdges++
			}
		}
		ps := pages(t, s, format, 700)
		edges := 0
		for i, p := range ps {
			declared := map[string]bool{}
			for _, m := range regexp.MustCompile(`(?m)^\s*(n\d+)[\[( ]`).FindAllStringSubmatch(p.Content, -1) {
				declared[m[1]] = true
			}
			n := 0
			for _, l := range strings.Split(p.Content, "\n") {
				if m := edgeLine.FindStringSubmatch(l); m != nil {
					n++
					if !declared[m[1]] || !declared[m[2]] {
						t.Errorf("%s page %d: %q uses a node it does not declare", format, i+1, l)
					}
				}
			}
			edges += n
			if len(p.Content) > 700 || format == "mermaid" && (n > 500 || !strings.HasPrefix(p.Content, "graph LR\n")) {
				t.Errorf("%s page %d: %d bytes, %d edges", format, i+1, len(p.Content), n)
			}
			if format == "mermaid" && regexp.MustCompile("\\*\\*|`|\\[\\[|<b>").MatchString(p.Content) {
				t.Errorf("mermaid page %d carries raw Markdown or HTML:\n%s", i+1, p.Content)
			}
			if format == "dot" {
				cmd := exec.Command("dot", "-Tsvg")
				cmd.Stdin = strings.NewReader(p.Content)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("dot page %d: %v %s", i+1, err, out)
				}
			}
		}
		if edges != wantEdges || len(ps) < 2 {
			t.Errorf("%s: %d pages with %d edges, the whole has %d", format, len(ps), edges, wantEdges)
		}
	}
	// Mermaid pages stay within Mermaid's defaults however large the page.
	big := pages(t, s, "mermaid", 1<<30)
	for _, p := range big {
		if len(p.Content) > 50000 {
			t.Errorf("a mermaid page of %d characters", len(p.Content))
		}
	}
	// A cursor of another graph, format or a changed scope is refused.
	first, _ := s.Export(context.Background(), mdkb.ExportArgs{Format: "turtle", MaxBytes: page})
	for _, tc := range []struct {
		args mdkb.ExportArgs
		code fault.Code
	}{
		{mdkb.ExportArgs{Format: "dot", Cursor: first.Next.Cursor}, fault.InvalidArgument},
		{mdkb.ExportArgs{Format: "turtle", Cursor: "garbage"}, fault.InvalidArgument},
		{mdkb.ExportArgs{Format: "turtle", MaxBytes: -1}, fault.InvalidArgument},
	} {
		if _, err := s.Export(context.Background(), tc.args); fault.CodeOf(err) != tc.code {
			t.Errorf("%+v: %v, want %s", tc.args, err, tc.code)
		}
	}
	data.Put(context.Background(), "kb-root/new.md", []byte("# New\n"), fileops.PutOptions{})
	if _, err := s.Export(context.Background(), mdkb.ExportArgs{Format: "turtle", Cursor: first.Next.Cursor}); fault.CodeOf(err) != fault.Conflict {
		t.Errorf("a cursor after the scope changed: %v", err)
	}
}
