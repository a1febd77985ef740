package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/TOOLS.md is what the catalog gives today.
func TestToolsReferenceIsCurrent(t *testing.T) {
	want, err := render(filepath.Join("..", "..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "TOOLS.md"))
	if err != nil || string(got) != string(want) {
		t.Fatalf("docs/TOOLS.md is stale: run `go run ./internal/tools/gentools` from the repository root")
	}
	for _, s := range []string{"## file_access_replace_lines", "| `edits[].line_number` |", "| `method_not_allowed` | 405 |", "\"status\": \"applied\""} {
		if !strings.Contains(string(got), s) {
			t.Errorf("the reference lacks %q", s)
		}
	}
}
