package mdkb

import (
	"context"
	"sort"

	"github.com/filecontext-aws/filecontext/pkg/fault"
)

// RelatedArgs are the arguments of file_context_markdown_graph_related.
type RelatedArgs struct {
	Path       string
	Direction  string // "out", "in" or "both" (the default)
	Depth      int    // 1 (the default) or 2
	Directory  string // the scope whose graph is used; the root by default
	MaxResults int
}

// RelatedResult is a document's neighbourhood.
type RelatedResult struct {
	Path      string        `json:"path"`
	Title     string        `json:"title"`
	Direction string        `json:"direction"`
	Depth     int           `json:"depth"`
	Links     []RelatedLink `json:"links"`
	// Truncated says more links were found than MaxResults allowed (Limit
	// "maxResults").
	Truncated bool         `json:"truncated"`
	Limit     string       `json:"limit,omitempty"`
	Snapshot  SnapshotInfo `json:"snapshot"`
}

// RelatedLink is one document of the neighbourhood: reached by a link out
// of the document (or of Via, at depth 2), or by a link into it.
type RelatedLink struct {
	Direction string `json:"direction"` // "out" or "in"
	Depth     int    `json:"depth"`
	Path      string `json:"path"`
	Title     string `json:"title"`
	Predicate string `json:"predicate"`          // mentions, related, nextStep or a graph_edges word
	LinkText  string `json:"linkText,omitempty"` // the link's text
	Via       string `json:"via,omitempty"`      // at depth 2: the document in between
}

const (
	defaultRelatedResults = 50
	maxRelatedResults     = 200
)

// Related lists the documents that a document links to and that link to
// it, at depth 1 or 2, each at its nearest depth only (with every link that
// reaches it there), ordered by depth, then out before in, then path.
func (s *Service) Related(ctx context.Context, a RelatedArgs) (*RelatedResult, error) {
	if a.Path == "" {
		return nil, fault.New(fault.InvalidArgument, "path must name a Markdown document.")
	}
	dirs := map[string][]string{"": {"out", "in"}, "both": {"out", "in"}, "out": {"out"}, "in": {"in"}}
	directions, ok := dirs[a.Direction]
	if !ok {
		return nil, fault.New(fault.InvalidArgument, `direction must be "out", "in" or "both", got %q.`, a.Direction)
	}
	depth := a.Depth
	switch {
	case depth == 0:
		depth = 1
	case depth < 0 || depth > 2:
		return nil, fault.New(fault.InvalidArgument, "depth must be 1 or 2, got %d.", depth)
	}
	n := a.MaxResults
	switch {
	case n == 0:
		n = defaultRelatedResults
	case n < 0:
		return nil, fault.New(fault.InvalidArgument, "maxResults must be positive, got %d.", n)
	}
	n = min(n, maxRelatedResults)
	p, err := s.root.Parse(a.Path)
	if err != nil {
		return nil, err
	}
	st, dir, err := s.loadDir(ctx, a.Directory)
	if err != nil {
		return nil, err
	}
	g := st.graph
	start := sort.Search(g.Documents, func(i int) bool { return g.Nodes[i].Path >= p.String() })
	if start == g.Documents || g.Nodes[start].Path != p.String() {
		return nil, fault.New(fault.NotFound, "'%s' is not a document of the graph of '%s'; search the graph for its path.", p.String(), dir.String()).WithPath(p.String())
	}
	res := &RelatedResult{Path: p.String(), Title: g.Nodes[start].Label, Direction: "both", Depth: depth, Links: []RelatedLink{}, Snapshot: st.snap}
	if len(directions) == 1 {
		res.Direction = directions[0]
	}
	var all []RelatedLink
	for _, d := range directions {
		adj := g.Links
		if d == "in" {
			adj = g.backlinks()
		}
		seen := map[int]bool{start: true}
		level := []int{start}
		for k := 1; k <= depth; k++ {
			var next []int
			reached := map[int]bool{}
			for _, from := range level {
				for _, l := range adj[from] {
					if seen[l.To] {
						continue
					}
					if !reached[l.To] {
						reached[l.To] = true
						next = append(next, l.To)
					}
					rl := RelatedLink{Direction: d, Depth: k, Path: g.Nodes[l.To].Path, Title: g.Nodes[l.To].Label, Predicate: l.Predicate, LinkText: l.Text}
					if k > 1 {
						rl.Via = g.Nodes[from].Path
					}
					all = append(all, rl)
				}
			}
			for _, t := range next {
				seen[t] = true
			}
			level = next
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.Depth != b.Depth {
			return a.Depth < b.Depth
		}
		if a.Direction != b.Direction {
			return a.Direction == "out"
		}
		return a.Path < b.Path
	})
	if len(all) > n {
		all, res.Truncated, res.Limit = all[:n], true, "maxResults"
	}
	res.Links = append(res.Links, all...)
	return res, nil
}

// backlinks returns the links into each document: for document i, the
// links of other documents to it, with To naming the linking document.
func (g *Graph) backlinks() [][]DocLink {
	g.backOnce.Do(func() {
		g.back = make([][]DocLink, len(g.Links))
		for from, links := range g.Links {
			for _, l := range links {
				g.back[l.To] = append(g.back[l.To], DocLink{To: from, Predicate: l.Predicate, Text: l.Text})
			}
		}
	})
	return g.back
}
