package mdkb

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"sort"
	"strings"
)

// The stored form of a snapshot: the magic, then uvarints and strings. Every
// string is written once, in a table ahead of the rest, and read back as a
// slice of the one string the object is read into, so decoding allocates
// little besides the slices of structs. A snapshot keeps the documents
// without their bodies, each document's part of the graph (without its
// statements, which are made again only for an export), the body index
// and the search index: a new process searches without parsing, resolving
// or tokenizing anything.
//
//	magic "FCKB" | uvarint version | uvarint count of strings |
//	uvarint length of each string | the strings' bytes | the payload
const snapshotMagic = "FCKB"

var errCorrupt = errors.New("mdkb: the snapshot is corrupt")

// encoder writes the payload and collects its strings.
type encoder struct {
	buf  []byte
	ids  map[string]uint64
	strs []string
}

func (e *encoder) uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) int(v int)     { e.uint(uint64(v)) }

func (e *encoder) str(s string) {
	id, ok := e.ids[s]
	if !ok {
		id = uint64(len(e.strs))
		e.ids[s] = id
		e.strs = append(e.strs, s)
	}
	e.uint(id)
}

// each writes each of ss.
func (e *encoder) each(ss ...string) {
	for _, s := range ss {
		e.str(s)
	}
}

func (e *encoder) list(l []string) {
	e.int(len(l))
	for _, s := range l {
		e.str(s)
	}
}

func (e *encoder) triples(ts []Triple) {
	e.int(len(ts))
	for _, t := range ts {
		e.each(t.S, t.P, t.O.Value)
		if t.O.Literal {
			e.uint(1)
			e.str(t.O.Datatype)
		} else {
			e.uint(0)
		}
	}
}

// bytes returns the whole encoding: header, string table, payload.
func (e *encoder) bytes(version int) []byte {
	out := append([]byte(snapshotMagic), binary.AppendUvarint(nil, uint64(version))...)
	out = binary.AppendUvarint(out, uint64(len(e.strs)))
	size := 0
	for _, s := range e.strs {
		out = binary.AppendUvarint(out, uint64(len(s)))
		size += len(s)
	}
	out = append(make([]byte, 0, len(out)+size+len(e.buf)), out...)
	for _, s := range e.strs {
		out = append(out, s...)
	}
	return append(out, e.buf...)
}

// encodeSnapshot returns the stored form of a snapshot whose graph is
// built.
func encodeSnapshot(s *snapshot) []byte {
	g := s.graph
	e := &encoder{ids: map[string]uint64{}}
	e.each(s.Scope, s.Fingerprint)
	e.int(len(s.Skips))
	for _, sk := range s.Skips {
		e.each(sk.Path, sk.ETag, sk.Reason)
	}
	e.str(g.names)
	e.int(len(g.parts))
	for _, p := range g.parts {
		encodeDoc(e, p.doc)
		e.int(p.statements)
		e.triples(p.foreign)
		e.int(len(p.named))
		for _, n := range p.named {
			e.each(n.ID, n.Type, n.Name, n.Description)
		}
		e.int(len(p.links))
		for _, l := range p.links {
			e.int(l.To)
			e.each(l.Predicate, l.Text)
		}
		e.list(p.related)
		e.list(p.unresolved)
	}
	b := g.body
	for _, n := range b.lens {
		e.uint(uint64(n))
	}
	e.int(len(b.words))
	for k, w := range b.words {
		e.str(w)
		e.int(len(b.postings[k]))
		last := int32(0)
		for _, p := range b.postings[k] {
			e.uint(uint64(p.doc - last))
			e.uint(uint64(p.tf))
			last = p.doc
		}
	}
	ix := g.index()
	for _, l := range ix.lens {
		for f := range numFields {
			if f != fieldBody {
				e.uint(uint64(l[f]))
			}
		}
	}
	e.int(len(ix.vocab))
	for k, w := range ix.vocab {
		e.str(w)
		e.int(len(ix.postings[k]))
		last := int32(0)
		for _, p := range ix.postings[k] {
			e.uint(uint64(p.node - last))
			last = p.node
			var mask uint64
			for f := range numFields {
				if p.tf[f] > 0 {
					mask |= 1 << f
				}
			}
			e.uint(mask)
			for f := range numFields {
				if p.tf[f] > 0 {
					e.uint(uint64(p.tf[f]))
				}
			}
		}
	}
	return e.bytes(snapshotVersion)
}

func encodeDoc(e *encoder, d *DocInfo) {
	e.each(d.Path, d.ETag, d.Title, d.TitleFrom, d.Description, d.DatePublished, d.DateModified)
	for _, l := range [][]string{d.Keywords, d.About, d.Authors, d.Groups, d.Related, d.NextSteps, d.Links, d.LinkTexts, d.WikiLinks, d.WikiTexts, d.Aliases, d.Warnings} {
		e.list(l)
	}
	e.int(len(d.Entities))
	for _, x := range d.Entities {
		e.each(x.Name, x.Type, x.Description)
	}
	e.int(len(d.Edges))
	for _, x := range d.Edges {
		e.each(x.Subject, x.Predicate, x.Object)
	}
	keys := make([]string, 0, len(d.Extra))
	for k := range d.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	e.int(len(keys))
	for _, k := range keys {
		e.each(k, d.Extra[k])
	}
}

// decoder reads what encoder wrote; the first fault sticks and zeroes
// every later value.
type decoder struct {
	data string
	pos  int
	strs []string
	err  error
}

func (d *decoder) uint() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if d.err != nil || d.pos >= len(d.data) {
			d.err = errCorrupt
			return 0
		}
		c := d.data[d.pos]
		d.pos++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	d.err = errCorrupt
	return 0
}

// count reads a length, at most what the rest of the data could hold.
func (d *decoder) count() int {
	n := d.uint()
	if n > uint64(len(d.data)-d.pos) {
		d.err = errCorrupt
		return 0
	}
	return int(n)
}

// index reads a number below n.
func (d *decoder) index(n int) int {
	v := d.uint()
	if v >= uint64(n) {
		d.err = errCorrupt
		return 0
	}
	return int(v)
}

func (d *decoder) str() string {
	id := d.uint()
	if id >= uint64(len(d.strs)) {
		d.err = errCorrupt
		return ""
	}
	return d.strs[id]
}

func (d *decoder) list() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = d.str()
	}
	return l
}

func (d *decoder) triples() []Triple {
	n := d.count()
	if n == 0 {
		return nil
	}
	ts := make([]Triple, n)
	for i := range ts {
		ts[i] = Triple{S: d.str(), P: d.str(), O: Term{Value: d.str()}}
		if d.uint() == 1 {
			ts[i].O.Literal = true
			ts[i].O.Datatype = d.str()
		}
	}
	return ts
}

// readSnapshotFrom decodes a stored snapshot of size bytes (a hint), with
// its graph. It fails on another version or on damage.
func readSnapshotFrom(r io.Reader, size int64) (*snapshot, error) {
	var b strings.Builder
	if size > 0 {
		b.Grow(int(size))
	}
	if _, err := io.Copy(&b, r); err != nil {
		return nil, err
	}
	d := &decoder{data: b.String()}
	if !strings.HasPrefix(d.data, snapshotMagic) {
		return nil, errCorrupt
	}
	d.pos = len(snapshotMagic)
	if v := d.uint(); v != snapshotVersion {
		return nil, errors.New("mdkb: the snapshot is of another version")
	}
	d.strs = make([]string, d.count())
	lens := make([]int, len(d.strs))
	total := 0
	for i := range lens {
		lens[i] = d.count()
		total += lens[i]
	}
	if d.err != nil || total > len(d.data)-d.pos {
		return nil, errCorrupt
	}
	for i, n := range lens {
		d.strs[i] = d.data[d.pos : d.pos+n]
		d.pos += n
	}
	s := &snapshot{Scope: d.str(), Fingerprint: d.str()}
	s.Skips = make([]skippedFile, d.count())
	for i := range s.Skips {
		s.Skips[i] = skippedFile{Path: d.str(), ETag: d.str(), Reason: d.str()}
	}
	fp := d.str()
	parts := make([]*docPart, d.count())
	s.Docs = make([]*DocInfo, len(parts))
	for i := range parts {
		doc := decodeDoc(d)
		p := &docPart{doc: doc, statements: d.index(math.MaxInt32), foreign: d.triples()}
		if n := d.count(); n > 0 {
			p.named = make([]namedRef, n)
			for k := range p.named {
				p.named[k] = namedRef{ID: d.str(), Type: d.str(), Name: d.str(), Description: d.str()}
			}
		}
		if n := d.count(); n > 0 {
			p.links = make([]DocLink, n)
			for k := range p.links {
				p.links[k] = DocLink{To: d.index(len(parts)), Predicate: d.str(), Text: d.str()}
			}
		}
		p.related = d.list()
		p.unresolved = d.list()
		parts[i], s.Docs[i] = p, doc
		if d.err != nil {
			return nil, d.err
		}
	}
	body := &bodyIndex{lens: make([]uint32, len(parts))}
	for i := range body.lens {
		body.lens[i] = uint32(d.uint())
	}
	body.words = make([]string, d.count())
	body.postings = make([][]bodyPosting, len(body.words))
	for k := range body.words {
		body.words[k] = d.str()
		list := make([]bodyPosting, d.count())
		doc := 0
		for j := range list {
			doc += int(d.uint())
			if doc >= len(parts) {
				return nil, errCorrupt
			}
			list[j] = bodyPosting{doc: int32(doc), tf: uint32(d.uint())}
		}
		body.postings[k] = list
		if d.err != nil {
			return nil, d.err
		}
	}
	body.average()
	g := assemble(parts, fp)
	g.body = body
	ix, err := decodeSearchIndex(d, len(g.Nodes))
	if err != nil || d.pos != len(d.data) {
		return nil, errCorrupt
	}
	g.finishIndex(ix)
	g.indexOnce.Do(func() { g.search = ix })
	s.graph = g
	return s, nil
}

// decodeSearchIndex reads the search index of a graph of n nodes.
func decodeSearchIndex(d *decoder, n int) (*searchIndex, error) {
	ix := &searchIndex{lens: make([][numFields]uint32, n)}
	for i := range ix.lens {
		for f := range numFields {
			if f != fieldBody {
				ix.lens[i][f] = uint32(d.uint())
			}
		}
	}
	ix.vocab = make([]string, d.count())
	ix.postings = make([][]posting, len(ix.vocab))
	for k := range ix.vocab {
		ix.vocab[k] = d.str()
		list := make([]posting, d.count())
		node := 0
		for j := range list {
			node += int(d.uint())
			if node >= n {
				return nil, errCorrupt
			}
			list[j].node = int32(node)
			mask := d.uint()
			for f := range numFields {
				if mask&(1<<f) != 0 {
					list[j].tf[f] = uint8(d.uint())
				}
			}
		}
		ix.postings[k] = list
		if d.err != nil {
			return nil, d.err
		}
	}
	return ix, d.err
}

func decodeDoc(d *decoder) *DocInfo {
	doc := &DocInfo{Path: d.str(), ETag: d.str(), Title: d.str(), TitleFrom: d.str(), Description: d.str(), DatePublished: d.str(), DateModified: d.str()}
	for _, l := range []*[]string{&doc.Keywords, &doc.About, &doc.Authors, &doc.Groups, &doc.Related, &doc.NextSteps, &doc.Links, &doc.LinkTexts, &doc.WikiLinks, &doc.WikiTexts, &doc.Aliases, &doc.Warnings} {
		*l = d.list()
	}
	if n := d.count(); n > 0 {
		doc.Entities = make([]Entity, n)
		for i := range doc.Entities {
			doc.Entities[i] = Entity{Name: d.str(), Type: d.str(), Description: d.str()}
		}
	}
	if n := d.count(); n > 0 {
		doc.Edges = make([]Edge, n)
		for i := range doc.Edges {
			doc.Edges[i] = Edge{Subject: d.str(), Predicate: d.str(), Object: d.str()}
		}
	}
	if n := d.count(); n > 0 {
		doc.Extra = make(map[string]string, n)
		for range n {
			k := d.str()
			doc.Extra[k] = d.str()
		}
	}
	return doc
}
