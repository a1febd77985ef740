package mdkb_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/mdkb"
)

// An Obsidian-style vault: every link form, a title that must not capture
// a link meant for a file name, ambiguous names, aliases, non-Latin names,
// links in inline code, and links to nothing.
var vault = map[string]string{
	"Embed files.md":           "# Embed files\n\nHow to embed. ^block1\n",
	"Accepted file formats.md": "## Embed files\n\nFormats you can embed.\n",
	"Plugins/Templates.md":     "# Templates plugin\n",
	"Templates.md":             "# Templates (root)\n",
	"Notes/Daily.md":           "# Daily in Notes\n",
	"Archive/2024/Daily.md":    "# Daily in Archive\n",
	"Glossary.md":              "---\naliases: [Terms, Word list]\n---\n# Glossary\n",
	"Заметка.md":               "# Заметка\n",
	"Notes/Today.md":           "See [[Daily]] and [[Embed files#How to embed|embedding]].\n",
	"Links.md": "Forms: [[Embed files]], [[Embed files#Heading]], [[Embed files#Heading|alias text]], [[Embed files^block1]], " +
		"[[Embed files.md]], [[Plugins/Templates]], [[daily]], [[terms]], [[ЗАМЕТКА]], [[Nowhere]], [[Nowhere#x|y]].\n\n" +
		"In code: `[[Accepted file formats]]` is no link.\n",
}

func buildVault(t *testing.T) *mdkb.Graph {
	t.Helper()
	var docs []*mdkb.DocInfo
	for p, body := range vault {
		docs = append(docs, mdkb.Parse(p, `"e"`, []byte(body)))
	}
	return mdkb.Build(docs)
}

// mentions returns the documents a document mentions, by path.
func mentions(g *mdkb.Graph, from string) []string {
	var out []string
	src := mdkb.Base + "doc/" + from
	for _, tr := range g.Triples() {
		if tr.S == src && tr.P == mdkb.SchemaNS+"mentions" && strings.HasPrefix(tr.O.Value, mdkb.Base+"doc/") {
			out = append(out, strings.TrimPrefix(tr.O.Value, mdkb.Base+"doc/"))
		}
	}
	slices.Sort(out)
	return out
}

func TestWikiLinksResolveAsObsidianDoes(t *testing.T) {
	g := buildVault(t)
	got := mentions(g, "Links.md")
	want := []string{"Embed%20files.md", "Glossary.md", "Notes/Daily.md", "Plugins/Templates.md", "%D0%97%D0%B0%D0%BC%D0%B5%D1%82%D0%BA%D0%B0.md"}
	slices.Sort(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Links.md mentions %v, want %v", got, want)
	}
	for _, p := range got {
		if strings.Contains(p, "Accepted") {
			t.Error("a title or a link in inline code captured a link")
		}
	}
	// Same folder first.
	if got := mentions(g, "Notes/Today.md"); strings.Join(got, " ") != "Embed%20files.md Notes/Daily.md" {
		t.Errorf("Notes/Today.md mentions %v", got)
	}
	// Links are counted once per document and target: [[Nowhere]] and
	// [[Nowhere#x|y]] name one note.
	if g.Unresolved.Count != 1 || len(g.Unresolved.Examples) != 1 || !strings.Contains(strings.Join(g.Unresolved.Examples, " "), "Links.md: [[Nowhere]]") {
		t.Errorf("unresolved = %+v", g.Unresolved)
	}
}

// Different names never share an IRI; names that differ only in letter case
// or spacing are one; plain names keep their readable slug.
func TestNodeIRIsAreInjective(t *testing.T) {
	doc := mdkb.Parse("langs.md", `"e"`, []byte("---\ntitle: Languages\nauthor: C++\n"+
		"graph_entities: [C++, C#, e-mail, e mail, Cursor, \"cursor \", Installation]\n---\n# Languages\n"))
	g := mdkb.Build([]*mdkb.DocInfo{doc})
	labels := map[string][]string{}
	for _, n := range g.Nodes {
		if n.Path == "" {
			labels[n.ID] = append(labels[n.ID], n.Label)
		}
	}
	ids := map[string]string{}
	for id, ls := range labels {
		for _, l := range ls {
			ids[l] = id
		}
	}
	if ids["C++"] == ids["C#"] || ids["e-mail"] == ids["e mail"] || ids["C++"] == "" || ids["C#"] == "" {
		t.Errorf("names share an IRI: %v", ids)
	}
	if ids["Installation"] != mdkb.Base+"entity/installation" || ids["e mail"] != mdkb.Base+"entity/e-mail" {
		t.Errorf("plain names lost their readable slug: %v", ids)
	}
	if _, ok := ids["Cursor"]; !ok {
		t.Errorf("no Cursor node: %v", ids)
	}
	if len(labels[ids["Cursor"]]) != 1 {
		t.Errorf("Cursor and cursor are two nodes: %v", labels)
	}
	var person string
	for _, tr := range g.Triples() {
		if tr.P == mdkb.SchemaNS+"author" {
			person = tr.O.Value
		}
	}
	if !strings.HasPrefix(person, mdkb.Base+"person/c-") || person == mdkb.Base+"person/c" {
		t.Errorf("author C++ = %s", person)
	}
}
