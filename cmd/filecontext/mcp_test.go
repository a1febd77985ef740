package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession connects the Go SDK's client over a transport.
func mcpSession(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	c := mcp.NewClient(&mcp.Implementation{Name: "filecontext-test", Version: "1"}, nil)
	s, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// callJSON calls a tool and returns its structured content decoded, the
// text block, and whether it is an error result.
func callJSON(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any) (map[string]any, string, bool) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: a JSON-RPC error, want a result: %v", tool, err)
	}
	var structured map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &structured); err != nil {
		t.Fatalf("%s: structuredContent %s", tool, b)
	}
	text := ""
	if len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	var fromText map[string]any
	if json.Unmarshal([]byte(text), &fromText) != nil || !jsonEqual(fromText, structured) {
		t.Errorf("%s: the text block %.200q is not the structured content", tool, text)
	}
	return structured, text, res.IsError
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// exerciseMCP runs the checks every MCP entry point must pass over a root
// holding notes/todo.txt: instructions, the catalog with annotations, a
// read, a contract error as an isError result, and a write that parks.
func exerciseMCP(t *testing.T, s *mcp.ClientSession, writes bool) (approvalID string) {
	t.Helper()
	if init := s.InitializeResult(); init == nil || !strings.Contains(init.Instructions, "file_context_read_range") {
		t.Errorf("initialize gave no agent instructions: %+v", init)
	} else if v, _ := os.ReadFile("../../VERSION"); init.ServerInfo.Version != strings.TrimSpace(string(v)) {
		t.Errorf("server version %q, VERSION says %q", init.ServerInfo.Version, v)
	}
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		byName[tool.Name] = tool
	}
	for _, name := range []string{"file_access_read", "file_context_read_range", "file_access_grep", "file_context_info"} {
		tool := byName[name]
		if tool == nil || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || !tool.Annotations.IdempotentHint ||
			tool.Annotations.DestructiveHint == nil || *tool.Annotations.DestructiveHint {
			t.Errorf("read tool %s: %+v", name, tool)
		}
	}
	if w := byName["file_access_write"]; writes != (w != nil) {
		t.Errorf("write tools listed %v, enabled %v", w != nil, writes)
	} else if writes && (w.Annotations.ReadOnlyHint || w.Annotations.DestructiveHint == nil || !*w.Annotations.DestructiveHint) {
		t.Errorf("file_access_write annotations %+v", w.Annotations)
	}
	schema, _ := json.Marshal(byName["file_access_read_lines"].InputSchema)
	if !strings.Contains(string(schema), `"startLine"`) || !strings.Contains(string(schema), `"required"`) {
		t.Errorf("read_lines input schema %s", schema)
	}

	r, _, isErr := callJSON(t, s, "file_access_read", map[string]any{"fileName": "notes/todo.txt"})
	if isErr || !strings.HasPrefix(r["content"].(string), "alpha") || r["etag"] == "" {
		t.Errorf("read = %v", r)
	}
	r, _, isErr = callJSON(t, s, "file_access_read", map[string]any{"fileName": "missing.md"})
	if e, _ := r["error"].(map[string]any); !isErr || e["code"] != "not_found" {
		t.Errorf("a missing file = %v (isError %v)", r, isErr)
	}
	r, _, isErr = callJSON(t, s, "file_access_read", map[string]any{"fileName": "../escape"})
	if e, _ := r["error"].(map[string]any); !isErr || e["code"] != "invalid_path" {
		t.Errorf("a hostile path = %v", r)
	}
	r, _, isErr = callJSON(t, s, "file_context_read_range", map[string]any{"path": "notes/todo.txt", "lineCount": 1})
	if isErr || r["hasMore"] != true || r["next"] == nil {
		t.Errorf("read_range = %v", r)
	}
	if !writes {
		// A tool that tools/list does not show is unknown to the protocol:
		// the SDK answers with a JSON-RPC error, as for any unknown tool.
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "file_access_write", Arguments: map[string]any{"fileName": "x.md", "content": "x"}})
		if err == nil && !res.IsError {
			t.Errorf("a write with writes off succeeded: %+v", res)
		}
		return ""
	}
	r, _, isErr = callJSON(t, s, "file_access_replace", map[string]any{"fileName": "notes/todo.txt", "oldString": "alpha", "newString": "ALPHA"})
	if isErr || r["status"] != "pending_approval" || r["approvalId"] == "" {
		t.Fatalf("a write = %v", r)
	}
	return r["approvalId"].(string)
}

// The stdio server (the built binary as a subprocess): every check, then a
// parked write approved with the CLI on the same state, and read back.
func TestMCPOverStdio(t *testing.T) {
	bin := buildCLI(t)
	dir, state := t.TempDir(), t.TempDir()
	copyExamples(t, dir)
	cmd := exec.Command(bin, "mcp", "--root", dir, "--state", state, "--write-tools", "enabled")
	s := mcpSession(t, &mcp.CommandTransport{Command: cmd})
	id := exerciseMCP(t, s, true)

	// Every tool the server lists answers a sample call with a result.
	samples := map[string]map[string]any{
		"file_access_read":                    {"fileName": "notes/todo.txt"},
		"file_access_read_lines":              {"fileName": "notes/checklist.txt", "startLine": 1},
		"file_context_read_range":             {"path": "notes/checklist.txt"},
		"file_access_ls":                      {"directory": "guides"},
		"file_access_grep":                    {"regexPattern": "approval"},
		"file_context_info":                   {"path": "notes/todo.txt"},
		"file_context_download":               {"path": "notes/todo.txt", "maxBytes": 8},
		"file_access_write":                   {"fileName": "notes/new.md", "content": "new\n"},
		"file_access_delete":                  {"fileName": "notes/checklist.txt"},
		"file_access_replace":                 {"fileName": "guides/approvals.md", "oldString": "approve", "newString": "APPROVE", "replaceAll": true},
		"file_access_replace_lines":           {"fileName": "notes/checklist.txt", "edits": []map[string]any{{"line_number": 1, "new_line": "Checklist"}}},
		"file_context_approval_status":        {"approvalId": id},
		"file_context_markdown_graph_search":  {"query": "approvals"},
		"file_context_markdown_graph_export":  {"format": "turtle"},
		"file_context_markdown_graph_related": {"path": "guides/approvals.md"},
	}
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		args, ok := samples[tool.Name]
		if !ok {
			t.Errorf("no sample call for %s", tool.Name)
			continue
		}
		if r, _, isErr := callJSON(t, s, tool.Name, args); isErr {
			t.Errorf("%s: %v", tool.Name, r)
		} else if !tool.Annotations.ReadOnlyHint && r["status"] != "pending_approval" {
			t.Errorf("%s did not park: %v", tool.Name, r)
		}
	}

	out, err := exec.Command(bin, "approvals", "approve", id, "--root", dir, "--state", state).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"status": "applied"`) {
		t.Fatalf("approving with the CLI beside the stdio server: %v\n%s", err, out)
	}
	r, _, _ := callJSON(t, s, "file_access_read", map[string]any{"fileName": "notes/todo.txt"})
	if !strings.HasPrefix(r["content"].(string), "ALPHA") {
		t.Errorf("after the approval the file reads %q", r["content"])
	}
	st, _, _ := callJSON(t, s, "file_context_approval_status", map[string]any{"approvalId": id})
	if st["status"] != "applied" {
		t.Errorf("approval status = %v", st)
	}
}

// Streamable HTTP at /mcp of the local server, and a request from another
// origin refused.
func TestMCPOverHTTPOnTheLocalServer(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	copyExamples(t, dir)
	url, _ := startServer(t, bin, "--root", dir)
	s := mcpSession(t, &mcp.StreamableClientTransport{Endpoint: url + "/mcp"})
	exerciseMCP(t, s, false)

	req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-origin MCP request = %d, want 403", resp.StatusCode)
	}
}

// copyExamples copies examples/ into dir.
func copyExamples(t *testing.T, dir string) {
	t.Helper()
	src := filepath.Join("..", "..", "examples")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
