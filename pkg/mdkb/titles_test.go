package mdkb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
)

// TestTitlesSayWhereTheyCameFrom: a title taken from a ## heading is
// marked as such, and a title shared by several documents is shown with
// its path in search results and in the Mermaid and DOT exports.
func TestTitlesSayWhereTheyCameFrom(t *testing.T) {
	ctx := context.Background()
	data := memstore.New()
	for name, body := range map[string]string{
		"Accepted file formats.md": "## Embed files\n\nPNG and PDF can be embedded.\n",
		"plugins/a/Example.md":     "# Example\n\nThe first example of a plugin.\n",
		"plugins/b/Example.md":     "---\ntitle: Example\n---\nThe second example of a plugin.\n",
		"notes/plain.md":           "no heading at all, just an example.\n",
	} {
		data.Put(ctx, "kb-root/"+name, []byte(body), fileops.PutOptions{})
	}
	s := newService(t, data, nil, nil)
	res, err := s.Search(ctx, mdkb.SearchArgs{Query: "example", MaxResults: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]mdkb.Match{}
	for _, m := range res.Matches {
		got[m.Path] = m
	}
	for path, want := range map[string][2]string{
		"plugins/a/Example.md": {"Example (plugins/a/Example.md)", "heading"},
		"plugins/b/Example.md": {"Example (plugins/b/Example.md)", "frontMatter"},
		"notes/plain.md":       {"plain", "fileName"},
	} {
		if m := got[path]; m.Label != want[0] || m.TitleFrom != want[1] {
			t.Errorf("%s: label %q from %q, want %q from %q", path, m.Label, m.TitleFrom, want[0], want[1])
		}
	}
	res, err = s.Search(ctx, mdkb.SearchArgs{Query: "embed files"})
	if err != nil || len(res.Matches) == 0 || res.Matches[0].Path != "Accepted file formats.md" || res.Matches[0].TitleFrom != "subheading" || res.Matches[0].Label != "Embed files" {
		t.Errorf("a ## heading as title: %+v %v", res.Matches, err)
	}
	for _, format := range []string{"mermaid", "dot"} {
		exp, err := s.Export(ctx, mdkb.ExportArgs{Format: format})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(exp.Content, "Example (plugins/a/Example.md)") || !strings.Contains(exp.Content, "Example (plugins/b/Example.md)") ||
			strings.Contains(exp.Content, "Embed files (") {
			t.Errorf("%s: %s", format, exp.Content)
		}
	}
}
