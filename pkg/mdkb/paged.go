package mdkb

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// paged is an export cut into units that a page holds whole: Turtle's
// subject blocks, JSON-LD's node objects, Mermaid's and DOT's edges (and
// nodes without edges). A page is the header, its units and the footer,
// and, for Mermaid and DOT, the declarations of the nodes its units draw,
// so that every page is a valid document of its format on its own.
type paged struct {
	header, sep, footer string
	units               []string
	needs               [][]int  // the declarations each unit draws on
	decls               []string // node declarations, each a line
	maxUnits, maxChars  int      // per page; 0: no bound but the bytes
}

// Mermaid's defaults (mermaid.js config: maxEdges 500, maxTextSize 50,000):
// a page over either is not rendered.
const (
	mermaidMaxEdges    = 500
	mermaidMaxTextSize = 50000
)

// page renders the page that starts at unit from, within maxBytes (and the
// format's bounds), and returns it with the index of the next page's first
// unit (len(units) at the end). A page holds at least one unit.
func (p *paged) page(from, maxBytes int) (string, int) {
	size := len(p.header) + len(p.footer)
	declared := map[int]bool{}
	var order []int
	to := from
	for to < len(p.units) {
		add := len(p.units[to])
		if to > from {
			add += len(p.sep)
		}
		var fresh []int
		for _, d := range p.needs[to] {
			if !declared[d] && !contains(fresh, d) {
				fresh = append(fresh, d)
				add += len(p.decls[d])
			}
		}
		over := size+add > maxBytes || p.maxUnits > 0 && to-from == p.maxUnits || p.maxChars > 0 && size+add > p.maxChars
		if over && to > from {
			break
		}
		size += add
		for _, d := range fresh {
			declared[d] = true
			order = append(order, d)
		}
		to++
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(p.header)
	sort.Ints(order)
	for _, d := range order {
		b.WriteString(p.decls[d])
	}
	for i := from; i < to; i++ {
		if i > from {
			b.WriteString(p.sep)
		}
		b.WriteString(p.units[i])
	}
	b.WriteString(p.footer)
	return b.String(), to
}

// whole renders every unit on one page.
func (p *paged) whole() string {
	all := *p
	all.maxUnits, all.maxChars = 0, 0
	s, _ := all.page(0, math.MaxInt)
	return s
}

// export returns the graph's export in a format, cut into units, rendered
// once per graph: the pages of one export read the same rendering.
func (g *Graph) export(format string) (*paged, error) {
	g.exportsMu.Lock()
	defer g.exportsMu.Unlock()
	if p, ok := g.exports[format]; ok {
		return p, nil
	}
	var p *paged
	var err error
	switch format {
	case "jsonld":
		p, err = g.jsonldPaged()
	case "turtle":
		p = g.turtlePaged()
	case "mermaid":
		p = g.drawingPaged(true)
	case "dot":
		p = g.drawingPaged(false)
	default:
		err = fmt.Errorf("no export format %q", format)
	}
	if err != nil {
		return nil, err
	}
	if g.exports == nil {
		g.exports = map[string]*paged{}
	}
	g.exports[format] = p
	return p, nil
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// turtlePaged is Turtle by subject block.
func (g *Graph) turtlePaged() *paged {
	var h strings.Builder
	for _, p := range Prefixes {
		fmt.Fprintf(&h, "@prefix %s: <%s> .\n", p[0], p[1])
	}
	bySubject := map[string][]Triple{}
	for _, t := range g.Triples() {
		bySubject[t.S] = append(bySubject[t.S], t)
	}
	p := &paged{header: h.String()}
	for _, s := range sortedKeys(bySubject) {
		var b strings.Builder
		b.WriteString("\n" + curie(s))
		for i, t := range bySubject[s] {
			sep := " ;\n    "
			if i == 0 {
				sep = "\n    "
			}
			pred := curie(t.P)
			if t.P == RDFType {
				pred = "a"
			}
			b.WriteString(sep + pred + " ")
			if t.O.Literal {
				b.WriteString(quote(t.O.Value))
				if t.O.Datatype != "" && t.O.Datatype != XSDString {
					b.WriteString("^^" + curie(t.O.Datatype))
				}
			} else {
				b.WriteString(curie(t.O.Value))
			}
		}
		b.WriteString(" .\n")
		p.units = append(p.units, b.String())
		p.needs = append(p.needs, nil)
	}
	return p
}

// jsonldPaged is compacted JSON-LD by node object, each page with the one
// context.
func (g *Graph) jsonldPaged() (*paged, error) {
	full, err := g.JSONLD()
	if err != nil {
		return nil, err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(full), &doc); err != nil {
		return nil, err
	}
	ctx, _ := json.MarshalIndent(Context(), "  ", "  ")
	p := &paged{header: "{\n  \"@context\": " + string(ctx) + ",\n  \"@graph\": [\n    ", sep: ",\n    ", footer: "\n  ]\n}"}
	var nodes []json.RawMessage
	if raw, ok := doc["@graph"]; ok {
		if err := json.Unmarshal(raw, &nodes); err != nil {
			return nil, err
		}
	} else {
		delete(doc, "@context")
		one, _ := json.Marshal(doc)
		nodes = []json.RawMessage{one}
	}
	for _, n := range nodes {
		var v any
		json.Unmarshal(n, &v)
		b, _ := json.MarshalIndent(v, "    ", "  ")
		p.units = append(p.units, string(b))
		p.needs = append(p.needs, nil)
	}
	return p, nil
}

// mermaidLabel makes a label plain text for Mermaid: no Markdown marks, no
// HTML, quotes as Mermaid's entity codes.
func mermaidLabel(s string) string {
	return strings.NewReplacer(`"`, "#quot;", "\n", " ", "`", "", "**", "", "__", "", "[[", "", "]]", "",
		"<", "#60;", ">", "#62;").Replace(s)
}

// drawingPaged is Mermaid or DOT by edge (then nodes without edges), each
// page declaring the nodes it draws.
func (g *Graph) drawingPaged(mermaid bool) *paged {
	ids := g.ids()
	index := map[string]int{}
	p := &paged{}
	for i, n := range g.Nodes {
		index[n.ID] = i
		var decl string
		switch {
		case mermaid && n.Path != "":
			decl = fmt.Sprintf("  %s[\"%s\"]\n", ids[n.ID], mermaidLabel(n.Shown))
		case mermaid:
			decl = fmt.Sprintf("  %s([\"%s\"])\n", ids[n.ID], mermaidLabel(n.Shown))
		default:
			shape := "box"
			if n.Path == "" {
				shape = "ellipse"
			}
			decl = fmt.Sprintf("  %s [label=%s, shape=%s];\n", ids[n.ID], strconv.Quote(n.Shown), shape)
		}
		p.decls = append(p.decls, decl)
	}
	drawn := make([]bool, len(g.Nodes))
	for _, e := range g.edges() {
		s, ok1 := index[e.S]
		o, ok2 := index[e.O.Value]
		if !ok1 || !ok2 {
			continue
		}
		drawn[s], drawn[o] = true, true
		if mermaid {
			p.units = append(p.units, fmt.Sprintf("  %s -->|%s| %s\n", ids[e.S], localName(e.P), ids[e.O.Value]))
		} else {
			p.units = append(p.units, fmt.Sprintf("  %s -> %s [label=%s];\n", ids[e.S], ids[e.O.Value], strconv.Quote(localName(e.P))))
		}
		p.needs = append(p.needs, []int{s, o})
	}
	for i := range g.Nodes {
		if !drawn[i] {
			p.units = append(p.units, "")
			p.needs = append(p.needs, []int{i})
		}
	}
	if mermaid {
		p.header, p.maxUnits, p.maxChars = "graph LR\n", mermaidMaxEdges, mermaidMaxTextSize
	} else {
		p.header = "digraph kb {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n"
		p.footer = "}\n"
	}
	return p
}

// exportCursor says where the next page of an export starts: the format,
// the graph (its listing's fingerprint) and the first unit.
type exportCursor struct {
	Format      string `json:"f"`
	Fingerprint string `json:"g"`
	Unit        int    `json:"u"`
}

func (c exportCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeExportCursor(s string) (exportCursor, bool) {
	var c exportCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Unit <= 0 || c.Format == "" {
		return c, false
	}
	return c, true
}
