package mdkb

import (
	"math"
	"path"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Match is one search hit.
type Match struct {
	NodeID      string  `json:"nodeId"`
	Label       string  `json:"label"`
	Description string  `json:"description,omitempty"`
	Path        string  `json:"path,omitempty"`
	Score       float64 `json:"score"`
	Source      string  `json:"source"` // the field that contributed most: label, name, keywords, related, description, body
	// TitleFrom says where a document's label came from: frontMatter,
	// heading (its # heading), subheading (a ## or deeper heading) or
	// fileName. A label that other documents share carries the path.
	TitleFrom string `json:"titleFrom,omitempty"`
}

// The ranking is BM25F (Robertson and Zaragoza, "The Probabilistic Relevance
// Framework: BM25 and Beyond", 2009): each field's term frequency is
// normalized by the field's length, weighted, summed, and saturated once per
// term, times the term's inverse document frequency.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
	// A query word found only as the start of a word (cost → costs) counts
	// at this fraction of a whole word; found inside a word (tar → start),
	// at the smaller one.
	prefixWeight    = 0.5
	substringWeight = 0.15
	// minPartialLen: shorter query words match whole words only.
	minPartialLen = 3
	// phraseChecked: the best candidates checked for the query as a phrase.
	phraseChecked = 50
)

// The fields of a node, and their weights: a title says most, then the file
// name, the description, keywords and aliases, related labels, then the
// body; the folders of the path say little.
const (
	fieldLabel = iota
	fieldName
	fieldKeywords
	fieldRelated
	fieldDescription
	fieldBody
	fieldFolders
	numFields
)

var fieldWeights = [numFields]float64{fieldLabel: 4, fieldName: 3, fieldDescription: 2.5, fieldKeywords: 2, fieldRelated: 1.5, fieldBody: 1, fieldFolders: 0.5}
var fieldNames = [numFields]string{"label", "name", "keywords", "related", "description", "body", "path"}

// stopWords are left out of a query's words (not out of its phrase) when
// the query has other words: they are in every document and say nothing of
// which one is meant.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be by can could do does did for from how i if in into is it its me
		my of on or our say says said should so than that the their them then there these this those to was we were what
		when where which who whom why will with would you your much many about`) {
		stopWords[w] = true
	}
}

// tokens splits text into lowercased words of letters and digits.
func tokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// posting is one node's term frequencies of one word, by field.
type posting struct {
	node int32
	tf   [numFields]uint8
}

// searchIndex is the inverted index of a graph's nodes, of every field but
// the body (the graph's bodyIndex): the words in byte order and, for each,
// the nodes that have it, in node order. It is made on the first search of
// a graph, or read with a stored snapshot.
type searchIndex struct {
	vocab    []string // the words, sorted
	postings [][]posting
	lens     [][numFields]uint32
	avg      [numFields]float64
	lower    []string // labels, lowercased, for ties
}

// fieldTexts are the indexed fields of a node (the body is scanned).
func fieldTexts(n *Node) [numFields][]string {
	var f [numFields][]string
	f[fieldLabel] = tokens(n.Label)
	if n.Path != "" {
		base := path.Base(n.Path)
		f[fieldName] = tokens(strings.TrimSuffix(base, path.Ext(base)))
		if dir := path.Dir(n.Path); dir != "." {
			f[fieldFolders] = tokens(dir)
		}
	}
	f[fieldKeywords] = tokens(strings.Join(n.Keywords, " "))
	f[fieldRelated] = tokens(strings.Join(n.Related, " "))
	f[fieldDescription] = tokens(n.Description)
	return f
}

func (g *Graph) index() *searchIndex {
	g.indexOnce.Do(func() { g.search = g.newSearchIndex() })
	return g.search
}

func (g *Graph) newSearchIndex() *searchIndex {
	byWord := map[string][]posting{}
	ix := &searchIndex{lens: make([][numFields]uint32, len(g.Nodes))}
	for i, n := range g.Nodes {
		fields := fieldTexts(n)
		tf := map[string]*[numFields]uint8{}
		for f, words := range fields {
			ix.lens[i][f] = uint32(len(words))
			for _, w := range words {
				c := tf[w]
				if c == nil {
					c = new([numFields]uint8)
					tf[w] = c
				}
				if c[f] < math.MaxUint8 {
					c[f]++
				}
			}
		}
		for w, c := range tf {
			byWord[w] = append(byWord[w], posting{node: int32(i), tf: *c})
		}
	}
	ix.vocab = sortedKeys(byWord)
	ix.postings = make([][]posting, len(ix.vocab))
	for k, w := range ix.vocab {
		ix.postings[k] = byWord[w]
	}
	g.finishIndex(ix)
	return ix
}

// finishIndex sets what an index takes from the graph: the averages of the
// field lengths, the body lengths and the lowercased labels.
func (g *Graph) finishIndex(ix *searchIndex) {
	var total [numFields]float64
	for _, l := range ix.lens {
		for f := range numFields {
			total[f] += float64(l[f])
		}
	}
	for f := range total {
		ix.avg[f] = max(total[f]/float64(max(len(g.Nodes), 1)), 1)
	}
	if g.body != nil {
		for i, n := range g.body.lens {
			ix.lens[i][fieldBody] = n
		}
		ix.avg[fieldBody] = g.body.avg
	}
	ix.lower = make([]string, len(g.Nodes))
	for i, n := range g.Nodes {
		ix.lower[i] = strings.ToLower(n.Label)
	}
}

// eachWordOf calls fn with the indexes of the words of vocab (sorted) that
// match w: w itself with weight 1 and, when partial, the words that start
// with w (prefixWeight) and those that contain it elsewhere
// (substringWeight).
func eachWordOf(vocab []string, w string, partial bool, fn func(k int, weight float64)) {
	start := sort.SearchStrings(vocab, w)
	if start < len(vocab) && vocab[start] == w {
		fn(start, 1)
	}
	if !partial {
		return
	}
	for k := start; k < len(vocab) && strings.HasPrefix(vocab[k], w); k++ {
		if vocab[k] != w {
			fn(k, prefixWeight)
		}
	}
	for k, v := range vocab {
		if len(v) > len(w) && !strings.HasPrefix(v, w) && strings.Contains(v, w) {
			fn(k, substringWeight)
		}
	}
}

// candidate is a node's score so far.
type candidate struct {
	node    int
	covered int // query words found, whole or in part
	score   float64
	byField [numFields]float64
}

// Search ranks the nodes of g against query and returns at most max
// matches, best first: nodes that contain every word of the query before
// those that contain fewer, then by BM25F score with a bonus for the query
// as a phrase or as the whole title; ties by label. Scores are relative to
// the best match (1).
func (g *Graph) Search(query string, max int) []Match {
	ix := g.index()
	all := tokens(query)
	words := dedupeWords(all)
	if len(words) > 1 {
		var kept []string
		for _, w := range words {
			if !stopWords[w] {
				kept = append(kept, w)
			}
		}
		if len(kept) > 0 {
			words = kept
		}
	}
	n := float64(len(g.Nodes))
	cands := map[int]*candidate{}
	norm := func(node int32, f int) float64 {
		return 1 - bm25B + bm25B*float64(ix.lens[node][f])/ix.avg[f]
	}
	for _, w := range words {
		// tf~ of this word per node and field: whole words count 1, word
		// starts prefixWeight, word insides substringWeight.
		parts := make([][numFields]float64, len(g.Nodes))
		var touched []int
		at := func(node int) *[numFields]float64 {
			p := &parts[node]
			if *p == ([numFields]float64{}) {
				touched = append(touched, node)
			}
			return p
		}
		addPostings := func(k int, weight float64) {
			for _, p := range ix.postings[k] {
				acc := at(int(p.node))
				for f := range numFields {
					if p.tf[f] > 0 {
						acc[f] += weight * fieldWeights[f] * float64(p.tf[f]) / norm(p.node, f)
					}
				}
			}
		}
		partial := len([]rune(w)) >= minPartialLen
		eachWordOf(ix.vocab, w, partial, addPostings)
		if g.body != nil {
			eachWordOf(g.body.words, w, partial, func(k int, weight float64) {
				for _, p := range g.body.postings[k] {
					at(int(p.doc))[fieldBody] += weight * fieldWeights[fieldBody] * float64(p.tf) / norm(p.doc, fieldBody)
				}
			})
		}
		idf := math.Log(1 + (n-float64(len(touched))+0.5)/(float64(len(touched))+0.5))
		for _, node := range touched {
			p := &parts[node]
			var tf float64
			for f := range numFields {
				tf += p[f]
			}
			c := cands[node]
			if c == nil {
				c = &candidate{node: node}
				cands[node] = c
			}
			c.covered++
			s := idf * tf * (bm25K1 + 1) / (bm25K1 + tf)
			c.score += s
			for f := range numFields {
				c.byField[f] += s * p[f] / tf
			}
		}
	}
	list := make([]*candidate, 0, len(cands))
	for _, c := range cands {
		list = append(list, c)
	}
	less := func(a, b *candidate) bool {
		if a.covered != b.covered {
			return a.covered > b.covered
		}
		if a.score != b.score {
			return a.score > b.score
		}
		la, lb := ix.lower[a.node], ix.lower[b.node]
		if la != lb {
			return la < lb
		}
		return g.Nodes[a.node].ID < g.Nodes[b.node].ID
	}
	sort.Slice(list, func(i, j int) bool { return less(list[i], list[j]) })
	// The query as the whole title or file name, or as a phrase, lifts the
	// best candidates by a share of their score.
	if len(all) > 0 {
		for _, c := range list[:min(len(list), phraseChecked)] {
			node := g.Nodes[c.node]
			f := fieldTexts(node)
			switch {
			case equalWords(f[fieldLabel], all) || equalWords(f[fieldName], all):
				c.score *= 3
			case containsPhrase(f[fieldLabel], all) || containsPhrase(f[fieldName], all):
				c.score *= 1.5
			case len(all) > 1 && containsPhrase(f[fieldDescription], all):
				c.score *= 1.25
			}
		}
		sort.Slice(list, func(i, j int) bool { return less(list[i], list[j]) })
	}
	out := []Match{}
	for _, c := range list[:min(len(list), max)] {
		node := g.Nodes[c.node]
		best := 0
		for f := range numFields {
			if c.byField[f] > c.byField[best] {
				best = f
			}
		}
		out = append(out, Match{NodeID: node.ID, Label: node.Shown, TitleFrom: node.TitleFrom, Description: node.Description, Path: node.Path,
			Score: math.Round(c.score/list[0].score*1000) / 1000, Source: fieldNames[best]})
	}
	return out
}

// dedupeWords returns the distinct words, in the order they first appear
// (nil for none).
func dedupeWords(words []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range words {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func equalWords(a, b []string) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func containsPhrase(hay, phrase []string) bool {
	for i := 0; i+len(phrase) <= len(hay); i++ {
		if equalWords(hay[i:i+len(phrase)], phrase) {
			return true
		}
	}
	return false
}

// indexState is embedded in Graph: the search index, made once.
type indexState struct {
	indexOnce sync.Once
	search    *searchIndex
}
