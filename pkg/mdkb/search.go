package mdkb

import (
	"sort"
	"strings"
)

// Match is one search hit.
type Match struct {
	NodeID      string  `json:"nodeId"`
	Label       string  `json:"label"`
	Description string  `json:"description,omitempty"`
	Path        string  `json:"path,omitempty"`
	Score       float64 `json:"score"`
	Source      string  `json:"source"` // the field that matched: label, description, keywords, related, body
}

// Scores of the ranking (CONTRACT §7): labels first, then descriptions,
// keywords and related labels, then body text.
const (
	ScoreLabelExact    = 1.0
	ScoreLabelContains = 0.95
	ScoreDescription   = 0.75
	ScoreKeyword       = 0.65
	ScoreBodyPhrase    = 0.5
	ScoreBodyTerms     = 0.4
)

// Search ranks the nodes of g against query (case-insensitive) and returns
// at most max matches, best first, ties by label.
func (g *Graph) Search(query string, max int) []Match {
	q := strings.ToLower(strings.TrimSpace(query))
	terms := strings.Fields(q)
	var out []Match
	for _, n := range g.Nodes {
		score, source := rank(n, q, terms)
		if score == 0 {
			continue
		}
		out = append(out, Match{NodeID: n.ID, Label: n.Label, Description: n.Description, Path: n.Path, Score: score, Source: source})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		li, lj := strings.ToLower(out[i].Label), strings.ToLower(out[j].Label)
		if li != lj {
			return li < lj
		}
		return out[i].NodeID < out[j].NodeID
	})
	if len(out) > max {
		out = out[:max]
	}
	if out == nil {
		out = []Match{}
	}
	return out
}

func rank(n *Node, q string, terms []string) (float64, string) {
	label := strings.ToLower(n.Label)
	switch {
	case label == q:
		return ScoreLabelExact, "label"
	case strings.Contains(label, q):
		return ScoreLabelContains, "label"
	case strings.Contains(strings.ToLower(n.Description), q):
		return ScoreDescription, "description"
	}
	for _, k := range n.Keywords {
		if strings.Contains(strings.ToLower(k), q) {
			return ScoreKeyword, "keywords"
		}
	}
	for _, r := range n.Related {
		if strings.Contains(strings.ToLower(r), q) {
			return ScoreKeyword, "related"
		}
	}
	if n.Body == "" {
		return 0, ""
	}
	if strings.Contains(n.Body, q) {
		return ScoreBodyPhrase, "body"
	}
	if len(terms) > 1 {
		for _, t := range terms {
			if !strings.Contains(n.Body, t) {
				return 0, ""
			}
		}
		return ScoreBodyTerms, "body"
	}
	return 0, ""
}
