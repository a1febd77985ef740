package dirstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/dirstore"
)

// listAll pages through a listing from token and returns its keys.
func listAll(t *testing.T, s *dirstore.Store, prefix, token string) []string {
	t.Helper()
	var keys []string
	for {
		page, err := s.List(context.Background(), fileops.ListOptions{Prefix: prefix, Token: token, MaxKeys: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Objects {
			keys = append(keys, o.Key)
		}
		if token = page.NextToken; token == "" {
			return keys
		}
	}
}

// A listing of many pages walks the tree once and pages through that walk:
// a file added meanwhile shows in the next listing, not in this one; any
// number of listings at once, and tokens whose walk is gone, still page
// correctly.
func TestListingsPageThroughOneWalk(t *testing.T) {
	dir := t.TempDir()
	for i := range 25 {
		os.MkdirAll(filepath.Join(dir, fmt.Sprintf("d%d", i%3)), 0o755)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("d%d/f%02d.md", i%3, i)), []byte("x"), 0o644)
	}
	s, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	first, err := s.List(ctx, fileops.ListOptions{MaxKeys: 10})
	if err != nil || len(first.Objects) != 10 || first.NextToken == "" {
		t.Fatalf("first page: %+v %v", first, err)
	}
	os.WriteFile(filepath.Join(dir, "d2/zz-new.md"), []byte("x"), 0o644)
	rest := listAll(t, s, "", first.NextToken)
	if len(rest) != 15 || strings.Contains(strings.Join(rest, ","), "zz-new") {
		t.Errorf("the continuation saw %d keys: %v", len(rest), rest)
	}
	if all := listAll(t, s, "", ""); len(all) != 26 {
		t.Errorf("a new listing sees %d keys", len(all))
	}
	// More listings than are kept: the oldest token's walk is gone, and its
	// continuation walks again from where it stopped.
	var tokens []string
	for range 12 {
		p, _ := s.List(ctx, fileops.ListOptions{MaxKeys: 10})
		tokens = append(tokens, p.NextToken)
	}
	for _, tok := range []string{tokens[0], tokens[11]} {
		if got := listAll(t, s, "", tok); len(got) != 16 {
			t.Errorf("continuation of %q: %d keys, %v", tok, len(got), got)
		}
	}
	// A token of another prefix, or with a generation this store never
	// made, pages by its position alone.
	_, inner, _ := strings.Cut(first.NextToken, ".")
	for _, tok := range []string{"w999." + inner, inner} {
		if got := listAll(t, s, "", tok); len(got) != 16 {
			t.Errorf("token %q: %d keys", tok, len(got))
		}
	}
	d1, _ := s.List(ctx, fileops.ListOptions{Prefix: "d1/", MaxKeys: 3})
	if got := listAll(t, s, "d2/", d1.NextToken); len(got) != 9 {
		t.Errorf("a d1/ token under d2/: %d keys %v", len(got), got)
	}
}
