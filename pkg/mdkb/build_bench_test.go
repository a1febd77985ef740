package mdkb_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/mdkb"
)

// BenchmarkBuild assembles a 1,000-document graph from parsed documents:
// the work of a call after one file changed.
func BenchmarkBuild(b *testing.B) {
	var docs []*mdkb.DocInfo
	for i := range 1000 {
		src := fmt.Sprintf("---\ntitle: Document %d\nsummary: s %d\ntags: [a, b]\nauthor: Author %d\ngraph_related: [Document %d]\n---\n# D\n\n%s [x](doc%d.md) [[Document %d]]\n",
			i, i, i%17, (i+1)%1000, strings.Repeat("word ", 3000), (i+7)%1000, (i+3)%1000)
		docs = append(docs, mdkb.Parse(fmt.Sprintf("doc%d.md", i), "e", []byte(src)))
	}
	for b.Loop() {
		mdkb.Build(append([]*mdkb.DocInfo(nil), docs...))
	}
}
