// Package mdkb turns the Markdown files of a scope into a linked-data graph
// (CONTRACT §7): each document a schema:Article with its front-matter
// metadata, links and wiki links as schema:mentions edges between documents,
// and the markdown-ld-kb front-matter conventions as edges to entities,
// groups and other documents. It ranks search over the graph, exports it as
// JSON-LD (through json-gold), Turtle, Mermaid and DOT, and keeps snapshots
// that are reused only when their manifest of keys and ETags equals the
// current listing.
//
// Parsing is the expensive part, so it is done per document and cached by
// ETag (DocInfo); the graph is assembled from the parsed documents on every
// call, which resolves links against the documents currently in scope.
package mdkb

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
	"unicode"
)

// Vocabularies.
const (
	Base      = "https://kb.filecontext.invalid/"
	SchemaNS  = "https://schema.org/"
	ProvNS    = "http://www.w3.org/ns/prov#"
	KBNS      = Base + "ns#"
	RDFType   = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
	XSDDate   = "http://www.w3.org/2001/XMLSchema#date"
	XSDString = "http://www.w3.org/2001/XMLSchema#string"
)

// Prefixes are the compact names every export uses.
var Prefixes = [][2]string{{"schema", SchemaNS}, {"prov", ProvNS}, {"kb", KBNS}, {"xsd", "http://www.w3.org/2001/XMLSchema#"}, {"rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"}}

// Term is an RDF term: an IRI, or a literal with a datatype.
type Term struct {
	Value    string `json:"v"`
	Literal  bool   `json:"l,omitempty"`
	Datatype string `json:"d,omitempty"` // "" is xsd:string
}

// IRI returns an IRI term.
func IRI(v string) Term { return Term{Value: v} }

// Lit returns a plain literal.
func Lit(v string) Term { return Term{Value: v, Literal: true} }

// Triple is one statement.
type Triple struct {
	S, P string
	O    Term
}

// docIRI is the stable IRI of a document, from its logical path.
func docIRI(path string) string { return Base + "doc/" + escapePath(path) }

// fileIRI is the source a document was derived from.
func fileIRI(path string) string { return Base + "file/" + escapePath(path) }

// nodeIRI is the IRI of a named node of a kind (entity, person, group).
// Names that differ only in letter case or spacing are one name; other
// different names never share an IRI: the readable slug is kept as it is
// when it says everything the name does (letters and digits between single
// spaces), and gets a short hash of the name otherwise ("C++" and "C#" are
// c-<hash> and c-<other hash>, not both "c").
func nodeIRI(kind, name string) string {
	canon := strings.Join(strings.Fields(strings.ToLower(name)), " ")
	sl := slug(canon)
	if !plainName(canon) {
		sum := sha256.Sum256([]byte(canon))
		sl += "-" + hex.EncodeToString(sum[:4])
	}
	return Base + kind + "/" + url.PathEscape(sl)
}

// plainName reports whether a canonical name is words of letters and
// digits separated by single spaces, which its slug keeps whole.
func plainName(canon string) bool {
	if canon == "" {
		return false
	}
	for _, r := range canon {
		if r != ' ' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// slug lowercases a name and joins its words with '-'.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}
