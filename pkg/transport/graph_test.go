package transport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/toolapi/graphtools"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

const e2ePrefix = "tenant-e2e-91c4/"

func TestEveryGraphEventFile(t *testing.T) {
	raw, err := os.ReadFile("../../events/graph/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var expected map[string]int
	json.Unmarshal(raw, &expected)
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			data := memstore.New()
			storetest.LoadDir(t, data, e2ePrefix, filepath.Join("..", "..", "examples"))
			root, _ := pathsafe.NewRoot(e2ePrefix)
			g := mdkb.New(data, root, memstore.New(), mdkb.DefaultLimits())
			r := &transport.Router{Tools: toolapi.New(toolapi.Options{Extra: graphtools.Tools(g)})}
			event, _ := os.ReadFile(filepath.Join("../../events", name))
			out, err := transport.LambdaHandler(r, 20000, transport.S3EventHandler(g, nil))(context.Background(), event)
			if err != nil {
				t.Fatalf("function error: %v", err)
			}
			if strings.HasPrefix(filepath.Base(name), "s3-") {
				m := out.(map[string]any)
				wantN := 1
				if strings.Contains(name, "not-markdown") {
					wantN = 0
				}
				if m["refreshed"] != wantN {
					t.Errorf("refreshed = %v, want %d", m["refreshed"], wantN)
				}
				return
			}
			status, body := statusOf(t, out)
			if status != want {
				t.Fatalf("status %d, want %d: %s", status, want, body)
			}
			if strings.Contains(body, strings.TrimSuffix(e2ePrefix, "/")) {
				t.Errorf("the answer shows the root prefix: %s", body)
			}
		})
	}
}

// TestAGraphOf20000FilesAnswersBedrockWithinBudget: a scope of 20,500
// notes, over the graph's file cap, answers a search through the Bedrock
// transport within the response budget, saying how many files it used.
func TestAGraphOf20000FilesAnswersBedrockWithinBudget(t *testing.T) {
	data := memstore.New()
	for i := range 20500 {
		body := fmt.Sprintf("---\ntitle: Note %d\ntags: [area%d]\n---\n# Note %d\n\nSee [[Note %d]] and [[Missing %d]]; approvals are %s.\n", i, i%50, i, (i+1)%20500, i%300, []string{"pending", "applied", "rejected"}[i%3])
		data.Put(context.Background(), fmt.Sprintf("vault/area%02d/note%05d.md", i%50, i), []byte(body), fileops.PutOptions{})
	}
	g := mdkb.New(data, pathsafe.Root{}, memstore.New(), mdkb.DefaultLimits())
	r := &transport.Router{Tools: toolapi.New(toolapi.Options{Extra: graphtools.Tools(g)})}
	for _, api := range []bool{false, true} {
		body, whole, _ := callBedrock(t, r, api, "file_context_markdown_graph_search", map[string]any{"query": "approvals pending", "maxResults": 100}, 24000)
		if len(whole) > 24000 {
			t.Errorf("api %v: the response is %d bytes", api, len(whole))
		}
		var res struct {
			Truncated               bool
			Limit                   string
			FilesInScope, FilesUsed int
			DocumentCount           int
			Matches                 []json.RawMessage
			Skipped                 struct{ Counts map[string]int }
			UnresolvedLinks         struct{ Count int }
		}
		if err := json.Unmarshal([]byte(body), &res); err != nil {
			t.Fatalf("api %v: %v: %.300s", api, err, body)
		}
		if !res.Truncated || res.Limit != "maximumGraphFiles" || res.FilesInScope != 20500 || res.FilesUsed != 20000 || res.DocumentCount != 20000 ||
			res.Skipped.Counts["overFileLimit"] != 500 || len(res.Matches) == 0 || res.UnresolvedLinks.Count == 0 {
			t.Errorf("api %v: %.600s", api, body)
		}
	}
}

// TestBedrockFollowsExportPagesToTheEnd: an export through the Bedrock
// transport answers pages that fit the response budget, each valid Turtle,
// and following next.cursor reads the whole graph.
func TestBedrockFollowsExportPagesToTheEnd(t *testing.T) {
	data := memstore.New()
	for i := range 300 {
		body := fmt.Sprintf("---\ntitle: \"Note %d \\\"quoted\\\"\"\nsummary: \"A summary with \\\"quotes\\\" and \\\\ backslashes, number %d.\"\ntags: [t%d]\n---\n# Note %d\n\nSee [[Note %d]].\n", i, i, i%7, i, (i+1)%300)
		data.Put(context.Background(), fmt.Sprintf("notes/n%03d.md", i), []byte(body), fileops.PutOptions{})
	}
	g := mdkb.New(data, pathsafe.Root{}, memstore.New(), mdkb.DefaultLimits())
	r := &transport.Router{Tools: toolapi.New(toolapi.Options{Extra: graphtools.Tools(g)})}
	rapper, err := exec.LookPath("rapper")
	if err != nil {
		t.Fatal("rapper (Debian raptor2-utils) is not installed; scripts/test installs it")
	}
	for _, api := range []bool{false, true} {
		args := map[string]any{"format": "turtle"}
		triples, pages, total := 0, 0, 0
		for {
			body, whole, _ := callBedrock(t, r, api, "file_context_markdown_graph_export", args, 24000)
			if len(whole) > 24000 {
				t.Fatalf("api %v page %d: the response is %d bytes", api, pages+1, len(whole))
			}
			var res struct {
				Content      string
				TripleCount  int
				Next         *struct{ Cursor string }
				Continuation *struct {
					Tool      string
					Arguments map[string]any
				}
			}
			if err := json.Unmarshal([]byte(body), &res); err != nil {
				t.Fatalf("api %v: %v: %.300s", api, err, body)
			}
			path := filepath.Join(t.TempDir(), "p.ttl")
			os.WriteFile(path, []byte(res.Content), 0o644)
			out, err := exec.Command(rapper, "-q", "-i", "turtle", "-o", "ntriples", path).Output()
			if err != nil {
				t.Fatalf("api %v page %d is not Turtle: %v", api, pages+1, err)
			}
			triples += strings.Count(string(out), "\n")
			pages++
			total = res.TripleCount
			if res.Next == nil {
				if res.Continuation != nil {
					t.Errorf("api %v: the last page has a continuation", api)
				}
				break
			}
			// The continuation repeats every argument, with the cursor.
			c := res.Continuation
			if c == nil || c.Tool != "file_context_markdown_graph_export" || c.Arguments["cursor"] != res.Next.Cursor || c.Arguments["format"] != "turtle" {
				t.Fatalf("api %v page %d: continuation %+v", api, pages, c)
			}
			args = c.Arguments
		}
		if triples != total || pages < 3 {
			t.Errorf("api %v: %d pages held %d triples of %d", api, pages, triples, total)
		}
	}
}
