package mdkb

import (
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// bodyPosting is one document's count of one body word.
type bodyPosting struct {
	doc int32
	tf  uint32
}

// bodyIndex is the inverted index of the documents' bodies: the words in
// byte order, and for each the documents that contain it, in document
// order. It is built once per document set and carried forward: a new
// graph derives its index from the previous graph's, indexing only the
// documents that are new or changed, and a stored snapshot keeps it, so a
// new process never tokenizes the bodies of unchanged documents (which are
// not kept in snapshots at all). Indexes are never changed once made.
type bodyIndex struct {
	words    []string
	postings [][]bodyPosting
	lens     []uint32 // words in each document's body
	avg      float64  // mean of lens, at least 1
}

// countMaps are reused by bodyWords: growing a new map for every document
// cost more than counting.
var countMaps = sync.Pool{New: func() any { return map[string]uint32{} }}

// asciiWord tells the ASCII bytes that are letters or digits (bytes of
// other runes are false: the rune is decoded).
var asciiWord = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z'
	}
	return t
}()

// bodyWords counts the words of a lowercased body into counts: runs of
// letters and digits, as tokens splits them.
func bodyWords(counts map[string]uint32, body string) uint32 {
	var total uint32
	start := -1
	for i := 0; i < len(body); {
		c := body[i]
		size, word := 1, false
		if c < utf8.RuneSelf {
			// A run of ASCII letters and digits is crossed at once.
			if asciiWord[c] {
				if start < 0 {
					start = i
				}
				for i++; i < len(body) && asciiWord[body[i]]; i++ {
				}
				continue
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(body[i:])
			word = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			counts[body[start:i]]++
			total++
			start = -1
		}
		i += size
	}
	if start >= 0 {
		counts[body[start:]]++
		total++
	}
	return total
}

// bodyTerms are the words of a document's body and their counts, made
// when the document is parsed (concurrently with other documents) and kept
// instead of the text.
type bodyTerms struct {
	words  []string // slices of one packed string
	counts []uint32
	total  uint32
}

// termsOf counts the words of a lowercased body.
func termsOf(body string) *bodyTerms {
	counts := countMaps.Get().(map[string]uint32)
	defer func() {
		clear(counts)
		countMaps.Put(counts)
	}()
	total := bodyWords(counts, body)
	t := &bodyTerms{words: make([]string, 0, len(counts)), counts: make([]uint32, 0, len(counts)), total: total}
	size := 0
	for w, n := range counts {
		t.words = append(t.words, w)
		t.counts = append(t.counts, n)
		size += len(w)
	}
	// The words are slices of the body: one packed copy of them keeps the
	// body from staying in memory.
	var packed strings.Builder
	packed.Grow(size)
	for _, w := range t.words {
		packed.WriteString(w)
	}
	all, at := packed.String(), 0
	for k, w := range t.words {
		t.words[k] = all[at : at+len(w)]
		at += len(w)
	}
	return t
}

// terms returns the body words of d: those counted at parse, or else
// (a document made otherwise) those of its Body.
func (d *DocInfo) terms() *bodyTerms {
	if d.bodyTerms != nil {
		return d.bodyTerms
	}
	return termsOf(strings.ToLower(d.Body))
}

// add indexes the bodies of docs[i] for i in todo into postings by word.
func addBodies(byWord map[string][]bodyPosting, lens []uint32, docs []*DocInfo, todo []int) {
	for _, i := range todo {
		t := docs[i].terms()
		lens[i] = t.total
		for k, w := range t.words {
			byWord[w] = append(byWord[w], bodyPosting{doc: int32(i), tf: t.counts[k]})
		}
	}
}

// newBodyIndex indexes the bodies of docs (in graph order).
func newBodyIndex(docs []*DocInfo) *bodyIndex {
	byWord := map[string][]bodyPosting{}
	lens := make([]uint32, len(docs))
	all := make([]int, len(docs))
	for i := range all {
		all[i] = i
	}
	addBodies(byWord, lens, docs, all)
	ix := &bodyIndex{lens: lens}
	ix.words = make([]string, 0, len(byWord))
	for w := range byWord {
		ix.words = append(ix.words, w)
	}
	sort.Strings(ix.words)
	ix.postings = make([][]bodyPosting, len(ix.words))
	for k, w := range ix.words {
		ix.postings[k] = byWord[w]
	}
	ix.average()
	return ix
}

func (ix *bodyIndex) average() {
	var sum float64
	for _, n := range ix.lens {
		sum += float64(n)
	}
	ix.avg = max(sum/float64(max(len(ix.lens), 1)), 1)
}

// derive returns the index of docs given ix, the index of prev: postings of
// documents that are in both (the same *DocInfo) are kept, renumbered to
// their places in docs; documents that are new or changed are indexed.
// Both lists are in graph (path) order.
func (ix *bodyIndex) derive(prev, docs []*DocInfo) *bodyIndex {
	at := make(map[*DocInfo]int, len(docs))
	for i, d := range docs {
		at[d] = i
	}
	renumber := make([]int32, len(prev)) // old index -> new, or -1
	// identity: every kept document keeps its index.
	identity := len(prev) == len(docs)
	kept := make([]bool, len(docs))
	for j, d := range prev {
		i, ok := at[d]
		if !ok {
			renumber[j] = -1 // gone or changed
			continue
		}
		renumber[j] = int32(i)
		kept[i] = true
		identity = identity && i == j
	}
	var todo []int
	for i, k := range kept {
		if !k {
			todo = append(todo, i)
		}
	}
	lens := make([]uint32, len(docs))
	for j, i := range renumber {
		if i >= 0 {
			lens[i] = ix.lens[j]
		}
	}
	added := map[string][]bodyPosting{}
	addBodies(added, lens, docs, todo)

	out := &bodyIndex{lens: lens}
	out.words = make([]string, 0, len(ix.words)+len(added))
	out.postings = make([][]bodyPosting, 0, len(ix.words)+len(added))
	newWords := make([]string, 0, len(added))
	for w := range added {
		newWords = append(newWords, w)
	}
	sort.Strings(newWords)
	push := func(w string, old []bodyPosting) {
		list := renumbered(old, renumber, identity)
		if extra := added[w]; len(extra) > 0 {
			list = mergePostings(list, extra)
		}
		if len(list) > 0 {
			out.words = append(out.words, w)
			out.postings = append(out.postings, list)
		}
	}
	k := 0
	for i, w := range ix.words {
		for k < len(newWords) && newWords[k] < w {
			push(newWords[k], nil)
			k++
		}
		if k < len(newWords) && newWords[k] == w {
			k++
		}
		push(w, ix.postings[i])
	}
	for ; k < len(newWords); k++ {
		push(newWords[k], nil)
	}
	out.average()
	return out
}

// renumbered returns the postings of documents still present, at their
// new indexes. When the numbering is the identity and no posting goes, it
// returns old itself: indexes share what did not change.
func renumbered(old []bodyPosting, renumber []int32, identity bool) []bodyPosting {
	if identity {
		gone := false
		for _, p := range old {
			if renumber[p.doc] < 0 {
				gone = true
				break
			}
		}
		if !gone {
			return old
		}
	}
	list := make([]bodyPosting, 0, len(old))
	for _, p := range old {
		if i := renumber[p.doc]; i >= 0 {
			list = append(list, bodyPosting{doc: i, tf: p.tf})
		}
	}
	return list
}

// mergePostings merges two lists in document order into a new one.
func mergePostings(a, b []bodyPosting) []bodyPosting {
	out := make([]bodyPosting, 0, len(a)+len(b))
	sort.Slice(b, func(i, j int) bool { return b[i].doc < b[j].doc })
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || i < len(a) && a[i].doc < b[j].doc {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return out
}
