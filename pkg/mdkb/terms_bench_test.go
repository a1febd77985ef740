package mdkb

import (
	"strings"
	"testing"
)

// BenchmarkTermsOf counts the words of a 16 KiB lowercased body, the work
// added to parsing each document for the body index.
func BenchmarkTermsOf(b *testing.B) {
	words := strings.Fields("the graph of notes links wiki pages tags aliases a vault approval write read grep cursor snapshot index body title search rank obsidian markdown file folder daily template plugin sync embed")
	var sb strings.Builder
	for i := 0; sb.Len() < 16<<10; i++ {
		sb.WriteString(words[(i*7)%len(words)])
		if i%13 == 0 {
			sb.WriteString(strings.Repeat("x", i%11))
		}
		sb.WriteString(" ")
	}
	body := sb.String()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		termsOf(body)
	}
}
