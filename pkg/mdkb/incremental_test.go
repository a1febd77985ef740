package mdkb

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// vaultDocs parses the documents of testdata/vault and testdata/kb, in
// path order.
func vaultDocs(t testing.TB) []*DocInfo {
	t.Helper()
	var docs []*DocInfo
	for _, dir := range []string{"vault", "kb"} {
		root := filepath.Join("testdata", dir)
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			docs = append(docs, Parse(dir+"/"+filepath.ToSlash(rel), "e1", src))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Path < docs[j].Path })
	return docs
}

// sameGraph fails unless a and b say the same: statements (as sets), nodes,
// links, unresolved links, warnings, the body index and the answers to
// queries.
func sameGraph(t *testing.T, what string, a, b *Graph, queries []string) {
	t.Helper()
	nt := func(g *Graph) string {
		lines := strings.Split(g.NQuads(), "\n")
		sort.Strings(lines)
		return strings.Join(lines, "\n")
	}
	if x, y := nt(a), nt(b); x != y {
		t.Errorf("%s: the statements differ (%d and %d bytes)", what, len(x), len(y))
	}
	if a.TripleCount() != len(a.Triples()) || a.TripleCount() != b.TripleCount() {
		t.Errorf("%s: triple counts %d (%d listed) and %d", what, a.TripleCount(), len(a.Triples()), b.TripleCount())
	}
	if !reflect.DeepEqual(a.Nodes, b.Nodes) {
		t.Errorf("%s: the nodes differ", what)
	}
	if !reflect.DeepEqual(a.Links, b.Links) || !reflect.DeepEqual(a.Unresolved, b.Unresolved) || !reflect.DeepEqual(a.Warnings, b.Warnings) {
		t.Errorf("%s: links, unresolved links or warnings differ", what)
	}
	if !reflect.DeepEqual(a.body, b.body) {
		t.Errorf("%s: the body indexes differ: %d and %d words", what, len(a.body.words), len(b.body.words))
	}
	if !reflect.DeepEqual(a.index(), b.index()) {
		t.Errorf("%s: the search indexes differ", what)
	}
	for _, q := range queries {
		if x, y := a.Search(q, 10), b.Search(q, 10); !reflect.DeepEqual(x, y) {
			t.Errorf("%s: %q ranks\n %+v\nand\n %+v", what, q, x, y)
		}
	}
}

var probeQueries = []string{"approvals", "plugin templates", "daily notes", "embed files", "sync", "graph view", "tar", "changed words here", "zebra"}

// edited returns d with another body and one more wiki link, under the
// same names.
func edited(t *testing.T, d *DocInfo, extra string) *DocInfo {
	t.Helper()
	c := *d
	c.ETag += "x"
	c.Body, c.bodyTerms = extra, nil
	c.WikiLinks = append(append([]string(nil), d.WikiLinks...), "Embed files")
	c.WikiTexts = append(append([]string(nil), d.WikiTexts...), "embeds")
	return &c
}

// TestOneChangeRemakesOnlyItsPart: after one changed document, the graph
// reuses every other document's part and the body index of the previous
// graph, and says exactly what a graph built from nothing says.
func TestOneChangeRemakesOnlyItsPart(t *testing.T) {
	docs := vaultDocs(t)
	g0 := Build(docs)
	k := len(docs) / 2
	next := append([]*DocInfo(nil), docs...)
	next[k] = edited(t, docs[k], "changed words here about zebra")
	if names(next) != names(docs) {
		t.Fatal("the edit changed the names")
	}
	g1 := build(g0, next)
	for i := range next {
		if same := g1.parts[i] == g0.parts[i]; same != (i != k) {
			t.Errorf("part %d (%s) reused = %v", i, next[i].Path, same)
		}
	}
	sameGraph(t, "one changed", g1, Build(next), probeQueries)
	if m := g1.Search("zebra", 1); len(m) != 1 || m[0].Path != next[k].Path {
		t.Errorf("the changed body is not found: %+v", m)
	}
}

// TestChangedNamesRemakeEveryPart: a new title may capture references of
// other documents, so no part is reused; the graph is still the one built
// from nothing.
func TestChangedNamesRemakeEveryPart(t *testing.T) {
	docs := vaultDocs(t)
	g0 := Build(docs)
	next := append([]*DocInfo(nil), docs...)
	d := *docs[3]
	d.Title = "Embed files"
	next[3] = &d
	g1 := build(g0, next)
	for i := range next {
		if g1.parts[i] == g0.parts[i] {
			t.Errorf("part %d reused after a title changed", i)
		}
	}
	sameGraph(t, "title changed", g1, Build(next), probeQueries)
}

// TestRandomEditsKeepTheIncrementalGraphExact chains edits, additions and
// deletions, each graph made from the previous one, and compares each with
// a graph built from nothing.
func TestRandomEditsKeepTheIncrementalGraphExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	docs := vaultDocs(t)
	g := Build(docs)
	words := []string{"alpha", "zebra", "sync", "templates", "approvals", "graph", "embed", "tarball", "start"}
	for step := range 25 {
		next := append([]*DocInfo(nil), docs...)
		switch op := rng.IntN(4); {
		case op == 0 && len(next) > 5: // delete
			i := rng.IntN(len(next))
			next = append(next[:i], next[i+1:]...)
		case op == 1: // add
			src := fmt.Sprintf("# New %d\n\n%s %s [[index]]\n", step, words[rng.IntN(len(words))], words[rng.IntN(len(words))])
			next = append(next, Parse(fmt.Sprintf("vault/new/n%02d.md", step), "e", []byte(src)))
		default: // edit, sometimes two
			for range 1 + rng.IntN(2) {
				i := rng.IntN(len(next))
				next[i] = edited(t, next[i], words[rng.IntN(len(words))]+" "+words[rng.IntN(len(words))])
			}
		}
		sort.Slice(next, func(i, j int) bool { return next[i].Path < next[j].Path })
		g = build(g, next)
		sameGraph(t, fmt.Sprintf("step %d", step), g, Build(next), append(probeQueries, words...))
		docs = next
	}
}

// TestSnapshotRoundTrip: a snapshot read back gives the same graph, the
// same documents (without bodies, which the body index stands for) and
// the same skipped files.
func TestSnapshotRoundTrip(t *testing.T) {
	docs := vaultDocs(t)
	// Every field of a document, so that a field the codec forgets fails.
	full := &DocInfo{Path: "vault/zz/full.md", ETag: "e", Title: "Full", TitleFrom: "frontMatter", Description: "d", Keywords: []string{"k"},
		About: []string{"a"}, Authors: []string{"Ann"}, DatePublished: "2026-01-02", DateModified: "later", Groups: []string{"g"},
		Related: []string{"index"}, NextSteps: []string{"Nowhere"}, Entities: []Entity{{Name: "E", Type: "schema:Thing", Description: "e"}},
		Edges: []Edge{{Subject: "index", Predicate: "usedBy", Object: "Full"}, {Predicate: "schema:isBasedOn", Object: "X"}},
		Links: []string{"vault/index.md"}, LinkTexts: []string{"home"}, WikiLinks: []string{"index", "missing"}, WikiTexts: []string{"i", "m"},
		Aliases: []string{"Whole"}, Body: "full text", Warnings: []string{"w"}, Extra: map[string]string{"x": "1", "y": "2"}}
	if n := reflect.TypeOf(DocInfo{}).NumField(); n != 24 {
		t.Fatalf("DocInfo has %d fields: encode and decode the new ones (codec.go; bodyTerms is the body index's), then update this count", n)
	}
	docs = append(docs, full)
	sort.Slice(docs, func(i, j int) bool { return docs[i].Path < docs[j].Path })
	snap := &snapshot{Scope: "vault", Fingerprint: "fp", Docs: docs, Skips: []skippedFile{{Path: "b.md", ETag: "1", Reason: "binary"}}}
	g := snap.built(nil)
	enc := encodeSnapshot(snap)
	back, err := readSnapshotFrom(bytes.NewReader(enc), int64(len(enc)))
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, "read back", back.graph, g, probeQueries)
	if back.Scope != "vault" || back.Fingerprint != "fp" || !reflect.DeepEqual(back.Skips, snap.Skips) {
		t.Errorf("header: %+v", back)
	}
	byPath := map[string]*DocInfo{}
	for _, d := range back.Docs {
		byPath[d.Path] = d
	}
	for _, d := range docs {
		want := *d
		want.Body, want.bodyTerms = "", nil
		if got := byPath[d.Path]; got == nil || !reflect.DeepEqual(*got, want) {
			t.Errorf("document %s read back as %+v", d.Path, got)
		}
	}
	// A graph made from the one read back (whose documents have no bodies)
	// after a change is the one made from the documents as parsed.
	change := edited(t, docs[1], "zebra")
	next := append([]*DocInfo(nil), back.Docs...)
	next[1] = change
	parsed := append([]*DocInfo(nil), docs...)
	parsed[1] = change
	sameGraph(t, "changed after reading back", build(back.graph, next), Build(parsed), probeQueries)
}

// TestDamagedSnapshotsAreRefused: every truncation and many corruptions of
// a stored snapshot are refused (or read as some graph) without a panic,
// and another version is refused.
func TestDamagedSnapshotsAreRefused(t *testing.T) {
	docs := vaultDocs(t)[:12]
	snap := &snapshot{Docs: docs}
	snap.built(nil)
	enc := encodeSnapshot(snap)
	for n := 0; n < len(enc); n += 1 + n/64 {
		if _, err := readSnapshotFrom(bytes.NewReader(enc[:n]), 0); err == nil {
			t.Fatalf("a snapshot cut at %d of %d bytes was read", n, len(enc))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		bad := append([]byte(nil), enc...)
		for range 1 + rng.IntN(4) {
			bad[rng.IntN(len(bad))] = byte(rng.IntN(256))
		}
		if s, err := readSnapshotFrom(bytes.NewReader(bad), 0); err == nil {
			s.graph.Search("notes", 5) // must not panic
		}
	}
	other := append([]byte(snapshotMagic), byte(snapshotVersion+1))
	other = append(other, enc[len(snapshotMagic)+1:]...)
	if _, err := readSnapshotFrom(bytes.NewReader(other), 0); err == nil {
		t.Error("a snapshot of another version was read")
	}
}

// TestBodyWordsAreCounted: words are runs of letters and digits, in any
// script, counted in full.
func TestBodyWordsAreCounted(t *testing.T) {
	got := map[string]uint32{}
	terms := termsOf("über-cafés: tar tar.gz, 日本語 x2 tar")
	for k, w := range terms.words {
		got[w] = terms.counts[k]
	}
	want := map[string]uint32{"über": 1, "cafés": 1, "tar": 3, "gz": 1, "日本語": 1, "x2": 1}
	if !reflect.DeepEqual(got, want) || terms.total != 8 {
		t.Errorf("terms = %v (%d words)", got, terms.total)
	}
}

// TestBodyWordsSplitAsTokens: the body's word counter splits any text as
// the query tokenizer does, so a query word finds the body words it names.
func TestBodyWordsSplitAsTokens(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	pieces := []string{"a", "Z", "0", "9", " ", "-", "_", "é", "日", "本", "\u00a0", "ß", "٣", "\t", "x1", ".", "Ⅻ", "\U0001F600", "\xff"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := strings.ToLower(b.String())
		want := map[string]uint32{}
		for _, w := range tokens(text) {
			want[w]++
		}
		got := map[string]uint32{}
		terms := termsOf(text)
		for k, w := range terms.words {
			got[w] = terms.counts[k]
		}
		if !reflect.DeepEqual(got, want) || int(terms.total) != len(tokens(text)) {
			t.Fatalf("%q: counted %v (%d), tokens %v", text, got, terms.total, want)
		}
	}
}
