// Command gentools writes docs/TOOLS.md, the tool reference, from the
// catalog (package toolapi): every tool with its arguments, its result, an
// example call on examples/ and the answer it really gives, and the error
// table (code, HTTP status, Bedrock response state, CLI exit code) from
// package fault. A test fails when the file is stale. Run it from the
// repository root after the catalog changes:
//
//	go run ./internal/tools/gentools
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/toolapi/graphtools"
)

// examples are the calls the reference shows, run on examples/ with write
// tools on and approval off (so the answers are the applied ones).
var examples = map[string]string{
	"file_access_read":                    `{"fileName":"notes/todo.txt"}`,
	"file_access_read_lines":              `{"fileName":"notes/checklist.txt","startLine":2,"endLine":3}`,
	"file_context_read_range":             `{"path":"guides/getting-started.md","lineCount":3}`,
	"file_access_ls":                      `{"directory":"guides"}`,
	"file_access_grep":                    `{"regexPattern":"match$","directory":"notes"}`,
	"file_context_info":                   `{"path":"guides"}`,
	"file_context_download":               `{"path":"notes/todo.txt","maxBytes":16}`,
	"file_access_write":                   `{"fileName":"notes/new.txt","content":"hello\n"}`,
	"file_access_delete":                  `{"fileName":"notes/new.txt"}`,
	"file_access_replace":                 `{"fileName":"notes/todo.txt","oldString":"alpha","newString":"ALPHA"}`,
	"file_access_replace_lines":           `{"fileName":"notes/todo.txt","edits":[{"line_number":2,"new_line":"beta: done","expected_line":"beta match: wire the transports"}]}`,
	"file_context_markdown_graph_search":  `{"query":"approvals","maxResults":2}`,
	"file_context_markdown_graph_export":  `{"format":"mermaid","directory":"guides"}`,
	"file_context_markdown_graph_related": `{"path":"guides/approvals.md","direction":"both"}`,
}

func main() {
	b, err := render("examples")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentools:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(filepath.Join("docs", "TOOLS.md"), b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gentools:", err)
		os.Exit(1)
	}
}

// statusOnly answers approval status with a fixed record, so the example
// of file_context_approval_status is stable.
type statusOnly struct{}

func (statusOnly) Park(context.Context, *fileops.Change, string, []byte) (any, error) {
	return nil, fmt.Errorf("not used")
}

func (statusOnly) Status(_ context.Context, id string) (any, error) {
	return map[string]any{"approvalId": id, "status": "applied", "tool": "file_access_replace", "path": "notes/todo.txt",
		"requestedBy": "arn:aws:sts::123456789012:assumed-role/agent/s1", "decidedBy": "arn:aws:iam::123456789012:user/ops",
		"requestedAt": "2026-11-30T10:00:00Z", "decidedAt": "2026-11-30T10:05:00Z", "expiresAt": "2026-12-01T10:00:00Z",
		"result": map[string]any{"etag": "\"5d41402abc4b2a76b9719d911017c592\"", "message": "Replaced 1 occurrence(s) in 'notes/todo.txt'."}}, nil
}

// render builds the reference over a memory copy of dir.
func render(dir string) ([]byte, error) {
	ctx := context.Background()
	store := memstore.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		_, err = store.Put(ctx, filepath.ToSlash(rel), b, fileops.PutOptions{ContentType: fileops.ContentTypeOf(rel)})
		return err
	})
	if err != nil {
		return nil, err
	}
	files, err := fileops.New(store, pathsafe.Root{}, fileops.DefaultLimits())
	if err != nil {
		return nil, err
	}
	graph := mdkb.New(store, pathsafe.Root{}, nil, mdkb.DefaultLimits())
	// The catalog as a deployment serves it: write tools on, approval
	// required (so descriptions say so); examples run with approval off.
	catalog := toolapi.New(toolapi.Options{Files: files, WriteTools: true, Approvals: statusOnly{}, Extra: graphtools.Tools(graph)})
	runner := toolapi.New(toolapi.Options{Files: files, WriteTools: true, ApprovalOff: true, Approvals: statusOnly{}, Extra: graphtools.Tools(graph)})
	examples["file_context_approval_status"] = `{"approvalId":"apr_7ye2jmkbxpxz3zzc6qkr"}`

	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Tool reference\n\n")
	w("Generated from the catalog by `go run ./internal/tools/gentools`; a test fails when this file\n")
	w("is stale. Every tool takes one JSON object and answers one JSON object: `POST /tools/{name}` on\n")
	w("the REST API and the local server, an action-group call on Bedrock, `tools/call` over MCP.\n")
	w("The examples run on `examples/` with write tools on and approval off; with approval required\n")
	w("(the default once writes are on) a write answers `202` with `{status: \"pending_approval\",\n")
	w("approvalId, tool, path, baseEtag, expiresAt, preview: {diff, truncated}, message}` instead.\n\n")
	w("Lines are numbered from 1; a line ends at `\\r\\n`, `\\n` or a lone `\\r` and keeps its terminator.\n\n")
	w("| tool | kind |\n|---|---|\n")
	cat := catalog.Catalog()
	for _, t := range cat.Tools {
		kind := "read"
		if !t.ReadOnly {
			kind = "write (waits for approval)"
		}
		w("| [`%s`](#%s) | %s |\n", t.Name, t.Name, kind)
	}
	w("\n")
	for _, t := range cat.Tools {
		tool, _ := catalog.Tool(t.Name)
		w("## %s\n\n%s\n\n", t.Name, t.Description)
		w("| argument | type | required | default | description |\n|---|---|---|---|---|\n")
		for _, p := range tool.Params {
			w("| `%s` | %s | %s | %s | %s |\n", p.Name, typeOf(p), yes(p.Required), defaultOf(p), strings.ReplaceAll(p.Description, "|", "\\|"))
			for _, item := range p.Items {
				w("| `%s[].%s` | %s | %s | %s | %s |\n", p.Name, item.Name, typeOf(item), yes(item.Required), defaultOf(item), strings.ReplaceAll(item.Description, "|", "\\|"))
			}
		}
		args, ok := examples[t.Name]
		if !ok {
			return nil, fmt.Errorf("no example for %s", t.Name)
		}
		res := runner.Call(ctx, toolapi.Caller{ID: "docs"}, t.Name, []byte(args))
		answer, err := indent(res.Body)
		if err != nil {
			return nil, err
		}
		w("\nExample (`POST /tools/%s`):\n\n```json\n%s\n```\n\nAnswer (%d):\n\n```json\n%s\n```\n\n", t.Name, mustIndent(args), res.Status, answer)
	}
	w("## Errors\n\n")
	w("Every error has one shape, `{\"error\": {\"code\", \"message\", \"path\"?, \"details\"?}}`. The code\n")
	w("decides the HTTP status, the Bedrock response state (function-details responses; API-schema\n")
	w("responses carry the status) and the exit code of `filecontext call`:\n\n")
	w("| code | HTTP status | Bedrock responseState | CLI exit code |\n|---|---|---|---|\n")
	for _, c := range fault.Codes() {
		state := "REPROMPT"
		if !c.IsDomain() {
			state = "FAILURE"
		}
		w("| `%s` | %d | %s | %d |\n", c, c.HTTPStatus(), state, c.ExitCode())
	}
	w("\nExit code 1 means the server could not be reached, 2 a bad command line.\n")
	return b.Bytes(), nil
}

func typeOf(p toolapi.Param) string {
	if p.Type == "array" {
		return "array of objects"
	}
	if p.Minimum != nil {
		return fmt.Sprintf("%s ≥ %d", p.Type, *p.Minimum)
	}
	return p.Type
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return ""
}

func defaultOf(p toolapi.Param) string {
	if p.Default == nil {
		return ""
	}
	b, _ := json.Marshal(p.Default)
	return "`" + string(b) + "`"
}

func indent(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

func mustIndent(s string) string {
	var v any
	json.Unmarshal([]byte(s), &v)
	out, _ := indent(v)
	return out
}
