package mdkb_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
)

// judged is a query of the judged set and the documents that must rank in
// its top 3.
type judged struct {
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
}

// searchQuality runs the judged queries of testdata/vault-queries.json on
// the vault of testdata/vault and returns the mean nDCG@10 and recall@10
// (binary relevance) and the queries whose relevant documents are not all
// in the top 3.
func searchQuality(t *testing.T) (ndcg, recall float64, misses []string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "vault-queries.json"))
	if err != nil {
		t.Fatal(err)
	}
	var queries []judged
	if err := json.Unmarshal(raw, &queries); err != nil {
		t.Fatal(err)
	}
	data := memstore.New()
	storetest.LoadDir(t, data, "kb-root/", filepath.Join("testdata", "vault"))
	s := newService(t, data, nil, nil)
	for _, q := range queries {
		res, err := s.Search(context.Background(), mdkb.SearchArgs{Query: q.Query, MaxResults: 10})
		if err != nil {
			t.Fatal(err)
		}
		relevant := map[string]bool{}
		for _, p := range q.Relevant {
			relevant[p] = true
		}
		var dcg, ideal float64
		found, top3 := 0, 0
		for i, m := range res.Matches {
			if relevant[m.Path] {
				dcg += 1 / math.Log2(float64(i+2))
				found++
				if i < 3 {
					top3++
				}
			}
		}
		for i := range min(len(q.Relevant), 10) {
			ideal += 1 / math.Log2(float64(i+2))
		}
		ndcg += dcg / ideal
		recall += float64(found) / float64(len(q.Relevant))
		if top3 < min(len(q.Relevant), 3) {
			var got []string
			for _, m := range res.Matches[:min(3, len(res.Matches))] {
				got = append(got, m.Path)
			}
			misses = append(misses, q.Query+" → "+stringsJoin(got))
		}
	}
	n := float64(len(queries))
	if n < 30 {
		t.Fatalf("the judged set has %d queries; it needs at least 30", len(queries))
	}
	return ndcg / n, recall / n, misses
}

func stringsJoin(s []string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestJudgedQueriesRankTheirDocuments: every judged query ranks its
// documents in its top 3, and the set's figures stay at or above the ones
// recorded in docs/BENCHMARKS.md.
func TestJudgedQueriesRankTheirDocuments(t *testing.T) {
	ndcg, recall, misses := searchQuality(t)
	t.Logf("judged queries: nDCG@10 %.3f, recall@10 %.3f, %d not in the top 3", ndcg, recall, len(misses))
	for _, m := range misses {
		t.Errorf("not in the top 3: %s", m)
	}
	if ndcg < minNDCG || recall < minRecall {
		t.Errorf("nDCG@10 %.3f, recall@10 %.3f: below the recorded %.3f and %.3f", ndcg, recall, minNDCG, minRecall)
	}
}

// The figures recorded in docs/BENCHMARKS.md; a change of the ranking may
// raise them, never lower them.
const (
	minNDCG   = 0.98
	minRecall = 1.0
)
