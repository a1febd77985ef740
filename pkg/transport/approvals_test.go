package transport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/approval/boltstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

// approvalSetup is a router with write tools that park, and the approval
// routes, over the examples.
func approvalSetup(t *testing.T) (*transport.Router, *memstore.Store) {
	t.Helper()
	store := memstore.New()
	loadExamples(t, store)
	root, _ := pathsafe.NewRoot(secretPrefix)
	files, _ := fileops.New(store, root, fileops.DefaultLimits())
	bolt, err := boltstore.Open(filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bolt.Close() })
	svc, err := approval.New(approval.Options{Store: bolt, Files: files, Staging: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	tools := toolapi.New(toolapi.Options{Files: files, WriteTools: true, Approvals: svc})
	return &transport.Router{Tools: tools, Extra: []transport.Handler{&transport.ApprovalRoutes{Service: svc}}}, store
}

func serve(r *transport.Router, caller, method, path, body string) (int, map[string]any) {
	res := r.Serve(context.Background(), transport.Request{Method: method, Path: path, Body: []byte(body), Caller: toolapi.Caller{ID: caller},
		Query: map[string]string{}})
	var m map[string]any
	json.Unmarshal(res.Body, &m)
	return res.Status, m
}

func TestApprovalRoutes(t *testing.T) {
	r, store := approvalSetup(t)
	status, m := serve(r, "agent", "POST", "/tools/file_access_replace", `{"fileName":"notes/todo.txt","oldString":"alpha","newString":"ALPHA"}`)
	if status != 202 || m["status"] != "pending_approval" || m["approvalId"] == nil || !strings.Contains(m["preview"].(map[string]any)["diff"].(string), "+ALPHA") {
		t.Fatalf("park = %d %v", status, m)
	}
	id := m["approvalId"].(string)
	if _, m := serve(r, "agent", "POST", "/tools/file_context_approval_status", `{"approvalId":"`+id+`"}`); m["status"] != "pending" || m["requestedBy"] != "agent" {
		t.Errorf("status tool = %v", m)
	}
	if status, m := serve(r, "ops", "GET", "/approvals", ""); status != 200 || len(m["approvals"].([]any)) != 1 {
		t.Errorf("list = %d %v", status, m)
	}
	for _, tc := range []struct {
		caller, method, path, body string
		status                     int
		code                       string
	}{
		{"ops", "POST", "/approvals/" + id + "/approve", `{"approver":"someone-else"}`, 400, "invalid_argument"},
		{"ops", "POST", "/approvals/" + id + "/reject", `{"reason":"x","decidedBy":"forged"}`, 400, "invalid_argument"},
		{"ops", "POST", "/approvals/" + id + "/reject", `{"reason":"` + strings.Repeat("r", 2000) + `"}`, 422, "limit_exceeded"},
		{"agent", "POST", "/approvals/" + id + "/approve", ``, 403, "forbidden"},
		{"ops", "POST", "/approvals/apr_unknown/approve", ``, 404, "not_found"},
		{"ops", "GET", "/approvals/apr_unknown", ``, 404, "not_found"},
		{"ops", "GET", "/approvals/" + id + "/extra", ``, 404, "not_found"},
		{"ops", "DELETE", "/approvals/" + id, ``, 405, "method_not_allowed"},
		{"ops", "GET", "/approvals/" + id + "/approve", ``, 405, "method_not_allowed"},
		{"ops", "POST", "/approvals", ``, 405, "method_not_allowed"},
		{"agent", "POST", "/tools/file_access_write", `{"fileName":"x.md","content":"x","requestedBy":"arn:aws:iam::1:user/ops"}`, 400, "invalid_argument"},
	} {
		status, m := serve(r, tc.caller, tc.method, tc.path, tc.body)
		if status != tc.status || errCode(m) != tc.code {
			t.Errorf("%s %s %s = %d %v, want %d %s", tc.caller, tc.method, tc.path, status, m, tc.status, tc.code)
		}
	}
	res := r.Serve(context.Background(), transport.Request{Method: "GET", Path: "/approvals", Query: map[string]string{"limit": "many"}})
	if res.Status != 400 {
		t.Errorf("bad limit = %d", res.Status)
	}
	if got, _ := store.Get(context.Background(), secretPrefix+"notes/todo.txt", fileops.GetOptions{Length: -1}); got.Info.Size != 83 {
		t.Fatal("the file changed before approval")
	}
	status, m = serve(r, "ops", "POST", "/approvals/"+id+"/approve", "{}")
	if status != 200 || m["status"] != "applied" || m["decidedBy"] != "ops" {
		t.Fatalf("approve = %d %v", status, m)
	}
	status, m = serve(r, "ops", "POST", "/approvals/"+id+"/approve", "")
	current, _ := m["error"].(map[string]any)["details"].(map[string]any)["approval"].(map[string]any)
	if status != 409 || current["status"] != "applied" {
		t.Errorf("second approve = %d %v", status, m)
	}
	if _, m := serve(r, "agent", "POST", "/tools/file_access_read", `{"fileName":"notes/todo.txt"}`); !strings.HasPrefix(m["content"].(string), "ALPHA") {
		t.Errorf("after approval: %v", m["content"])
	}
	// Reject with a reason.
	_, m = serve(r, "agent", "POST", "/tools/file_access_delete", `{"fileName":"notes/todo.txt"}`)
	id2 := m["approvalId"].(string)
	if status, m := serve(r, "ops", "POST", "/approvals/"+id2+"/reject", `{"reason":"keep it"}`); status != 200 || m["status"] != "rejected" || m["reason"] != "keep it" {
		t.Errorf("reject = %d %v", status, m)
	}
}

func TestBedrockWritesPark(t *testing.T) {
	r, _ := approvalSetup(t)
	for _, e := range []*transport.BedrockEvent{
		{MessageVersion: "1.0", ActionGroup: "write", Function: "file_access_write", Parameters: []toolapi.NamedValue{
			{Name: "fileName", Value: "notes/new.md"}, {Name: "content", Value: "hello"}}},
		{MessageVersion: "1.0", ActionGroup: "write", Function: "file_access_replace_lines", Parameters: []toolapi.NamedValue{
			{Name: "fileName", Value: "notes/todo.txt"}, {Name: "edits", Type: "array", Value: `[{"line_number":1,"new_line":"x"}]`}}},
	} {
		out := r.ServeBedrock(context.Background(), e, 20000)
		fr := out.Response.FunctionResponse
		var m map[string]any
		if err := json.Unmarshal([]byte(fr.ResponseBody["TEXT"].Body), &m); err != nil || fr.ResponseState != "" || m["status"] != "pending_approval" ||
			!strings.HasPrefix(m["approvalId"].(string), "apr_") {
			t.Errorf("%s = %+v %s", e.Function, fr, fr.ResponseBody["TEXT"].Body)
		}
	}
	gw := r.ServeAPIGateway(context.Background(), &events.APIGatewayProxyRequest{HTTPMethod: "POST", Path: "/tools/file_access_write",
		Body: `{"fileName":"gw.md","content":"x"}`, RequestContext: events.APIGatewayProxyRequestContext{Identity: events.APIGatewayRequestIdentity{UserArn: "arn:aws:sts::1:assumed-role/agent/s"}}})
	var m map[string]any
	json.Unmarshal([]byte(gw.Body), &m)
	if gw.StatusCode != 202 {
		t.Fatalf("gateway park = %d %s", gw.StatusCode, gw.Body)
	}
	_, v := serve(r, "x", "GET", "/approvals/"+m["approvalId"].(string), "")
	if v["requestedBy"] != "arn:aws:sts::1:assumed-role/agent/s" {
		t.Errorf("requestedBy = %v", v["requestedBy"])
	}
}

// The approve function's scheduled event runs the sweep; other events are
// not its own.
func TestScheduledSweep(t *testing.T) {
	r, _ := approvalSetup(t)
	svc := r.Extra[0].(*transport.ApprovalRoutes).Service
	h := transport.ScheduledSweep(svc, slog.New(slog.NewTextHandler(io.Discard, nil)))
	out, ok, err := h(context.Background(), json.RawMessage(`{"source":"aws.events","detail-type":"Scheduled Event","detail":{}}`))
	if !ok || err != nil || fmt.Sprint(out) != "map[expired:0]" {
		t.Errorf("sweep = %v %v %v", out, ok, err)
	}
	if _, ok, _ := h(context.Background(), json.RawMessage(`{"source":"aws.s3"}`)); ok {
		t.Error("an S3 event was taken for the schedule")
	}
}
