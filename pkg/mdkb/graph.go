package mdkb

import (
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Node is a searchable node of the graph.
type Node struct {
	ID          string
	Label       string
	Description string
	Path        string   // documents only
	Keywords    []string // keywords (tags) and aliases
	Related     []string // labels of related nodes
	Body        string   // lowercased prose, documents only
	TitleFrom   string   // where a document's label came from (DocInfo.TitleFrom)
	// Shown is the label to show: a document's title, with its path when
	// other documents have the same title.
	Shown string
}

// Graph is the assembled graph of a scope.
type Graph struct {
	Triples   []Triple
	Nodes     []*Node // documents first, in path order, then other nodes by ID
	Documents int
	Warnings  []string
	// Links are the links between documents, by the index of the linking
	// document (the index of its node), in the order they were found.
	Links [][]DocLink
	// back is Links reversed, made on first use.
	back     [][]DocLink
	backOnce sync.Once
	indexState
	// exports are the renderings of the graph by format, made on first use.
	exports   map[string]*paged
	exportsMu sync.Mutex
	// Unresolved counts the wiki links that name no document, with up to
	// maxUnresolvedExamples of them.
	Unresolved UnresolvedLinks
}

// UnresolvedLinks summarizes the wiki links that name no document.
type UnresolvedLinks struct {
	Count    int      `json:"count"`
	Examples []string `json:"examples,omitempty"` // "path: [[target]]"
}

const maxUnresolvedExamples = 20

// DocLink is a link from one document to another: the target's index, the
// predicate's local name (mentions, related, nextStep, or a graph_edges
// word) and the link's text.
type DocLink struct {
	To        int
	Predicate string
	Text      string
}

// wikiResolver resolves wiki links the way Obsidian does: by file name
// without ".md" (or a front-matter alias), letter case ignored; a target
// with a folder ("Plugins/Templates") matches the end of a path; of several
// candidates the one in the linking note's folder wins, then the shortest
// path, then byte order. Titles never capture a link.
type wikiResolver struct {
	docs   []*DocInfo
	byName map[string][]int // lowercase file name or alias -> documents, in path order
	memo   map[[2]string]int
}

func newWikiResolver(docs []*DocInfo) *wikiResolver {
	w := &wikiResolver{docs: docs, byName: map[string][]int{}, memo: map[[2]string]int{}}
	for i, d := range docs {
		base := path.Base(d.Path)
		names := append([]string{strings.TrimSuffix(base, path.Ext(base))}, d.Aliases...)
		for _, n := range dedupe(names) {
			k := strings.ToLower(strings.TrimSpace(n))
			if k != "" && (len(w.byName[k]) == 0 || w.byName[k][len(w.byName[k])-1] != i) {
				w.byName[k] = append(w.byName[k], i)
			}
		}
	}
	return w
}

// resolve returns the index of the document a wiki link of from names, or
// -1.
func (w *wikiResolver) resolve(from *DocInfo, target string) int {
	folder := path.Dir(from.Path)
	key := [2]string{folder, target}
	if i, ok := w.memo[key]; ok {
		return i
	}
	t := strings.ToLower(target)
	var candidates []int
	if strings.Contains(t, "/") {
		for _, i := range w.byName[strings.ToLower(path.Base(t))] {
			p := strings.ToLower(strings.TrimSuffix(w.docs[i].Path, path.Ext(w.docs[i].Path)))
			if p == t || strings.HasSuffix(p, "/"+t) {
				candidates = append(candidates, i)
			}
		}
	} else {
		candidates = w.byName[t]
	}
	best := -1
	for _, i := range candidates {
		switch {
		case best < 0:
			best = i
		case (path.Dir(w.docs[i].Path) == folder) != (path.Dir(w.docs[best].Path) == folder):
			if path.Dir(w.docs[i].Path) == folder {
				best = i
			}
		case len(w.docs[i].Path) < len(w.docs[best].Path):
			best = i
		}
	}
	w.memo[key] = best
	return best
}

var datePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// Build assembles the graph of the documents, in path order. Links to
// documents outside the set, and wiki links that name no document, make no
// edge.
func Build(docs []*DocInfo) *Graph {
	sort.Slice(docs, func(i, j int) bool { return docs[i].Path < docs[j].Path })
	g := &Graph{Documents: len(docs), Links: make([][]DocLink, len(docs))}
	byPath := make(map[string]int, len(docs)) // index of a document by path
	byName := make(map[string]*DocInfo, 2*len(docs))
	iris := make([]string, len(docs))
	for i, d := range docs {
		byPath[d.Path] = i
		iris[i] = docIRI(d.Path)
	}
	// Titles first, then file names, so a title wins a clash.
	for i := len(docs) - 1; i >= 0; i-- {
		d := docs[i]
		base := path.Base(d.Path)
		byName[strings.ToLower(strings.TrimSuffix(base, path.Ext(base)))] = d
	}
	for i := len(docs) - 1; i >= 0; i-- {
		byName[strings.ToLower(docs[i].Title)] = docs[i]
	}
	resolveDoc := func(ref string) *DocInfo {
		if i, ok := byPath[ref]; ok {
			return docs[i]
		}
		return byName[strings.ToLower(strings.TrimSpace(ref))]
	}

	others := map[string]*Node{}
	add := func(s, p string, o Term) { g.Triples = append(g.Triples, Triple{S: s, P: p, O: o}) }
	// edge adds a statement between nodes once per document: references by
	// title and by path may name the same target.
	var seen map[[2]string]bool
	edge := func(s, p, o string) {
		if k := [2]string{p, o}; !seen[k] {
			seen[k] = true
			add(s, p, IRI(o))
		}
	}
	named := func(kind, typ, name, desc string) string {
		id := nodeIRI(kind, name)
		if n, ok := others[id]; ok {
			if n.Description == "" && desc != "" {
				n.Description = desc
				add(id, SchemaNS+"description", Lit(desc))
			}
			return id
		}
		others[id] = &Node{ID: id, Label: name, Description: desc}
		add(id, RDFType, IRI(typ))
		add(id, SchemaNS+"name", Lit(name))
		if desc != "" {
			add(id, SchemaNS+"description", Lit(desc))
		}
		return id
	}
	// ref resolves a reference to a document, or makes it an entity.
	ref := func(name string) (string, string) {
		if d := resolveDoc(name); d != nil {
			return docIRI(d.Path), d.Title
		}
		return named("entity", SchemaNS+"Thing", name, ""), name
	}

	foreign := map[Triple]bool{}
	wiki := newWikiResolver(docs)
	for i, d := range docs {
		id := iris[i]
		seen = map[[2]string]bool{}
		n := &Node{ID: id, Label: d.Title, Shown: d.Title, TitleFrom: d.TitleFrom, Description: d.Description, Path: d.Path, Keywords: append(append([]string(nil), d.Keywords...), d.Aliases...), Body: d.Body}
		g.Nodes = append(g.Nodes, n)
		g.Warnings = append(g.Warnings, d.Warnings...)
		add(id, RDFType, IRI(SchemaNS+"Article"))
		add(id, SchemaNS+"name", Lit(d.Title))
		if d.Description != "" {
			add(id, SchemaNS+"description", Lit(d.Description))
		}
		for _, k := range dedupe(d.Keywords) {
			add(id, SchemaNS+"keywords", Lit(k))
		}
		for _, a := range d.About {
			edge(id, SchemaNS+"about", named("entity", SchemaNS+"Thing", a, ""))
		}
		for _, a := range d.Authors {
			edge(id, SchemaNS+"author", named("person", SchemaNS+"Person", a, ""))
		}
		for _, pv := range [][2]string{{"datePublished", d.DatePublished}, {"dateModified", d.DateModified}} {
			p, v := pv[0], pv[1]
			if v == "" {
				continue
			}
			if datePattern.MatchString(v) {
				add(id, SchemaNS+p, Term{Value: v, Literal: true, Datatype: XSDDate})
			} else {
				add(id, SchemaNS+p, Lit(v))
			}
		}
		add(id, ProvNS+"wasDerivedFrom", IRI(fileIRI(d.Path)))
		// Mentions by document index: sorting ints is cheaper than hashing IRIs.
		var targets []int
		linkTo := func(t int, predicate, text string) {
			for _, l := range g.Links[i] {
				if l.To == t && l.Predicate == predicate {
					return
				}
			}
			g.Links[i] = append(g.Links[i], DocLink{To: t, Predicate: predicate, Text: text})
		}
		for k, l := range d.Links {
			if t, ok := byPath[l]; ok && t != i {
				targets = append(targets, t)
				linkTo(t, "mentions", at(d.LinkTexts, k))
			}
		}
		for k, w := range d.WikiLinks {
			t := wiki.resolve(d, w)
			if t < 0 {
				g.Unresolved.Count++
				if len(g.Unresolved.Examples) < maxUnresolvedExamples {
					g.Unresolved.Examples = append(g.Unresolved.Examples, d.Path+": [["+w+"]]")
				}
				continue
			}
			if t != i {
				targets = append(targets, t)
				linkTo(t, "mentions", at(d.WikiTexts, k))
			}
		}
		sort.Ints(targets)
		for k, t := range targets {
			if k == 0 || t != targets[k-1] {
				// Entity mentions (edge below) name entity IRIs, never these.
				add(id, SchemaNS+"mentions", IRI(iris[t]))
			}
		}
		for _, gname := range d.Groups {
			edge(id, KBNS+"group", named("group", KBNS+"Group", gname, ""))
		}
		docRef := func(name, predicate string) {
			if t := resolveDoc(name); t != nil && t != d {
				linkTo(byPath[t.Path], predicate, name)
			}
		}
		for _, r := range d.Related {
			target, label := ref(r)
			edge(id, KBNS+"related", target)
			n.Related = append(n.Related, label)
			docRef(r, "related")
		}
		for _, s := range d.NextSteps {
			target, label := ref(s)
			edge(id, KBNS+"nextStep", target)
			n.Related = append(n.Related, label)
			docRef(s, "nextStep")
		}
		for _, e := range d.Entities {
			typ := SchemaNS + "Thing"
			if e.Type != "" {
				typ = expand(e.Type, SchemaNS)
			}
			eid := named("entity", typ, e.Name, e.Description)
			edge(id, SchemaNS+"mentions", eid)
			n.Related = append(n.Related, e.Name)
		}
		for _, e := range d.Edges {
			subject := id
			if e.Subject != "" {
				subject, _ = ref(e.Subject)
			}
			object, label := ref(e.Object)
			if t := (Triple{S: subject, P: expand(e.Predicate, KBNS), O: IRI(object)}); subject == id {
				edge(id, t.P, object)
			} else if !foreign[t] {
				foreign[t] = true // two documents may state the same edge about a third node
				g.Triples = append(g.Triples, t)
			}
			if subject == id {
				n.Related = append(n.Related, label)
				docRef(e.Object, localName(expand(e.Predicate, KBNS)))
			}
		}
	}
	titles := map[string]int{}
	for _, n := range g.Nodes {
		titles[strings.ToLower(n.Label)]++
	}
	for _, n := range g.Nodes {
		if titles[strings.ToLower(n.Label)] > 1 {
			n.Shown = n.Label + " (" + n.Path + ")"
		}
	}
	for _, id := range sortedKeys(others) {
		others[id].Shown = others[id].Label
		g.Nodes = append(g.Nodes, others[id])
	}
	return g
}

// at returns texts[k], or "" past its end (documents of older snapshots).
func at(texts []string, k int) string {
	if k < len(texts) {
		return texts[k]
	}
	return ""
}

// expand turns a CURIE with a known prefix, or a full IRI, into an IRI;
// a bare word becomes a term of vocab.
func expand(name, vocab string) string {
	name = strings.TrimSpace(name)
	if strings.Contains(name, "://") {
		return name
	}
	if p, local, ok := strings.Cut(name, ":"); ok {
		for _, pre := range Prefixes {
			if pre[0] == p {
				return pre[1] + local
			}
		}
	}
	return vocab + camel(name)
}

// camel makes "next step" into "nextStep".
func camel(s string) string {
	words := strings.FieldsFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') })
	for i, w := range words {
		if i > 0 {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	if len(words) == 0 {
		return "relatedTo"
	}
	return strings.Join(words, "")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
