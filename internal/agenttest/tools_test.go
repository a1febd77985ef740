package agenttest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/internal/scriptedmodel"
	"github.com/filecontext-aws/filecontext/pkg/agent"
	"github.com/filecontext-aws/filecontext/pkg/client"
)

// step is one scripted tool call and what its result must contain.
type step struct {
	tool, args, want string
}

// runSteps scripts one tool call per turn, runs the agent, and checks every
// result.
func runSteps(t *testing.T, url, scenario string, steps []step) {
	t.Helper()
	m := scriptedmodel.New()
	defer m.Close()
	for i, s := range steps {
		m.Queue(scenario, scriptedmodel.Response{ToolCalls: []scriptedmodel.ToolCall{call("c"+itoa(i), s.tool, s.args)}})
	}
	m.Queue(scenario, scriptedmodel.Response{Text: "all done"})
	a := newAgent(m, url, scenario)
	a.MaxSteps = len(steps) + 1
	answer, err := a.Run(context.Background(), &agent.Conversation{}, "use every tool")
	if err != nil || answer != "all done" {
		t.Fatalf("run = %q %v", answer, err)
	}
	reqs := requests(t, m, scenario)
	res := toolResults(t, reqs[len(reqs)-1])
	for i, s := range steps {
		if got := res["c"+itoa(i)]; !strings.Contains(got, s.want) {
			t.Errorf("%s %s = %.300s, want %s", s.tool, s.args, got, s.want)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

var readSteps = []step{
	{"file_access_read", `{"fileName":"guides/approvals.md"}`, `"lineEnding":"lf"`},
	{"file_access_read_lines", `{"fileName":"notes/checklist.txt","startLine":2,"endLine":2}`, `"content":"2\t- run the tests\r\n"`},
	{"file_context_read_range", `{"path":"notes/todo.txt","lineCount":1}`, `"hasMore":true`},
	{"file_access_ls", `{"directory":"guides"}`, `"name":"approvals.md"`},
	{"file_access_grep", `{"regexPattern":"transports$"}`, `"lineNumber":2`},
	{"file_context_info", `{"path":"notes/todo.txt"}`, `"status":"found"`},
	{"file_context_download", `{"path":"notes/todo.txt","maxBytes":5}`, `"text":"alpha"`},
	{"file_context_markdown_graph_search", `{"query":"approvals"}`, `"label":"Approvals"`},
	{"file_context_markdown_graph_export", `{"format":"mermaid"}`, `graph LR`},
	{"file_context_markdown_graph_related", `{"path":"guides/approvals.md"}`, `"title":"Getting started"`},
}

func TestEveryToolThroughTheLoopWithApprovalOff(t *testing.T) {
	dir := fixtures(t)
	url := serve(t, dir, "--write-tools", "enabled", "--approval", "off")
	steps := append(append([]step{}, readSteps...),
		step{"file_access_write", `{"fileName":"notes/new.md","content":"# New\n"}`, `"status":"applied"`},
		step{"file_access_replace", `{"fileName":"notes/new.md","oldString":"New","newString":"Newer"}`, `Replaced 1 occurrence(s)`},
		step{"file_access_replace_lines", `{"fileName":"notes/new.md","edits":"[{\"line_number\":1,\"new_line\":\"# Newest\"}]"}`, `"invalid_argument"`},
		step{"file_access_replace_lines", `{"fileName":"notes/new.md","edits":[{"line_number":1,"new_line":"# Newest"}]}`, `Replaced 1 line(s)`},
		step{"file_access_delete", `{"fileName":"notes/todo.txt"}`, `deleted`},
	)
	runSteps(t, url, "approval-off", steps)
	if b, _ := os.ReadFile(filepath.Join(dir, "notes", "new.md")); string(b) != "# Newest\n" {
		t.Errorf("new.md = %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes", "todo.txt")); err == nil {
		t.Error("the delete did not happen")
	}
}

func TestWritesThroughTheLoopWaitForApproval(t *testing.T) {
	dir := fixtures(t)
	url := serve(t, dir, "--write-tools", "enabled")
	m := scriptedmodel.New()
	defer m.Close()
	m.Queue("parked", scriptedmodel.Response{ToolCalls: []scriptedmodel.ToolCall{
		call("w1", "file_access_write", `{"fileName":"notes/plan.md","content":"plan\n"}`),
		call("w2", "file_access_replace", `{"fileName":"notes/todo.txt","oldString":"alpha","newString":"ALPHA"}`),
		call("w3", "file_access_replace_lines", `{"fileName":"notes/checklist.txt","edits":[{"line_number":1,"new_line":"Checklist"}]}`),
		call("w4", "file_access_delete", `{"fileName":"guides/architecture.md"}`),
	}}, scriptedmodel.Response{Text: "proposed"})
	if _, err := newAgent(m, url, "parked").Run(context.Background(), &agent.Conversation{}, "propose"); err != nil {
		t.Fatal(err)
	}
	res := toolResults(t, requests(t, m, "parked")[1])
	operator := client.New(url)
	var ids []string
	for _, id := range []string{"w1", "w2", "w3", "w4"} {
		var parked client.WriteResult
		if err := json.Unmarshal([]byte(res[id]), &parked); err != nil || !parked.Pending() || parked.ApprovalID == "" {
			t.Fatalf("%s = %s", id, res[id])
		}
		ids = append(ids, parked.ApprovalID)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes", "plan.md")); err == nil {
		t.Fatal("a parked write was applied")
	}
	for _, id := range ids {
		if v, err := operator.Approve(context.Background(), id); err != nil || v.Status != "applied" {
			t.Fatalf("approve %s = %+v %v", id, v, err)
		}
	}
	// The agent polls the status and reads the files back.
	runSteps(t, url, "after", []step{
		{"file_context_approval_status", `{"approvalId":"` + ids[0] + `"}`, `"status":"applied"`},
		{"file_access_read", `{"fileName":"notes/plan.md"}`, `"content":"plan\n"`},
		{"file_access_read", `{"fileName":"notes/todo.txt"}`, `"content":"ALPHA: read the contract`},
		{"file_access_read_lines", `{"fileName":"notes/checklist.txt","startLine":1,"endLine":1}`, `"content":"1\tChecklist\r\n"`},
		{"file_context_info", `{"path":"guides/architecture.md"}`, `"status":"not_found"`},
	})
}
