package transport_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/filecontext-aws/filecontext/internal/testenv"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

// secretPrefix is the root prefix: no answer may ever show it.
const secretPrefix = "secret-prefix-7f3a/"

// loadExamples copies examples/ into a memory store under the prefix.
func loadExamples(t testing.TB, s fileops.Store) {
	storetest.LoadDir(t, s, secretPrefix, filepath.Join("..", "..", "examples"))
}

type setup struct {
	store  *memstore.Store
	router *transport.Router
}

func newSetup(t testing.TB, opts toolapi.Options, tune func(*fileops.Limits)) *setup {
	t.Helper()
	store := memstore.New()
	loadExamples(t, store)
	root, _ := pathsafe.NewRoot(secretPrefix)
	l := fileops.DefaultLimits()
	if tune != nil {
		tune(&l)
	}
	files, err := fileops.New(store, root, l)
	if err != nil {
		t.Fatal(err)
	}
	opts.Files = files
	return &setup{store: store, router: &transport.Router{Tools: toolapi.New(opts), Title: "test", MaxRequestBytes: 64 << 10}}
}

func writable() toolapi.Options { return toolapi.Options{WriteTools: true, ApprovalOff: true} }

// snapshot lists every key with its ETag.
func snapshot(t testing.TB, s fileops.Store) string {
	page, err := s.List(context.Background(), fileops.ListOptions{MaxKeys: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, o := range page.Objects {
		b.WriteString(o.Key + " " + o.ETag + "\n")
	}
	return b.String()
}

// statusOf reads the status out of any of the three envelopes.
func statusOf(t *testing.T, out any) (int, string) {
	t.Helper()
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return testenv.Answer(t, b)
}

func TestEveryEventFile(t *testing.T) {
	raw, err := os.ReadFile("../../events/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var expected map[string]int
	if err := json.Unmarshal(raw, &expected); err != nil {
		t.Fatal(err)
	}
	if len(expected) < 40 {
		t.Fatalf("only %d events", len(expected))
	}
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			s := newSetup(t, writable(), nil)
			event, err := os.ReadFile(filepath.Join("../../events", name))
			if err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, s.store)
			out, err := transport.LambdaHandler(s.router, 20000)(context.Background(), event)
			if err != nil {
				t.Fatalf("function error: %v", err)
			}
			status, body := statusOf(t, out)
			if status != want {
				t.Fatalf("status %d, want %d: %s", status, want, body)
			}
			envelope, _ := json.Marshal(out)
			if strings.Contains(string(envelope), strings.TrimSuffix(secretPrefix, "/")) {
				t.Errorf("the answer shows the root prefix: %s", envelope)
			}
			if !json.Valid([]byte(body)) {
				t.Errorf("body is not JSON: %s", body)
			}
			if status >= 400 && snapshot(t, s.store) != before {
				t.Error("a refused call changed the store")
			}
		})
	}
}

func TestAnEventOfNoKnownKindIsAFunctionError(t *testing.T) {
	s := newSetup(t, writable(), nil)
	if _, err := transport.LambdaHandler(s.router, 20000)(context.Background(), json.RawMessage(`{"Records": []}`)); err == nil {
		t.Error("an S3 event was answered by the tools handler")
	}
}

// callAll runs one tool call through the local HTTP server, an API Gateway
// event, and Bedrock events in both styles, and returns the four bodies.
func callAll(t *testing.T, r *transport.Router, tool string, args map[string]any) [4]string {
	t.Helper()
	body, _ := json.Marshal(args)
	srv := httptest.NewServer(&transport.HTTPHandler{Router: r})
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/tools/"+tool, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	httpBody, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	gw := r.ServeAPIGateway(context.Background(), &events.APIGatewayProxyRequest{HTTPMethod: "POST", Path: "/tools/" + tool, Body: string(body)})

	var values []toolapi.NamedValue
	for k, v := range args {
		var s string
		switch x := v.(type) {
		case string:
			s = x
		default:
			b, _ := json.Marshal(x)
			s = string(b)
		}
		values = append(values, toolapi.NamedValue{Name: k, Type: "string", Value: s})
	}
	fn := &transport.BedrockEvent{MessageVersion: "1.0", ActionGroup: "g", Function: tool, Parameters: values}
	fnOut := r.ServeBedrock(context.Background(), fn, 1<<20)
	api := &transport.BedrockEvent{MessageVersion: "1.0", ActionGroup: "g", APIPath: "/tools/" + tool, HTTPMethod: "POST"}
	api.RequestBody = &struct {
		Content map[string]struct {
			Properties []toolapi.NamedValue `json:"properties"`
		} `json:"content"`
	}{Content: map[string]struct {
		Properties []toolapi.NamedValue `json:"properties"`
	}{"application/json": {Properties: values}}}
	apiOut := r.ServeBedrock(context.Background(), api, 1<<20)
	if apiOut.Response.ActionGroup != "g" || apiOut.Response.APIPath != "/tools/"+tool || apiOut.Response.HTTPMethod != "POST" || fnOut.Response.Function != tool {
		t.Errorf("the Bedrock responses do not echo the event: %+v %+v", apiOut.Response, fnOut.Response)
	}
	return [4]string{string(httpBody), gw.Body, fnOut.Response.FunctionResponse.ResponseBody["TEXT"].Body, apiOut.Response.ResponseBody["application/json"].Body}
}

func TestEveryTransportAnswersTheSame(t *testing.T) {
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"file_access_read", map[string]any{"fileName": "notes/todo.txt"}},
		{"file_access_read_lines", map[string]any{"fileName": "notes/checklist.txt", "startLine": 2, "endLine": 3}},
		{"file_context_read_range", map[string]any{"path": "guides/approvals.md", "lineCount": 3}},
		{"file_access_ls", map[string]any{"directory": "guides", "globPattern": "a*"}},
		{"file_access_grep", map[string]any{"regexPattern": "MATCH$", "caseSensitive": false}},
		{"file_context_info", map[string]any{"path": "notes/todo.txt"}},
		{"file_context_download", map[string]any{"path": "notes/checklist.txt", "offsetBytes": 3, "maxBytes": 10}},
		{"file_access_read", map[string]any{"fileName": "missing.md"}},
		{"file_access_read_lines", map[string]any{"fileName": "notes/todo.txt", "startLine": 0}},
	} {
		s := newSetup(t, toolapi.Options{}, nil)
		bodies := callAll(t, s.router, tc.tool, tc.args)
		var first any
		json.Unmarshal([]byte(bodies[0]), &first)
		for i, b := range bodies[1:] {
			var v any
			if err := json.Unmarshal([]byte(b), &v); err != nil || !reflect.DeepEqual(v, first) {
				t.Errorf("%s: transport %d answered %s, HTTP answered %s", tc.tool, i+1, b, bodies[0])
			}
		}
	}
}

func post(t *testing.T, r *transport.Router, tool, body string) (int, map[string]any) {
	t.Helper()
	res := r.Serve(context.Background(), transport.Request{Method: "POST", Path: "/tools/" + tool, Body: []byte(body)})
	var m map[string]any
	if err := json.Unmarshal(res.Body, &m); err != nil {
		t.Fatalf("%s: body %s", tool, res.Body)
	}
	return res.Status, m
}

func errCode(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func TestResultShapes(t *testing.T) {
	s := newSetup(t, writable(), nil)
	s.store.Put(context.Background(), secretPrefix+"empty.md", nil, fileops.PutOptions{})
	status, m := post(t, s.router, "file_access_read", `{"fileName":"empty.md"}`)
	if status != 200 || m["content"] != "" || m["size"] != 0.0 || m["lineEnding"] != "none" {
		t.Errorf("empty read = %d %v", status, m)
	}
	_, m = post(t, s.router, "file_context_read_range", `{"path":"empty.md"}`)
	if m["content"] != "" || m["totalLines"] != 0.0 || m["hasMore"] != false {
		t.Errorf("empty window = %v", m)
	}
	_, m = post(t, s.router, "file_access_grep", `{"regexPattern":"no such text anywhere"}`)
	if res, ok := m["results"].([]any); !ok || len(res) != 0 || m["truncated"] != false {
		t.Errorf("no matches = %v", m)
	}
	_, m = post(t, s.router, "file_context_info", `{"path":"notes/todo.txt"}`)
	info, _ := m["info"].(map[string]any)
	if m["status"] != "found" || info["type"] != "file" || info["size"] != 83.0 || info["etag"] == "" || info["contentType"] != "text/plain; charset=utf-8" {
		t.Errorf("found = %v", m)
	}
	if _, m = post(t, s.router, "file_context_info", `{"path":"guides"}`); m["status"] != "directory" || m["info"] != nil {
		t.Errorf("directory = %v", m)
	}
	if _, m = post(t, s.router, "file_context_info", `{"path":"nope.md"}`); m["status"] != "not_found" {
		t.Errorf("not_found = %v", m)
	}
	status, m = post(t, s.router, "file_access_ls", `{}`)
	if status != 200 || m["directory"] != "" || len(m["entries"].([]any)) != 4 {
		t.Errorf("ls = %v", m)
	}
	status, m = post(t, s.router, "file_context_download", `{"path":"notes/todo.txt","encoding":"base64","maxBytes":5}`)
	if status != 200 || m["base64"] != base64.StdEncoding.EncodeToString([]byte("alpha")) || m["hasMore"] != true || m["nextOffsetBytes"] != 5.0 {
		t.Errorf("download = %v", m)
	}
	status, m = post(t, s.router, "file_access_write", `{"fileName":"new/a.md","content":"hi\n"}`)
	if status != 200 || m["status"] != "applied" || m["message"] != "File 'new/a.md' written." || m["tool"] != "file_access_write" {
		t.Errorf("write = %d %v", status, m)
	}
	status, m = post(t, s.router, "file_access_replace_lines", `{"fileName":"new/a.md","edits":[{"line_number":1,"new_line":"ho","expected_line":"hi"}]}`)
	if status != 200 || m["message"] != "Replaced 1 line(s) in 'new/a.md'." {
		t.Errorf("replace_lines = %d %v", status, m)
	}
}

func TestBadInputIsAClearFourHundred(t *testing.T) {
	s := newSetup(t, writable(), nil)
	before := snapshot(t, s.store)
	for _, tc := range []struct {
		tool, body, code, mention string
		status                    int
	}{
		{"file_access_write", `{"fileName":"a.md","content":`, "invalid_argument", "JSON", 400},
		{"file_access_write", `{"fileName":"a.md","content":7}`, "invalid_argument", "content", 400},
		{"file_access_write", `{"fileName":"a.md","content":"x","force":true}`, "invalid_argument", "force", 400},
		{"file_access_write", `{"fileName":"a.md"}`, "invalid_argument", "content", 400},
		{"file_access_write", `{"fileName":null,"content":"x"}`, "invalid_argument", "fileName", 400},
		{"file_access_read_lines", `{"fileName":"a.md","startLine":1.5}`, "invalid_argument", "startLine", 400},
		{"file_access_read_lines", `{"fileName":"a.md","startLine":0}`, "invalid_argument", "startLine", 400},
		{"file_access_read_lines", `{"fileName":"a.md","startLine":99999999999}`, "invalid_argument", "startLine", 400},
		{"file_access_replace_lines", `{"fileName":"a.md","edits":[{"line_number":1}]}`, "invalid_argument", "new_line", 400},
		{"file_access_replace_lines", `{"fileName":"a.md","edits":[{"line_number":1,"new_line":"x","extra":1}]}`, "invalid_argument", "edits[0].extra", 400},
		{"file_access_replace_lines", `{"fileName":"a.md","edits":"x"}`, "invalid_argument", "edits", 400},
		{"file_access_replace_lines", `{"fileName":"a.md","edits":[3]}`, "invalid_argument", "edits", 400},
		{"file_access_grep", `{"regexPattern":"(?=x)"}`, "invalid_pattern", "RE2", 400},
		{"file_access_write", `{"fileName":"/etc/passwd","content":"x"}`, "invalid_path", "/etc/passwd", 400},
		{"file_access_write", `[1,2]`, "invalid_argument", "object", 400},
		{"file_access_write", `{"fileName":"a.md","content":"x"} {}`, "invalid_argument", "nothing after", 400},
		{"no_such_tool", `{}`, "unknown_tool", "file_access_read", 404},
	} {
		status, m := post(t, s.router, tc.tool, tc.body)
		msg, _ := m["error"].(map[string]any)["message"].(string)
		if status != tc.status || errCode(m) != tc.code || !strings.Contains(msg, tc.mention) {
			t.Errorf("%s %s = %d %v, want %d %s mentioning %q", tc.tool, tc.body, status, m, tc.status, tc.code, tc.mention)
		}
	}
	big := `{"fileName":"a.md","content":"` + strings.Repeat("x", 70<<10) + `"}`
	if status, m := post(t, s.router, "file_access_write", big); status != 413 || errCode(m) != "request_too_large" {
		t.Errorf("oversized body = %d %v", status, m)
	}
	srv := httptest.NewServer(&transport.HTTPHandler{Router: s.router})
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/tools/file_access_write", "application/json", strings.NewReader(big))
	if err != nil || resp.StatusCode != 413 {
		t.Errorf("oversized HTTP body = %v %v", resp.Status, err)
	}
	resp.Body.Close()
	if snapshot(t, s.store) != before {
		t.Error("bad input changed the store")
	}
}

func TestWriteToolsAreOffByDefault(t *testing.T) {
	s := newSetup(t, toolapi.Options{}, nil)
	status, m := post(t, s.router, "file_access_write", `{"fileName":"a.md","content":"x"}`)
	if status != 403 || errCode(m) != "write_tools_disabled" {
		t.Errorf("write while disabled = %d %v", status, m)
	}
	cat := s.router.Tools.Catalog()
	for _, tool := range cat.Tools {
		if !tool.ReadOnly {
			t.Errorf("catalog lists %s while writes are off", tool.Name)
		}
	}
	if len(cat.Tools) != 7 || !strings.Contains(cat.Instructions, "read-only") || !strings.Contains(cat.Instructions, "untrusted") {
		t.Errorf("catalog = %d tools; instructions %q", len(cat.Tools), cat.Instructions)
	}
	// Approval required and no approval store: a clear refusal, nothing written.
	s = newSetup(t, toolapi.Options{WriteTools: true}, nil)
	status, m = post(t, s.router, "file_access_write", `{"fileName":"a.md","content":"x"}`)
	if status != 403 || !strings.Contains(m["error"].(map[string]any)["message"].(string), "approv") {
		t.Errorf("write with approval and no store = %d %v", status, m)
	}
	for _, tool := range s.router.Tools.Catalog().Tools {
		if !tool.ReadOnly && !tool.RequiresApproval {
			t.Errorf("%s does not say it requires approval", tool.Name)
		}
	}
}

// stuckStore ignores cancellation: every Get blocks for a long time.
type stuckStore struct{ *memstore.Store }

func (s stuckStore) Get(ctx context.Context, key string, o fileops.GetOptions) (*fileops.Object, error) {
	time.Sleep(3 * time.Second)
	return s.Store.Get(context.Background(), key, o)
}

func TestTheDeadlineHoldsAgainstAStuckStore(t *testing.T) {
	files, _ := fileops.New(stuckStore{memstore.New()}, pathsafe.Root{}, fileops.DefaultLimits())
	r := &transport.Router{Tools: toolapi.New(toolapi.Options{Files: files}), Budget: transport.Budget{ResponseMargin: 100 * time.Millisecond}}
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := r.Serve(ctx, transport.Request{Method: "POST", Path: "/tools/file_access_read", Body: []byte(`{"fileName":"a.md"}`)})
	took := time.Since(start)
	if res.Status != 504 || !strings.Contains(string(res.Body), `"timeout"`) {
		t.Errorf("answer = %d %s", res.Status, res.Body)
	}
	// The store holds each read for 3 s; the answer must come at the
	// deadline (300 ms), with room for a loaded machine, not after the store.
	if took > time.Second {
		t.Errorf("answered after %v, not at the deadline", took)
	}
	r.Budget = transport.Budget{OperationTimeout: 50 * time.Millisecond}
	start = time.Now()
	res = r.Serve(context.Background(), transport.Request{Method: "POST", Path: "/tools/file_access_read", Body: []byte(`{"fileName":"a.md"}`)})
	if res.Status != 504 || time.Since(start) > time.Second {
		t.Errorf("operation timeout: %d after %v", res.Status, time.Since(start))
	}
}

func TestBedrockBodiesFitTheBudget(t *testing.T) {
	s := newSetup(t, toolapi.Options{}, nil)
	var b strings.Builder
	for i := 0; b.Len() < 60000; i++ {
		b.WriteString("line with some words in it, number ")
		b.WriteString(strings.Repeat("é", i%5))
		b.WriteString("\n")
	}
	s.store.Put(context.Background(), secretPrefix+"big.txt", []byte(b.String()), fileops.PutOptions{})
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"file_access_read", map[string]any{"fileName": "big.txt"}},
		{"file_context_read_range", map[string]any{"path": "big.txt", "lineCount": 1000}},
		{"file_access_read_lines", map[string]any{"fileName": "big.txt", "startLine": 1, "endLine": 1000}},
		{"file_context_download", map[string]any{"path": "big.txt"}},
		{"file_context_download", map[string]any{"path": "big.txt", "encoding": "base64"}},
		{"file_access_grep", map[string]any{"regexPattern": "line"}},
	} {
		var values []toolapi.NamedValue
		for k, v := range tc.args {
			b, _ := json.Marshal(v)
			if s, ok := v.(string); ok {
				b = []byte(s)
			}
			values = append(values, toolapi.NamedValue{Name: k, Value: string(b)})
		}
		out := s.router.ServeBedrock(context.Background(), &transport.BedrockEvent{MessageVersion: "1.0", ActionGroup: "g", Function: tc.tool, Parameters: values}, 1500)
		body := out.Response.FunctionResponse.ResponseBody["TEXT"].Body
		var m map[string]any
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatalf("%s: body is not JSON: %v", tc.tool, err)
		}
		if len(body) > 1500 || m["truncated"] != true || out.Response.FunctionResponse.ResponseState != "" {
			t.Errorf("%s: %d bytes, truncated %v", tc.tool, len(body), m["truncated"])
		}
		if tc.tool != "file_access_grep" && m["continuation"] == nil {
			t.Errorf("%s: no continuation: %s", tc.tool, body)
		}
		if c, ok := m["content"].(string); ok && !strings.HasSuffix(c, "\n") {
			t.Errorf("%s: content not cut at a line end", tc.tool)
		}
	}
	// Following the continuation of a cut read_range gives the next lines.
	out := s.router.ServeBedrock(context.Background(), &transport.BedrockEvent{MessageVersion: "1.0", ActionGroup: "g", Function: "file_context_read_range",
		Parameters: []toolapi.NamedValue{{Name: "path", Value: "big.txt"}, {Name: "lineCount", Value: "1000"}}}, 4000)
	var m struct {
		Content      string
		Continuation struct{ Arguments map[string]any }
	}
	json.Unmarshal([]byte(out.Response.FunctionResponse.ResponseBody["TEXT"].Body), &m)
	next := int(m.Continuation.Arguments["startLine"].(float64))
	if next != strings.Count(m.Content, "\n")+1 {
		t.Errorf("continuation starts at %d after %d lines", next, strings.Count(m.Content, "\n"))
	}
}

func TestOpenAPIForBedrock(t *testing.T) {
	s := newSetup(t, writable(), nil)
	res := s.router.Serve(context.Background(), transport.Request{Method: "GET", Path: "/openapi.json"})
	if res.Status != 200 {
		t.Fatal(res.Status)
	}
	if bytes.Contains(res.Body, []byte(`"enum"`)) {
		t.Error("the document has an enum")
	}
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	json.Unmarshal(res.Body, &doc)
	var ops []string
	for p, item := range doc.Paths {
		op := item["post"]
		if op["operationId"] != strings.TrimPrefix(p, "/tools/") || op["description"] == "" {
			t.Errorf("%s: %v", p, op)
		}
		ops = append(ops, p)
	}
	sort.Strings(ops)
	if doc.OpenAPI != "3.0.0" || len(ops) != 11 {
		t.Errorf("openapi %s with %d operations: %v", doc.OpenAPI, len(ops), ops)
	}
	validator, err := exec.LookPath("openapi-spec-validator")
	if err != nil {
		t.Fatal("openapi-spec-validator (on the machine image) is not installed")
	}
	path := filepath.Join(t.TempDir(), "openapi.json")
	os.WriteFile(path, res.Body, 0o644)
	out, err := exec.Command(validator, path).CombinedOutput()
	if err != nil {
		t.Fatalf("openapi-spec-validator: %v\n%s", err, out)
	}
	t.Logf("openapi-spec-validator: %s", strings.TrimSpace(string(out)))
}

// GET /openapi.json?group= is the document of one action group: at most 11
// operations, write operations asking for confirmation, the graph group
// described even by a host without the graph; each passes the validator.
func TestOpenAPIOfOneActionGroup(t *testing.T) {
	s := newSetup(t, writable(), nil)
	validator, err := exec.LookPath("openapi-spec-validator")
	if err != nil {
		t.Fatal("openapi-spec-validator (on the machine image) is not installed")
	}
	want := map[string][]string{
		"read":  {"file_access_grep", "file_access_ls", "file_access_read", "file_access_read_lines", "file_context_download", "file_context_info", "file_context_read_range"},
		"write": {"file_access_delete", "file_access_replace", "file_access_replace_lines", "file_access_write"},
		"graph": {"file_context_markdown_graph_export", "file_context_markdown_graph_related", "file_context_markdown_graph_search"},
	}
	for _, group := range toolapi.Groups {
		res := s.router.Serve(context.Background(), transport.Request{Method: "GET", Path: "/openapi.json", Query: map[string]string{"group": group}})
		var doc struct {
			Paths map[string]map[string]map[string]any `json:"paths"`
		}
		if res.Status != 200 || json.Unmarshal(res.Body, &doc) != nil {
			t.Fatalf("%s: %d %s", group, res.Status, res.Body)
		}
		var ops []string
		for p, item := range doc.Paths {
			ops = append(ops, strings.TrimPrefix(p, "/tools/"))
			if (item["post"]["x-requireConfirmation"] == "ENABLED") != (group == "write") {
				t.Errorf("%s %s: x-requireConfirmation %v", group, p, item["post"]["x-requireConfirmation"])
			}
		}
		sort.Strings(ops)
		if strings.Join(ops, ",") != strings.Join(want[group], ",") || len(ops) > toolapi.MaxGroupOperations {
			t.Errorf("group %s = %v", group, ops)
		}
		path := filepath.Join(t.TempDir(), group+".json")
		os.WriteFile(path, res.Body, 0o644)
		if out, err := exec.Command(validator, path).CombinedOutput(); err != nil {
			t.Errorf("%s: openapi-spec-validator: %v\n%s", group, err, out)
		}
	}
	res := s.router.Serve(context.Background(), transport.Request{Method: "GET", Path: "/openapi.json", Query: map[string]string{"group": "admin"}})
	if res.Status != 400 {
		t.Errorf("an unknown group = %d", res.Status)
	}
	res = s.router.Serve(context.Background(), transport.Request{Method: "GET", Path: "/openapi.json"})
	if !bytes.Contains(res.Body, []byte("not the document of one Bedrock action group")) {
		t.Error("the whole document does not say it is not for one action group")
	}
}
