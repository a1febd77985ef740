package mdkb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/piprate/json-gold/ld"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

const doc = mdkb.Base + "doc/"

// countingStore counts the GETs an operation makes.
type countingStore struct {
	fileops.Store
	gets atomic.Int64
}

func (c *countingStore) Get(ctx context.Context, key string, o fileops.GetOptions) (*fileops.Object, error) {
	c.gets.Add(1)
	return c.Store.Get(ctx, key, o)
}

// loadFixture copies testdata/kb into a store under prefix.
func loadFixture(t testing.TB, s fileops.Store, prefix string) {
	storetest.LoadDir(t, s, prefix, filepath.Join("testdata", "kb"))
}

func newService(t testing.TB, data, snaps fileops.Store, tune func(*mdkb.Limits)) *mdkb.Service {
	root, _ := pathsafe.NewRoot("kb-root")
	l := mdkb.DefaultLimits()
	if tune != nil {
		tune(&l)
	}
	return mdkb.New(data, root, snaps, l)
}

func fixtureService(t testing.TB) (*mdkb.Service, *countingStore) {
	data := &countingStore{Store: memstore.New()}
	loadFixture(t, data.Store, "kb-root/")
	return newService(t, data, memstore.New(), nil), data
}

// triplesOf parses the N-Triples of the whole graph, via the Turtle-free
// N-Quads rendering, and returns those of one subject as sorted lines.
func triplesOf(t *testing.T, s *mdkb.Service, subject string) []string {
	t.Helper()
	exp, err := s.Export(context.Background(), mdkb.ExportArgs{Format: "jsonld"})
	if err != nil {
		t.Fatal(err)
	}
	nq := toNQuads(t, exp.Content)
	var out []string
	for _, line := range strings.Split(nq, "\n") {
		if strings.HasPrefix(line, "<"+subject+">") {
			out = append(out, strings.TrimPrefix(line, "<"+subject+"> "))
		}
	}
	sort.Strings(out)
	return out
}

// toNQuads expands JSON-LD back to N-Quads with json-gold, offline.
func toNQuads(t testing.TB, jsonld string) string {
	t.Helper()
	var doc any
	if err := jsonUnmarshal(jsonld, &doc); err != nil {
		t.Fatalf("the JSON-LD export is not JSON: %v", err)
	}
	opts := mdkb.JSONLDOptions()
	opts.Format = "application/n-quads"
	out, err := ld.NewJsonLdProcessor().ToRDF(doc, opts)
	if err != nil {
		t.Fatalf("json-gold could not expand the export: %v", err)
	}
	return out.(string)
}

func TestDocumentTriples(t *testing.T) {
	s, _ := fixtureService(t)
	got := triplesOf(t, s, doc+"index.md")
	want := []string{
		`<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://schema.org/Article> .`,
		`<http://www.w3.org/ns/prov#wasDerivedFrom> <https://kb.filecontext.invalid/file/index.md> .`,
		`<https://kb.filecontext.invalid/ns#group> <https://kb.filecontext.invalid/group/handbook> .`,
		`<https://schema.org/author> <https://kb.filecontext.invalid/person/ada-lovelace> .`,
		`<https://schema.org/dateModified> "2026-11-30"^^<http://www.w3.org/2001/XMLSchema#date> .`,
		`<https://schema.org/datePublished> "2026-01-15"^^<http://www.w3.org/2001/XMLSchema#date> .`,
		`<https://schema.org/description> "Entry point of the fixture knowledge base." .`,
		`<https://schema.org/keywords> "home" .`,
		`<https://schema.org/keywords> "index" .`,
		`<https://schema.org/mentions> <https://kb.filecontext.invalid/doc/guides/setup.md> .`,
		`<https://schema.org/mentions> <https://kb.filecontext.invalid/doc/notes/glossary.md> .`,
		`<https://schema.org/mentions> <https://kb.filecontext.invalid/doc/reference/api.md> .`,
		`<https://schema.org/name> "Knowledge Base Home" .`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("index.md triples:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	setup := strings.Join(triplesOf(t, s, doc+"guides/setup.md"), "\n")
	for _, w := range []string{
		`<https://schema.org/mentions> <https://kb.filecontext.invalid/doc/guides/first-steps.md>`,
		`<https://schema.org/mentions> <https://kb.filecontext.invalid/doc/index.md>`,
		`<https://kb.filecontext.invalid/ns#nextStep> <https://kb.filecontext.invalid/doc/guides/first-steps.md>`,
		`<https://kb.filecontext.invalid/ns#related> <https://kb.filecontext.invalid/doc/reference/api.md>`,
		`<https://schema.org/about> <https://kb.filecontext.invalid/entity/installation>`,
		`<https://schema.org/keywords> "configuration"`,
	} {
		if !strings.Contains(setup, w) {
			t.Errorf("setup.md lacks %s\n%s", w, setup)
		}
	}
	if strings.Contains(setup, "missing.md") {
		t.Error("a link to a missing file made an edge")
	}
	first := strings.Join(triplesOf(t, s, doc+"guides/first-steps.md"), "\n")
	for _, w := range []string{
		`<https://schema.org/isBasedOn> <https://kb.filecontext.invalid/doc/guides/setup.md>`,
		`<https://schema.org/mentions> <https://kb.filecontext.invalid/entity/cursor>`,
		`<https://schema.org/mentions> <https://kb.filecontext.invalid/entity/approval>`,
		`<https://schema.org/mentions> <https://kb.filecontext.invalid/doc/guides/setup.md>`,
	} {
		if !strings.Contains(first, w) {
			t.Errorf("first-steps.md lacks %s\n%s", w, first)
		}
	}
	cursor := strings.Join(triplesOf(t, s, mdkb.Base+"entity/cursor"), "\n")
	for _, w := range []string{`<https://schema.org/DefinedTerm>`, `"An opaque token that resumes a read."`, `<https://kb.filecontext.invalid/ns#usedBy> <https://kb.filecontext.invalid/doc/reference/api.md>`} {
		if !strings.Contains(cursor, w) {
			t.Errorf("the Cursor entity lacks %s\n%s", w, cursor)
		}
	}
	api := strings.Join(triplesOf(t, s, doc+"reference/api.md"), "\n")
	if !strings.Contains(api, `<https://schema.org/author> <https://kb.filecontext.invalid/person/grace-hopper>`) {
		t.Errorf("an author object lost its name:\n%s", api)
	}
}

func TestTitlesWarningsAndCounts(t *testing.T) {
	s, _ := fixtureService(t)
	res, err := s.Search(context.Background(), mdkb.SearchArgs{Query: "glossary", MaxResults: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.DocumentCount != 12 {
		t.Errorf("documentCount = %d, want 12 (the .txt file is not in the graph)", res.DocumentCount)
	}
	for path, want := range map[string]string{
		"notes/no-title.md": "no-title", "notes/heading-only.md": "Heading As Title", "notes/windows.md": "Windows Notes",
		"notes/unicode.md": "Café Überblick 日本語", "notes/malformed.md": "Malformed Front Matter", "notes/glossary.md": "Glossary",
	} {
		r, err := s.Search(context.Background(), mdkb.SearchArgs{Query: want})
		if err != nil || len(r.Matches) == 0 || r.Matches[0].Path != path || r.Matches[0].Label != want {
			t.Errorf("%s: search for its title = %+v %v, want the label %q first", path, r, err, want)
		}
	}
	warnings := strings.Join(res.Warnings, "\n")
	if !strings.Contains(warnings, "notes/malformed.md: the front matter is not valid YAML") || !strings.Contains(warnings, "notes/context.md: @context") {
		t.Errorf("warnings = %q", warnings)
	}
	exp, _ := s.Export(context.Background(), mdkb.ExportArgs{Format: "ttl"})
	if exp.TripleCount != res.TripleCount || exp.DocumentCount != 12 || res.TripleCount < 80 {
		t.Errorf("counts: search %d, export %d", res.TripleCount, exp.TripleCount)
	}
	win := strings.Join(triplesOf(t, s, doc+"notes/windows.md"), "\n")
	if !strings.Contains(win, `"crlf"`) || !strings.Contains(win, `<https://schema.org/mentions> <https://kb.filecontext.invalid/doc/index.md>`) {
		t.Errorf("the CRLF file lost its metadata or links:\n%s", win)
	}
	if strings.Contains(strings.Join(triplesOf(t, s, doc+"reference/api.md"), "\n"), "Not A Link") {
		t.Error("a wiki link inside code counted")
	}
}

func TestSearchRanking(t *testing.T) {
	s, _ := fixtureService(t)
	search := func(q string) []mdkb.Match {
		res, err := s.Search(context.Background(), mdkb.SearchArgs{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		return res.Matches
	}
	m := search("setup guide")
	if m[0].Path != "guides/setup.md" || m[0].Score != 1 || m[0].Source != "label" {
		t.Errorf("exact title: %+v", m[0])
	}
	m = search("zanzibar")
	if len(m) != 1 || m[0].Path != "guides/setup.md" || m[0].Source != "body" {
		t.Errorf("a body-only word: %+v", m)
	}
	m = search("QUOKKA")
	if len(m) != 1 || m[0].Path != "notes/no-title.md" {
		t.Errorf("case-insensitive body: %+v", m)
	}
	m = search("route")
	if len(m) == 0 || m[0].Path != "reference/api.md" || m[0].Source != "description" {
		t.Errorf("description: %+v", m)
	}
	m = search("cursor")
	if m[0].Label != "Cursor" || m[0].Score != 1 || !hasMatch(m, "guides/first-steps.md", "related") {
		t.Errorf("entity then related: %+v", m)
	}
	m = search("tutorial")
	if len(m) == 0 || m[0].Source != "keywords" {
		t.Errorf("keywords: %+v", m)
	}
	// Title beats description beats body, and ties go by label.
	g := mdkb.Build([]*mdkb.DocInfo{
		{Path: "z.md", Title: "Zeta", Body: "the word banana is here"},
		{Path: "b.md", Title: "Beta", Body: "banana again"},
		{Path: "d.md", Title: "Delta", Description: "all about banana"},
		{Path: "t.md", Title: "Banana"},
		{Path: "c.md", Title: "Banana bread"},
	})
	var order []string
	for _, m := range g.Search("banana", 10) {
		order = append(order, m.Label+"="+m.Source)
	}
	if got := strings.Join(order, ","); got != "Banana=label,Banana bread=label,Delta=description,Beta=body,Zeta=body" {
		t.Errorf("ranking = %s", got)
	}
	if n := len(g.Search("banana", 2)); n != 2 {
		t.Errorf("maxResults ignored: %d", n)
	}
}

func hasMatch(ms []mdkb.Match, path, source string) bool {
	for _, m := range ms {
		if m.Path == path && m.Source == source {
			return true
		}
	}
	return false
}

func TestExportsParseBack(t *testing.T) {
	s, _ := fixtureService(t)
	ctx := context.Background()
	ld1, err := s.Export(ctx, mdkb.ExportArgs{Format: "JsonLd"})
	if err != nil {
		t.Fatal(err)
	}
	if ld1.Format != "jsonld" || !strings.Contains(ld1.Content, `"@context"`) || strings.Count(ld1.Content, `"@context"`) != 1 {
		t.Errorf("jsonld: one context expected:\n%.300s", ld1.Content)
	}
	if n := strings.Count(strings.TrimSpace(toNQuads(t, ld1.Content)), "\n") + 1; n != ld1.TripleCount {
		t.Errorf("JSON-LD expands to %d triples, the graph has %d", n, ld1.TripleCount)
	}
	for _, f := range []string{"json-ld", "JSONLD", "turtle", "TTL", "Mermaid", "dot"} {
		if _, err := s.Export(ctx, mdkb.ExportArgs{Format: f}); err != nil {
			t.Errorf("format %q: %v", f, err)
		}
	}
	_, err = s.Export(ctx, mdkb.ExportArgs{Format: "rdfxml"})
	if fault.CodeOf(err) != fault.InvalidArgument {
		t.Errorf("unknown format: %v", err)
	}

	ttl, _ := s.Export(ctx, mdkb.ExportArgs{Format: "turtle"})
	if !strings.HasPrefix(ttl.Content, "@prefix schema: <https://schema.org/> .") {
		t.Errorf("turtle starts %.60q", ttl.Content)
	}
	rapper, err := exec.LookPath("rapper")
	if err != nil {
		t.Fatal("rapper (Debian raptor2-utils) is not installed; scripts/test installs it")
	}
	path := filepath.Join(t.TempDir(), "kb.ttl")
	os.WriteFile(path, []byte(ttl.Content), 0o644)
	out, err := exec.Command(rapper, "-i", "turtle", "-c", path).CombinedOutput()
	if err != nil {
		t.Fatalf("rapper refused the Turtle: %v\n%s", err, out)
	}
	if m := regexp.MustCompile(`returned (\d+) triples`).FindSubmatch(out); m == nil || string(m[1]) != strconv.Itoa(ttl.TripleCount) {
		t.Errorf("rapper: %s; the graph has %d triples", out, ttl.TripleCount)
	}

	dot, _ := s.Export(ctx, mdkb.ExportArgs{Format: "dot"})
	if !strings.HasPrefix(dot.Content, "digraph") {
		t.Errorf("dot starts %.20q", dot.Content)
	}
	dotBin, err := exec.LookPath("dot")
	if err != nil {
		t.Fatal("dot (Debian graphviz) is not installed; scripts/test installs it")
	}
	cmd := exec.Command(dotBin, "-Tsvg")
	cmd.Stdin = strings.NewReader(dot.Content)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "<svg") {
		t.Errorf("Graphviz refused the DOT: %v\n%.300s", err, out)
	}
	mer, _ := s.Export(ctx, mdkb.ExportArgs{Format: "mermaid"})
	if !strings.HasPrefix(mer.Content, "graph LR\n") || !strings.Contains(mer.Content, "-->|mentions|") {
		t.Errorf("mermaid:\n%s", mer.Content)
	}
}

func TestExportBudget(t *testing.T) {
	data := memstore.New()
	loadFixture(t, data, "kb-root/")
	s := newService(t, data, nil, func(l *mdkb.Limits) { l.MaximumExportBytes = 500 })
	for _, f := range []string{"jsonld", "turtle", "mermaid", "dot"} {
		r, err := s.Export(context.Background(), mdkb.ExportArgs{Format: f})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Truncated || len(r.Content) > 500 || !utf8.ValidString(r.Content) {
			t.Errorf("%s: %d bytes, truncated %v", f, len(r.Content), r.Truncated)
		}
	}
}

func TestTheLoaderFetchesNothing(t *testing.T) {
	opts := mdkb.JSONLDOptions()
	for _, u := range []string{"https://example.invalid/evil-context.jsonld", "file:///etc/passwd", "http://127.0.0.1:1/x"} {
		if _, err := opts.DocumentLoader.LoadDocument(u); err == nil {
			t.Errorf("the loader loaded %s", u)
		}
	}
	if _, err := opts.DocumentLoader.LoadDocument(mdkb.ContextURL); err != nil {
		t.Errorf("the project's own context: %v", err)
	}
	doc := map[string]any{"@context": "https://example.invalid/evil-context.jsonld", "name": "x"}
	if _, err := ld.NewJsonLdProcessor().Expand(doc, opts); err == nil {
		t.Error("a document with a remote context expanded")
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	s, _ := fixtureService(t)
	for _, q := range []string{"", "   "} {
		if _, err := s.Search(ctx, mdkb.SearchArgs{Query: q}); fault.CodeOf(err) != fault.InvalidArgument {
			t.Errorf("blank query %q: %v", q, err)
		}
	}
	if _, err := s.Search(ctx, mdkb.SearchArgs{Query: "x", MaxResults: -1}); fault.CodeOf(err) != fault.InvalidArgument {
		t.Errorf("negative maxResults: %v", err)
	}
	if _, err := s.Search(ctx, mdkb.SearchArgs{Query: strings.Repeat("x", 1001)}); fault.CodeOf(err) != fault.LimitExceeded {
		t.Errorf("long query: %v", err)
	}
	if _, err := s.Search(ctx, mdkb.SearchArgs{Query: "x", Directory: "../up"}); fault.CodeOf(err) != fault.InvalidPath {
		t.Errorf("bad directory: %v", err)
	}
	data := memstore.New()
	data.Put(ctx, "kb-root/only/readme.txt", []byte("text"), fileops.PutOptions{})
	data.Put(ctx, "kb-root/only/image.MD.png", []byte("x"), fileops.PutOptions{})
	s2 := newService(t, data, nil, func(l *mdkb.Limits) { l.MaximumFileBytes = 100; l.MaximumFiles = 2 })
	if _, err := s2.Search(ctx, mdkb.SearchArgs{Query: "x", Directory: "only"}); fault.CodeOf(err) != fault.NoMarkdown {
		t.Errorf("a scope with only .txt: %v", err)
	}
	if _, err := s2.Export(ctx, mdkb.ExportArgs{Format: "dot", Directory: "missing"}); fault.CodeOf(err) != fault.NoMarkdown {
		t.Errorf("a missing scope: %v", err)
	}
	data.Put(ctx, "kb-root/mixed/big.md", []byte(strings.Repeat("x", 101)), fileops.PutOptions{})
	data.Put(ctx, "kb-root/mixed/a.md", []byte("# A\n"), fileops.PutOptions{})
	data.Put(ctx, "kb-root/mixed/b.MD", []byte("# B\n"), fileops.PutOptions{})
	data.Put(ctx, "kb-root/mixed/c.md", []byte("# C\n"), fileops.PutOptions{})
	data.Put(ctx, "kb-root/mixed/bin.md", []byte("\xff\xfe"), fileops.PutOptions{})
	res, err := s2.Search(ctx, mdkb.SearchArgs{Query: "a", Directory: "mixed"})
	if err != nil {
		t.Fatal(err)
	}
	skipped := map[string]string{}
	for _, sk := range res.Skipped.Examples {
		skipped[sk.Path] = sk.Reason
	}
	if res.Skipped.Counts["tooLarge"] != 1 || res.Skipped.Counts["overFileLimit"] != 2 {
		t.Errorf("counts %v", res.Skipped.Counts)
	}
	if res.DocumentCount != 2 || skipped["mixed/big.md"] != "tooLarge" || skipped["mixed/c.md"] != "overFileLimit" {
		t.Errorf("documents %d, skipped %v", res.DocumentCount, skipped)
	}
	// Keys that are not valid paths are counted, never shown or read.
	for _, k := range []string{"kb-root/odd/../escape.md", "kb-root/odd//double.md", "kb-root/odd/ctl\x01.md"} {
		data.Put(ctx, k, []byte("# Hostile\n"), fileops.PutOptions{})
	}
	data.Put(ctx, "kb-root/odd/fine.md", []byte("# Fine\n"), fileops.PutOptions{})
	res, err = s2.Search(ctx, mdkb.SearchArgs{Query: "hostile fine", Directory: "odd"})
	if err != nil {
		t.Fatal(err)
	}
	if res.DocumentCount != 1 || res.FilesSkipped == nil || res.FilesSkipped.InvalidName != 3 || strings.Contains(jsonString(res), "escape") {
		t.Errorf("hostile keys: documents %d, filesSkipped %+v", res.DocumentCount, res.FilesSkipped)
	}
	data.Put(ctx, "kb-root/binonly/x.md", []byte("\x00"), fileops.PutOptions{})
	if _, err := s2.Search(ctx, mdkb.SearchArgs{Query: "a", Directory: "binonly"}); fault.CodeOf(err) != fault.NoMarkdown {
		t.Errorf("only binary markdown: %v", err)
	}
}

func TestPathologicalInputsFinishQuickly(t *testing.T) {
	for name, src := range map[string]string{
		"brackets":     strings.Repeat("[", 100000),
		"wiki":         strings.Repeat("[[a", 50000),
		"nested quote": strings.Repeat(">", 10000) + " x",
		"nested list":  strings.Repeat("- ", 5000) + "x",
		"emphasis":     strings.Repeat("*a", 50000),
		"links":        strings.Repeat("[x](y.md)", 20000),
		"front matter": "---\n" + strings.Repeat("a: [", 5000) + "\n---\n",
	} {
		start := time.Now()
		d := mdkb.Parse("p.md", `"e"`, []byte(src))
		mdkb.Build([]*mdkb.DocInfo{d})
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s took %v", name, took)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"# T\n[a](b.md) [[C]]", "---\ntitle: x\n---\n", "---\n: :\n", "[[", "```\n[[x]]\n```", "\r\n---\r\ntags: [a]\r\n---\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		d := mdkb.Parse("dir/doc.md", `"e"`, []byte(src))
		g := mdkb.Build([]*mdkb.DocInfo{d, mdkb.Parse("other.md", `"f"`, []byte(src))})
		if d.Title == "" {
			t.Fatal("a document without a title")
		}
		g.Turtle()
		g.Mermaid()
		g.DOT()
		g.Search("a", 10)
	})
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// However many files a scope skips, the answer names at most 20 of them
// and counts them all by reason.
func TestSkippedFilesAreSummarized(t *testing.T) {
	ctx := context.Background()
	data := memstore.New()
	for i := range 45 {
		data.Put(ctx, fmt.Sprintf("kb-root/big/%02d.md", i), []byte(strings.Repeat("x", 101)), fileops.PutOptions{})
	}
	data.Put(ctx, "kb-root/big/ok.md", []byte("# OK\n"), fileops.PutOptions{})
	s := newService(t, data, nil, func(l *mdkb.Limits) { l.MaximumFileBytes = 100 })
	res, err := s.Search(ctx, mdkb.SearchArgs{Query: "ok", Directory: "big"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped == nil || res.Skipped.Counts["tooLarge"] != 45 || len(res.Skipped.Examples) != 20 || res.Skipped.Examples[0].Path != "big/00.md" {
		t.Errorf("skipped = %+v", res.Skipped)
	}
	if b, _ := json.Marshal(res); len(b) > 4096 {
		t.Errorf("the answer for 45 skipped files is %d bytes", len(b))
	}
}
