package mdkb

import (
	"bytes"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	meta "github.com/yuin/goldmark-meta"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// bodyCap bounds the body text kept per document for search.
const bodyCap = 16 << 10

// DocInfo is what one Markdown file contributes, parsed once per ETag.
// Links are resolved to logical paths; edges to other documents are made
// when the graph is assembled, against the documents then in scope.
type DocInfo struct {
	Path          string   `json:"path"`
	ETag          string   `json:"etag"`
	Title         string   `json:"title"`
	TitleFrom     string   `json:"titleFrom,omitempty"` // frontMatter, heading (a # heading), subheading (## or deeper) or fileName
	Description   string   `json:"description,omitempty"`
	Keywords      []string `json:"keywords,omitempty"`
	About         []string `json:"about,omitempty"`
	Authors       []string `json:"authors,omitempty"`
	DatePublished string   `json:"datePublished,omitempty"`
	DateModified  string   `json:"dateModified,omitempty"`
	Groups        []string `json:"groups,omitempty"`
	Related       []string `json:"related,omitempty"`
	NextSteps     []string `json:"nextSteps,omitempty"`
	Entities      []Entity `json:"entities,omitempty"`
	Edges         []Edge   `json:"edges,omitempty"`
	Links         []string `json:"links,omitempty"`     // logical paths of linked .md files
	LinkTexts     []string `json:"linkTexts,omitempty"` // the text of each of Links
	WikiLinks     []string `json:"wikiLinks,omitempty"` // [[targets]], anchors, block ids, aliases and ".md" removed
	WikiTexts     []string `json:"wikiTexts,omitempty"` // the text shown for each of WikiLinks (its alias, else what is inside [[ ]])
	Aliases       []string `json:"aliases,omitempty"`   // front-matter aliases: more names for wiki links
	// Body is prose to index for search when the document is not parsed
	// by Parse (which counts the words of its first bodyCap bytes into
	// bodyTerms and leaves Body empty). Bodies are not kept in snapshots.
	Body     string            `json:"body,omitempty"`
	Warnings []string          `json:"warnings,omitempty"`
	Extra    map[string]string `json:"extra,omitempty"`

	bodyTerms *bodyTerms
}

// Entity is a graph_entities item.
type Entity struct {
	Name        string `json:"name"`
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
}

// Edge is a graph_edges item: subject (default: the document), predicate,
// object (a document title or path, or an entity name).
type Edge struct {
	Subject   string `json:"subject,omitempty"`
	Predicate string `json:"predicate"`
	Object    string `json:"object"`
}

var md = goldmark.New(goldmark.WithExtensions(meta.Meta))

var wikiLink = regexp.MustCompile(`\[\[([^\[\]\n]{1,400})\]\]`)

// wikiTarget reduces the inside of [[...]] to the note it names, as
// Obsidian reads it: "Note#Heading|alias", "Note^block" and "Note.md" all
// name "Note"; "folder/Note" keeps its folder.
func wikiTarget(inner string) string {
	t, _, _ := strings.Cut(inner, "|")
	if i := strings.IndexAny(t, "#^"); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimSpace(t)
	if strings.HasSuffix(strings.ToLower(t), ".md") {
		t = strings.TrimSpace(t[:len(t)-3])
	}
	return t
}

// Parse reads one Markdown document. It never fails: malformed front matter
// leaves the document without metadata and adds a warning.
func Parse(logicalPath, etag string, src []byte) *DocInfo {
	d := &DocInfo{Path: logicalPath, ETag: etag}
	src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	ctx := parser.NewContext()
	doc := md.Parser().Parse(text.NewReader(src), parser.WithContext(ctx))
	fm, err := meta.TryGet(ctx)
	if err != nil {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: the front matter is not valid YAML (%v); the document is loaded without it", logicalPath, firstLine(err.Error())))
		fm = nil
	}
	d.applyFrontMatter(fm)

	// para and linkable (the paragraph without code spans) are reused
	// from paragraph to paragraph.
	var body strings.Builder
	body.Grow(min(len(src), bodyCap) + 256)
	var para, linkable bytes.Buffer
	heading, headingLevel := "", 0
	flush := func() {
		for _, m := range wikiLink.FindAllSubmatch(linkable.Bytes(), -1) {
			if target := wikiTarget(string(m[1])); target != "" {
				d.WikiLinks = append(d.WikiLinks, target)
				d.WikiTexts = append(d.WikiTexts, wikiText(string(m[1])))
			}
		}
		linkable.Reset()
		if body.Len() < bodyCap {
			body.Write(para.Bytes())
			body.WriteByte('\n')
		}
		para.Reset()
	}
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n := n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock, *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		case *ast.Heading:
			if !entering {
				if heading == "" && n.Level >= 1 {
					heading, headingLevel = strings.TrimSpace(para.String()), n.Level
				}
				flush()
			}
		case *ast.Paragraph, *ast.TextBlock:
			if !entering {
				flush()
			}
		case *ast.Link:
			if entering {
				d.addLink(string(n.Destination), linkText(n, src))
			}
		case *ast.Text:
			if entering {
				para.Write(n.Segment.Value(src))
				linkable.Write(n.Segment.Value(src))
				if n.SoftLineBreak() || n.HardLineBreak() {
					para.WriteByte(' ')
					linkable.WriteByte(' ')
				}
			}
		case *ast.String:
			if entering {
				para.Write(n.Value)
				linkable.Write(n.Value)
			}
		case *ast.CodeSpan:
			if entering {
				for c := n.FirstChild(); c != nil; c = c.NextSibling() {
					if t, ok := c.(*ast.Text); ok {
						para.Write(t.Segment.Value(src))
					}
				}
				return ast.WalkSkipChildren, nil
			}
		}
		return ast.WalkContinue, nil
	})
	flush()
	lower, _ := cut(strings.ToLower(body.String()), bodyCap)
	d.bodyTerms = termsOf(lower)
	switch {
	case d.Title != "":
		d.TitleFrom = "frontMatter"
	case heading != "" && headingLevel == 1:
		d.Title, d.TitleFrom = heading, "heading"
	case heading != "":
		d.Title, d.TitleFrom = heading, "subheading"
	default:
		base := path.Base(logicalPath)
		d.Title, d.TitleFrom = strings.TrimSuffix(base, path.Ext(base)), "fileName"
	}
	d.Links, d.LinkTexts = dedupeWithTexts(d.Links, d.LinkTexts)
	d.WikiLinks, d.WikiTexts = dedupeWithTexts(d.WikiLinks, d.WikiTexts)
	return d
}

// dedupeWithTexts is dedupe for links and their texts side by side: each
// link once, sorted, with the text of its first occurrence.
func dedupeWithTexts(links, texts []string) ([]string, []string) {
	if len(links) == 0 {
		return nil, nil
	}
	first := map[string]string{}
	for i, l := range links {
		if _, ok := first[l]; !ok {
			first[l] = texts[i]
		}
	}
	out := dedupe(links)
	outTexts := make([]string, len(out))
	for i, l := range out {
		outTexts[i] = first[l]
	}
	return out, outTexts
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// addLink keeps links to other Markdown files, resolved against the
// document's directory; anchors and queries are dropped, URLs and links that
// leave the root are ignored.
func (d *DocInfo) addLink(dest, text string) {
	if dest == "" || strings.HasPrefix(dest, "#") || strings.Contains(dest, "://") || strings.HasPrefix(dest, "mailto:") || strings.HasPrefix(dest, "/") {
		return
	}
	if i := strings.IndexAny(dest, "#?"); i >= 0 {
		dest = dest[:i]
	}
	if u, err := url.PathUnescape(dest); err == nil {
		dest = u
	}
	if !strings.EqualFold(path.Ext(dest), ".md") {
		return
	}
	target := path.Join(path.Dir(d.Path), dest)
	if target == ".." || strings.HasPrefix(target, "../") || target == "." {
		return
	}
	d.Links = append(d.Links, target)
	d.LinkTexts = append(d.LinkTexts, text)
}

// maxLinkText bounds the text kept for one link.
const maxLinkText = 200

// linkText is the plain text of a link's label.
func linkText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && c != n {
			switch t := c.(type) {
			case *ast.Text:
				b.Write(t.Segment.Value(src))
			case *ast.String:
				b.Write(t.Value)
			}
		}
		return ast.WalkContinue, nil
	})
	text, _ := cut(strings.TrimSpace(b.String()), maxLinkText)
	return text
}

// wikiText is what a wiki link shows: its alias, else its inside.
func wikiText(inner string) string {
	if _, alias, ok := strings.Cut(inner, "|"); ok && strings.TrimSpace(alias) != "" {
		inner = alias
	}
	text, _ := cut(strings.TrimSpace(inner), maxLinkText)
	return text
}

// applyFrontMatter reads the markdown-ld-kb keys.
func (d *DocInfo) applyFrontMatter(fm map[string]any) {
	if fm == nil {
		return
	}
	get := func(keys ...string) any {
		for _, k := range keys {
			if v, ok := fm[k]; ok {
				return v
			}
		}
		return nil
	}
	d.Title = str(get("title", "name"))
	d.Description = str(get("summary", "description"))
	d.Keywords = append(list(get("tags")), list(get("keywords"))...)
	d.About = list(get("about"))
	d.Authors = list(get("author", "authors"))
	d.DatePublished = str(get("date_published", "datePublished", "date"))
	d.DateModified = str(get("date_modified", "dateModified", "updated"))
	d.Aliases = list(get("aliases", "alias"))
	d.Groups = list(get("graph_groups"))
	d.Related = list(get("graph_related"))
	d.NextSteps = list(get("graph_next_steps"))
	if raw, ok := get("graph_entities").([]any); ok {
		for _, item := range raw {
			switch v := item.(type) {
			case string:
				d.Entities = append(d.Entities, Entity{Name: strings.TrimSpace(v)})
			default:
				m := mapOf(v)
				if name := str(m["name"]); name != "" {
					d.Entities = append(d.Entities, Entity{Name: name, Type: str(m["type"]), Description: str(m["description"])})
				}
			}
		}
	}
	if raw, ok := get("graph_edges").([]any); ok {
		for _, item := range raw {
			m := mapOf(item)
			e := Edge{Subject: str(m["subject"]), Predicate: str(m["predicate"]), Object: str(m["object"])}
			if e.Predicate != "" && e.Object != "" {
				d.Edges = append(d.Edges, e)
			} else {
				d.Warnings = append(d.Warnings, fmt.Sprintf("%s: a graph_edges item needs predicate and object", d.Path))
			}
		}
	}
	if _, ok := fm["@context"]; ok {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: @context in front matter is ignored; contexts are never fetched", d.Path))
	}
}

// str renders a scalar front-matter value as a string.
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(x)
	case []any, map[any]any, map[string]any:
		m := mapOf(x)
		if n := str(m["name"]); n != "" {
			return n
		}
		return ""
	default:
		return strings.TrimSpace(fmt.Sprint(x))
	}
}

// list renders a scalar, a comma-separated string or a list as strings.
func list(v any) []string {
	var out []string
	switch x := v.(type) {
	case nil:
	case []any:
		for _, item := range x {
			if s := str(item); s != "" {
				out = append(out, s)
			}
		}
	case string:
		for _, s := range strings.Split(x, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	default:
		if s := str(x); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func mapOf(v any) map[string]any {
	out := map[string]any{}
	switch m := v.(type) {
	case map[string]any:
		return m
	case map[any]any:
		for k, val := range m {
			out[fmt.Sprint(k)] = val
		}
	}
	return out
}

// dedupe returns the distinct values of s, sorted.
func dedupe(s []string) []string {
	out := dedupeWords(s)
	sort.Strings(out)
	return out
}
