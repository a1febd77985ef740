package mdkb

import (
	"crypto/sha256"
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
	TitleFrom   string   // where a document's label came from (DocInfo.TitleFrom)
	// Shown is the label to show: a document's title, with its path when
	// other documents have the same title.
	Shown string
}

// Graph is the assembled graph of a scope.
type Graph struct {
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

	parts       []*docPart // by document, in path order
	names       string     // the names fingerprint the parts were made for
	body        *bodyIndex
	extra       []Triple // statements about named and other nodes
	tripleCount int
	triples     []Triple // all statements, made on first use
	triplesOnce sync.Once
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
}

func newWikiResolver(docs []*DocInfo) *wikiResolver {
	w := &wikiResolver{docs: docs, byName: make(map[string][]int, len(docs))}
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
	if len(candidates) == 1 {
		return candidates[0]
	}
	folder := path.Dir(from.Path)
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
	return best
}

var datePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// Build assembles the graph of the documents, in path order. Links to
// documents outside the set, and wiki links that name no document, make no
// edge.
func Build(docs []*DocInfo) *Graph { return build(nil, docs) }

// docPart is what one document contributes to a graph, given the names
// the documents of the graph answer to: its statements, links, related
// labels, the named nodes it mentions and the wiki links it could not
// resolve. Parts are never changed once made, so graphs share them.
type docPart struct {
	doc        *DocInfo
	statements int      // how many statements about the document it makes
	triples    []Triple // those statements, only while the graph's are listed (Graph.Triples)
	foreign    []Triple // graph_edges statements about other nodes
	named      []namedRef
	links      []DocLink
	related    []string // labels of related nodes, for search
	unresolved []string // wiki link targets that name no document
}

// namedRef is a named node (entity, person, group) a document mentions.
type namedRef struct {
	ID, Type, Name, Description string
}

// names fingerprints what documents answer to (paths, titles, aliases):
// while it is the same, every document's part is the same too.
func names(docs []*DocInfo) string {
	h := sha256.New()
	for _, d := range docs {
		h.Write([]byte(d.Path))
		h.Write([]byte{0})
		h.Write([]byte(d.Title))
		for _, a := range d.Aliases {
			h.Write([]byte{1})
			h.Write([]byte(a))
		}
		h.Write([]byte{'\n'})
	}
	return string(h.Sum(nil))
}

// build assembles the graph of docs. When prev, the graph of an earlier
// set, has the same names, the parts of the documents it shares (the same
// *DocInfo) are reused: after one changed file only that file's part is
// made again, and the body index of prev is carried forward. Documents
// read from a stored snapshot have no body: their words are only in the
// body index of the snapshot's graph, so such documents are built with
// that graph as prev.
func build(prev *Graph, docs []*DocInfo) *Graph {
	docs = append([]*DocInfo(nil), docs...)
	sort.Slice(docs, func(i, j int) bool { return docs[i].Path < docs[j].Path })
	fp := names(docs)
	var reuse map[*DocInfo]*docPart
	if prev != nil && prev.names == fp {
		reuse = make(map[*DocInfo]*docPart, len(prev.parts))
		for _, p := range prev.parts {
			reuse[p.doc] = p
		}
	}
	parts := make([]*docPart, len(docs))
	var r *resolver
	for i, d := range docs {
		if p := reuse[d]; p != nil {
			parts[i] = p
			continue
		}
		if r == nil {
			r = newResolver(docs)
		}
		parts[i] = r.part(i, false)
	}
	g := assemble(parts, fp)
	if prev != nil && prev.body != nil {
		g.body = prev.body.derive(prev.docs(), docs)
	} else {
		g.body = newBodyIndex(docs)
	}
	return g
}

// resolver resolves the references of documents against the names of a
// set of documents.
type resolver struct {
	docs   []*DocInfo
	iris   []string
	byPath map[string]int      // index of a document by path
	byName map[string]*DocInfo // by lowercase title or file name
	wiki   *wikiResolver
}

func newResolver(docs []*DocInfo) *resolver {
	r := &resolver{docs: docs, iris: make([]string, len(docs)), byPath: make(map[string]int, len(docs)), byName: make(map[string]*DocInfo, 2*len(docs)), wiki: newWikiResolver(docs)}
	for i, d := range docs {
		r.byPath[d.Path] = i
		r.iris[i] = docIRI(d.Path)
	}
	// Titles first, then file names, so a title wins a clash.
	for i := len(docs) - 1; i >= 0; i-- {
		base := path.Base(docs[i].Path)
		r.byName[strings.ToLower(strings.TrimSuffix(base, path.Ext(base)))] = docs[i]
	}
	for i := len(docs) - 1; i >= 0; i-- {
		r.byName[strings.ToLower(docs[i].Title)] = docs[i]
	}
	return r
}

func (r *resolver) doc(ref string) *DocInfo {
	if i, ok := r.byPath[ref]; ok {
		return r.docs[i]
	}
	return r.byName[strings.ToLower(strings.TrimSpace(ref))]
}

// part makes the part of document i, with its statements when keep is
// set (else only their number: a graph lists its statements only for an
// export, and keeping them would double the memory of a graph).
func (r *resolver) part(i int, keep bool) *docPart {
	d := r.docs[i]
	id := r.iris[i]
	p := &docPart{doc: d}
	add := func(s, pr string, o Term) { p.triples = append(p.triples, Triple{S: s, P: pr, O: o}) }
	// edge adds a statement between nodes once: references by title and
	// by path may name the same target.
	seen := map[[2]string]bool{}
	edge := func(pr, o string) {
		if k := [2]string{pr, o}; !seen[k] {
			seen[k] = true
			add(id, pr, IRI(o))
		}
	}
	named := func(kind, typ, name, desc string) string {
		nid := nodeIRI(kind, name)
		p.named = append(p.named, namedRef{ID: nid, Type: typ, Name: name, Description: desc})
		return nid
	}
	// ref resolves a reference to a document, or makes it an entity.
	ref := func(name string) (string, string) {
		if t := r.doc(name); t != nil {
			return docIRI(t.Path), t.Title
		}
		return named("entity", SchemaNS+"Thing", name, ""), name
	}
	add(id, RDFType, IRI(SchemaNS+"Article"))
	add(id, SchemaNS+"name", Lit(d.Title))
	if d.Description != "" {
		add(id, SchemaNS+"description", Lit(d.Description))
	}
	for _, k := range dedupe(d.Keywords) {
		add(id, SchemaNS+"keywords", Lit(k))
	}
	for _, a := range d.About {
		edge(SchemaNS+"about", named("entity", SchemaNS+"Thing", a, ""))
	}
	for _, a := range d.Authors {
		edge(SchemaNS+"author", named("person", SchemaNS+"Person", a, ""))
	}
	for _, pv := range [][2]string{{"datePublished", d.DatePublished}, {"dateModified", d.DateModified}} {
		pr, v := pv[0], pv[1]
		if v == "" {
			continue
		}
		if datePattern.MatchString(v) {
			add(id, SchemaNS+pr, Term{Value: v, Literal: true, Datatype: XSDDate})
		} else {
			add(id, SchemaNS+pr, Lit(v))
		}
	}
	add(id, ProvNS+"wasDerivedFrom", IRI(fileIRI(d.Path)))
	// Mentions by document index: sorting ints is cheaper than hashing IRIs.
	var targets []int
	linkTo := func(t int, predicate, text string) {
		for _, l := range p.links {
			if l.To == t && l.Predicate == predicate {
				return
			}
		}
		p.links = append(p.links, DocLink{To: t, Predicate: predicate, Text: text})
	}
	for k, l := range d.Links {
		if t, ok := r.byPath[l]; ok && t != i {
			targets = append(targets, t)
			linkTo(t, "mentions", at(d.LinkTexts, k))
		}
	}
	for k, w := range d.WikiLinks {
		t := r.wiki.resolve(d, w)
		if t < 0 {
			p.unresolved = append(p.unresolved, w)
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
			add(id, SchemaNS+"mentions", IRI(r.iris[t]))
		}
	}
	for _, gname := range d.Groups {
		edge(KBNS+"group", named("group", KBNS+"Group", gname, ""))
	}
	docRef := func(name, predicate string) {
		if t := r.doc(name); t != nil && t != d {
			linkTo(r.byPath[t.Path], predicate, name)
		}
	}
	for _, rel := range d.Related {
		target, label := ref(rel)
		edge(KBNS+"related", target)
		p.related = append(p.related, label)
		docRef(rel, "related")
	}
	for _, s := range d.NextSteps {
		target, label := ref(s)
		edge(KBNS+"nextStep", target)
		p.related = append(p.related, label)
		docRef(s, "nextStep")
	}
	for _, e := range d.Entities {
		typ := SchemaNS + "Thing"
		if e.Type != "" {
			typ = expand(e.Type, SchemaNS)
		}
		edge(SchemaNS+"mentions", named("entity", typ, e.Name, e.Description))
		p.related = append(p.related, e.Name)
	}
	for _, e := range d.Edges {
		subject := id
		if e.Subject != "" {
			subject, _ = ref(e.Subject)
		}
		object, label := ref(e.Object)
		if t := (Triple{S: subject, P: expand(e.Predicate, KBNS), O: IRI(object)}); subject == id {
			edge(t.P, object)
		} else {
			p.foreign = append(p.foreign, t)
		}
		if subject == id {
			p.related = append(p.related, label)
			docRef(e.Object, localName(expand(e.Predicate, KBNS)))
		}
	}
	p.statements = len(p.triples)
	if !keep {
		p.triples = nil
	}
	return p
}

// assemble makes the graph of the parts of documents in path order:
// document nodes, the named nodes they mention (each described once, by
// the first document that describes it), statements about other nodes
// once however many documents make them, and the labels to show.
func assemble(parts []*docPart, fp string) *Graph {
	g := &Graph{Documents: len(parts), Links: make([][]DocLink, len(parts)), parts: parts, names: fp}
	others := map[string]*Node{}
	foreign := map[Triple]bool{}
	g.Nodes = make([]*Node, 0, len(parts))
	count := 0
	for i, p := range parts {
		d := p.doc
		g.Nodes = append(g.Nodes, &Node{ID: docIRI(d.Path), Label: d.Title, Shown: d.Title, TitleFrom: d.TitleFrom, Description: d.Description, Path: d.Path,
			Keywords: append(append([]string(nil), d.Keywords...), d.Aliases...), Related: p.related})
		g.Warnings = append(g.Warnings, d.Warnings...)
		g.Links[i] = p.links
		count += p.statements
		for _, w := range p.unresolved {
			g.Unresolved.Count++
			if len(g.Unresolved.Examples) < maxUnresolvedExamples {
				g.Unresolved.Examples = append(g.Unresolved.Examples, d.Path+": [["+w+"]]")
			}
		}
		for _, r := range p.named {
			if n, ok := others[r.ID]; ok {
				if n.Description == "" && r.Description != "" {
					n.Description = r.Description
					g.extra = append(g.extra, Triple{S: r.ID, P: SchemaNS + "description", O: Lit(r.Description)})
				}
				continue
			}
			others[r.ID] = &Node{ID: r.ID, Label: r.Name, Shown: r.Name, Description: r.Description}
			g.extra = append(g.extra, Triple{S: r.ID, P: RDFType, O: IRI(r.Type)}, Triple{S: r.ID, P: SchemaNS + "name", O: Lit(r.Name)})
			if r.Description != "" {
				g.extra = append(g.extra, Triple{S: r.ID, P: SchemaNS + "description", O: Lit(r.Description)})
			}
		}
		for _, t := range p.foreign {
			if !foreign[t] {
				foreign[t] = true // two documents may state the same edge about a third node
				g.extra = append(g.extra, t)
			}
		}
	}
	g.tripleCount = count + len(g.extra)
	titles := make(map[string]int, len(g.Nodes))
	for _, n := range g.Nodes {
		titles[strings.ToLower(n.Label)]++
	}
	for _, n := range g.Nodes {
		if titles[strings.ToLower(n.Label)] > 1 {
			n.Shown = n.Label + " (" + n.Path + ")"
		}
	}
	for _, id := range sortedKeys(others) {
		g.Nodes = append(g.Nodes, others[id])
	}
	return g
}

// docs returns the documents of the graph, in path order.
func (g *Graph) docs() []*DocInfo {
	out := make([]*DocInfo, len(g.parts))
	for i, p := range g.parts {
		out[i] = p.doc
	}
	return out
}

// TripleCount is the number of statements of the graph.
func (g *Graph) TripleCount() int { return g.tripleCount }

// Triples returns the statements of the graph: each document's, in path
// order, then those about named nodes and other nodes. The list is made
// on first use, by making the documents' parts again (the same names give
// the same parts).
func (g *Graph) Triples() []Triple {
	g.triplesOnce.Do(func() {
		g.triples = make([]Triple, 0, g.tripleCount)
		r := newResolver(g.docs())
		for i := range g.parts {
			g.triples = append(g.triples, r.part(i, true).triples...)
		}
		g.triples = append(g.triples, g.extra...)
	})
	return g.triples
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
