package mdkb

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/piprate/json-gold/ld"
)

// Context is the one JSON-LD context of the exports.
func Context() map[string]any {
	c := map[string]any{}
	for _, p := range Prefixes {
		c[p[0]] = p[1]
	}
	return c
}

// ContextURL is the only document the JSON-LD loader knows.
const ContextURL = Base + "context.jsonld"

// offlineLoader refuses every URL but the project's own context: json-gold
// never fetches a remote or local document.
type offlineLoader struct{}

// ErrRemoteDocument is returned for any document the loader refuses.
var ErrRemoteDocument = errors.New("remote JSON-LD documents are never loaded")

func (offlineLoader) LoadDocument(u string) (*ld.RemoteDocument, error) {
	if u == ContextURL {
		return &ld.RemoteDocument{DocumentURL: u, Document: map[string]any{"@context": Context()}}, nil
	}
	return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed, fmt.Errorf("%w: %s", ErrRemoteDocument, u))
}

// JSONLDOptions are json-gold options with the offline loader.
func JSONLDOptions() *ld.JsonLdOptions {
	o := ld.NewJsonLdOptions("")
	o.DocumentLoader = offlineLoader{}
	return o
}

// NQuads renders the triples as N-Triples.
func (g *Graph) NQuads() string {
	var b strings.Builder
	for _, t := range g.Triples() {
		b.WriteString("<" + t.S + "> <" + t.P + "> ")
		if t.O.Literal {
			b.WriteString(quote(t.O.Value))
			if t.O.Datatype != "" && t.O.Datatype != XSDString {
				b.WriteString("^^<" + t.O.Datatype + ">")
			}
		} else {
			b.WriteString("<" + t.O.Value + ">")
		}
		b.WriteString(" .\n")
	}
	return b.String()
}

// quote escapes a literal for N-Triples and Turtle.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// JSONLD renders the graph as compacted JSON-LD with the one context.
func (g *Graph) JSONLD() (string, error) {
	proc := ld.NewJsonLdProcessor()
	opts := JSONLDOptions()
	expanded, err := proc.FromRDF(g.NQuads(), opts)
	if err != nil {
		return "", fmt.Errorf("json-ld from rdf: %w", err)
	}
	compacted, err := proc.Compact(expanded, map[string]any{"@context": Context()}, opts)
	if err != nil {
		return "", fmt.Errorf("json-ld compact: %w", err)
	}
	b, err := json.MarshalIndent(compacted, "", "  ")
	return string(b), err
}

// curie shortens an IRI with the prefixes, or brackets it.
func curie(iri string) string {
	for _, p := range Prefixes {
		if local, ok := strings.CutPrefix(iri, p[1]); ok && validLocal(local) {
			return p[0] + ":" + local
		}
	}
	return "<" + iri + ">"
}

// validLocal reports whether a local name is safe unescaped in Turtle.
func validLocal(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || (i > 0 && r == '-')) {
			return false
		}
	}
	return true
}

// Turtle renders the graph with @prefix lines, statements grouped by
// subject.
func (g *Graph) Turtle() string { return g.turtlePaged().whole() }

// edges returns the IRI-to-IRI statements between nodes, without types.
func (g *Graph) edges() []Triple {
	var out []Triple
	for _, t := range g.Triples() {
		if !t.O.Literal && t.P != RDFType && t.P != ProvNS+"wasDerivedFrom" {
			out = append(out, t)
		}
	}
	return out
}

// ids numbers the nodes for Mermaid and DOT.
func (g *Graph) ids() map[string]string {
	ids := map[string]string{}
	for i, n := range g.Nodes {
		ids[n.ID] = "n" + strconv.Itoa(i+1)
	}
	return ids
}

func localName(iri string) string {
	c := curie(iri)
	if i := strings.IndexByte(c, ':'); i >= 0 && !strings.HasPrefix(c, "<") {
		return c[i+1:]
	}
	return iri[strings.LastIndexAny(iri, "/#")+1:]
}

// Mermaid renders the graph as a Mermaid flowchart, whole (an export pages
// it within Mermaid's defaults).
func (g *Graph) Mermaid() string { return g.drawingPaged(true).whole() }

// DOT renders the graph for Graphviz.
func (g *Graph) DOT() string { return g.drawingPaged(false).whole() }

// Formats maps the accepted spellings of a format to its name.
var Formats = map[string]string{
	"jsonld": "jsonld", "json-ld": "jsonld", "turtle": "turtle", "ttl": "turtle", "mermaid": "mermaid", "dot": "dot",
}

// FormatNames lists the formats for messages.
func FormatNames() string {
	names := []string{}
	for k := range Formats {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// cut truncates s to at most n bytes on a character boundary.
func cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
