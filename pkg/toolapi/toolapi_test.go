package toolapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
)

type stubApprovals struct{ parked int }

func (s *stubApprovals) Park(_ context.Context, c *fileops.Change, requester string, args []byte) (any, error) {
	s.parked++
	return map[string]any{"status": "pending_approval", "requestedBy": requester, "path": c.Path.String(), "args": json.RawMessage(args)}, nil
}
func (s *stubApprovals) Status(_ context.Context, id string) (any, error) {
	if id == "missing" {
		return nil, fault.New(fault.NotFound, "no")
	}
	return map[string]any{"approvalId": id}, nil
}

func server(t *testing.T, opts toolapi.Options) *toolapi.Server {
	store := memstore.New()
	store.Put(context.Background(), "a.md", []byte("alpha\nbeta\n"), fileops.PutOptions{})
	files, _ := fileops.New(store, pathsafe.Root{}, fileops.DefaultLimits())
	opts.Files = files
	return toolapi.New(opts)
}

func TestCatalogFollowsTheOptions(t *testing.T) {
	ro := server(t, toolapi.Options{})
	names := func(s *toolapi.Server) string {
		var n []string
		for _, e := range s.Catalog().Tools {
			n = append(n, e.Name)
		}
		return strings.Join(n, ",")
	}
	if got := names(ro); got != "file_access_read,file_access_read_lines,file_context_read_range,file_access_ls,file_access_grep,file_context_info,file_context_download" {
		t.Errorf("read-only catalog = %s", got)
	}
	a := &stubApprovals{}
	rw := server(t, toolapi.Options{WriteTools: true, Approvals: a})
	cat := rw.Catalog()
	if len(cat.Tools) != 12 || !strings.Contains(cat.Instructions, "approver") || !strings.Contains(cat.Instructions, "file_context_approval_status") {
		t.Errorf("writable catalog: %d tools; %s", len(cat.Tools), cat.Instructions)
	}
	for _, e := range cat.Tools {
		tool, _ := rw.Tool(e.Name)
		if e.RequiresApproval != tool.IsWrite() || e.ReadOnly == tool.IsWrite() {
			t.Errorf("%s: readOnly %v requiresApproval %v", e.Name, e.ReadOnly, e.RequiresApproval)
		}
		schema, _ := json.Marshal(e.InputSchema)
		if !strings.Contains(string(schema), `"additionalProperties":false`) || !strings.Contains(e.Description, "") {
			t.Errorf("%s: schema %s", e.Name, schema)
		}
	}
	off := server(t, toolapi.Options{WriteTools: true, ApprovalOff: true})
	if !strings.Contains(off.Instructions(), "Writes apply at once") {
		t.Error("instructions do not say writes apply at once")
	}
	for _, e := range off.Catalog().Tools {
		if e.RequiresApproval {
			t.Errorf("%s requires approval with approval off", e.Name)
		}
	}
	doc := rw.OpenAPI("t", "file_access_read", "file_access_write")
	paths := doc["paths"].(map[string]any)
	if len(paths) != 2 || !strings.Contains(paths["/tools/file_access_write"].(map[string]any)["post"].(map[string]any)["description"].(string), "waits for a human approver") {
		t.Errorf("OpenAPI subset = %v", paths)
	}
}

func TestCallsParkWithTheCallerAndValidatedArguments(t *testing.T) {
	a := &stubApprovals{}
	s := server(t, toolapi.Options{WriteTools: true, Approvals: a})
	res := s.Call(context.Background(), toolapi.Caller{ID: "agent-1"}, "file_access_replace", []byte(`{"fileName":"a.md","oldString":"beta","newString":"gamma"}`))
	body := res.Body.(map[string]any)
	if res.Status != 202 || body["requestedBy"] != "agent-1" || a.parked != 1 || !strings.Contains(string(body["args"].(json.RawMessage)), "gamma") {
		t.Errorf("park = %d %v", res.Status, body)
	}
	res = s.Call(context.Background(), toolapi.Caller{}, "file_access_replace", []byte(`{"fileName":"a.md","oldString":"zzz","newString":"y"}`))
	if res.Status != 422 || a.parked != 1 {
		t.Errorf("a rejected edit was parked: %d", res.Status)
	}
	res = s.Call(context.Background(), toolapi.Caller{}, "file_context_approval_status", []byte(`{"approvalId":"missing"}`))
	if res.Status != 404 || res.Err == nil {
		t.Errorf("status of a missing approval = %d", res.Status)
	}
	res = s.Call(context.Background(), toolapi.Caller{}, "file_context_approval_status", []byte(`{"approvalId":"apr_1"}`))
	if res.Status != 200 {
		t.Errorf("status = %d", res.Status)
	}
}

func TestCoercion(t *testing.T) {
	s := server(t, toolapi.Options{WriteTools: true, ApprovalOff: true})
	for _, tc := range []struct {
		tool   string
		values []toolapi.NamedValue
		ok     bool
		arg    string
	}{
		{"file_access_read_lines", []toolapi.NamedValue{{Name: "fileName", Value: "a.md"}, {Name: "startLine", Value: " 2 "}}, true, ""},
		{"file_access_read_lines", []toolapi.NamedValue{{Name: "fileName", Value: "a.md"}, {Name: "startLine", Value: "2.0"}}, true, ""},
		{"file_access_read_lines", []toolapi.NamedValue{{Name: "fileName", Value: "a.md"}, {Name: "startLine", Value: "2.5"}}, false, "startLine"},
		{"file_access_grep", []toolapi.NamedValue{{Name: "regexPattern", Value: "a"}, {Name: "caseSensitive", Value: "TRUE"}}, true, ""},
		{"file_access_grep", []toolapi.NamedValue{{Name: "regexPattern", Value: "a"}, {Name: "caseSensitive", Value: "yes"}}, false, "caseSensitive"},
		{"file_access_replace_lines", []toolapi.NamedValue{{Name: "fileName", Value: "a.md"}, {Name: "edits", Value: `[{"line_number":1,"new_line":"x"}]`}}, true, ""},
		{"file_access_read", []toolapi.NamedValue{{Name: "fileName", Value: "a.md"}, {Name: "bogus", Value: "1"}}, false, "bogus"},
		{"no_such_tool", nil, false, ""},
	} {
		args, err := s.Coerce(tc.tool, tc.values)
		if err == nil {
			res := s.Call(context.Background(), toolapi.Caller{}, tc.tool, args)
			if res.Err != nil {
				err = res.Err
			}
		}
		if (err == nil) != tc.ok {
			t.Errorf("%s %v: %v", tc.tool, tc.values, err)
		}
		if err != nil && tc.arg != "" && fault.As(err).Details["argument"] != tc.arg {
			t.Errorf("%s: error names %v, want %s", tc.tool, fault.As(err).Details["argument"], tc.arg)
		}
	}
}

func TestJSONSchemaOfNestedParams(t *testing.T) {
	one := 1
	s := toolapi.JSONSchema([]toolapi.Param{{Name: "n", Type: "integer", Minimum: &one, Default: 1, Required: true},
		{Name: "items", Type: "array", Items: []toolapi.Param{{Name: "x", Type: "string", Required: true}}}}, false)
	b, _ := json.Marshal(s)
	want := `{"properties":{"items":{"description":"","items":{"properties":{"x":{"description":"","type":"string"}},"required":["x"],"type":"object"},"type":"array"},"n":{"default":1,"description":"","minimum":1,"type":"integer"}},"required":["n"],"type":"object"}`
	if string(b) != want {
		t.Errorf("schema = %s", b)
	}
}

func TestTypedDecodeFailures(t *testing.T) {
	// A tool whose argument type cannot hold the JSON it receives.
	tool := toolapi.Tool{Name: "odd", ReadOnly: true, Params: []toolapi.Param{{Name: "n", Type: "integer"}},
		Run: toolapi.Typed(func(_ context.Context, a struct{ N string }) (any, error) { return a, nil })}
	s := toolapi.New(toolapi.Options{Extra: []toolapi.Tool{tool}})
	res := s.Call(context.Background(), toolapi.Caller{}, "odd", []byte(`{"n":3}`))
	if res.Status != 400 || !strings.Contains(res.Err.Message, "do not decode") {
		t.Errorf("decode failure = %d %v", res.Status, res.Err)
	}
}

// The AgentCore tool schema lists the enabled tools with input schemas
// reduced to the keywords the gateway accepts, nested items included.
func TestAgentCoreToolSchema(t *testing.T) {
	s := server(t, toolapi.Options{WriteTools: true, Approvals: &stubApprovals{}})
	schema := s.AgentCoreToolSchema()
	if len(schema) != len(s.Enabled()) {
		t.Fatalf("%d tools, %d enabled", len(schema), len(s.Enabled()))
	}
	b, _ := json.Marshal(schema)
	text := string(b)
	for _, no := range []string{`"default"`, `"minimum"`, `"additionalProperties"`, `"enum"`} {
		if strings.Contains(text, no) {
			t.Errorf("the schema holds %s", no)
		}
	}
	for _, tool := range schema {
		if tool["name"] != "file_access_replace_lines" {
			continue
		}
		edits := tool["inputSchema"].(map[string]any)["properties"].(map[string]any)["edits"].(map[string]any)
		items := edits["items"].(map[string]any)
		if edits["type"] != "array" || items["properties"].(map[string]any)["line_number"] == nil {
			t.Errorf("edits = %v", edits)
		}
	}
}

// A group this host cannot describe is refused; the graph group is
// described from the specs where the host has no graph.
func TestGroupOpenAPIRefusesUnknownGroups(t *testing.T) {
	s := server(t, toolapi.Options{})
	for _, g := range []string{"admin", "write"} { // write: write tools are off here
		if _, err := s.GroupOpenAPI("t", g); fault.CodeOf(err) != fault.InvalidArgument {
			t.Errorf("group %s: %v", g, err)
		}
	}
	doc, err := s.GroupOpenAPI("t", "graph")
	if err != nil || len(doc["paths"].(map[string]any)) != 3 {
		t.Errorf("graph from the specs = %v %v", doc, err)
	}
}
