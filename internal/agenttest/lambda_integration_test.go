//go:build integration

package agenttest

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/internal/scriptedmodel"
	"github.com/filecontext-aws/filecontext/internal/testenv"
	"github.com/filecontext-aws/filecontext/pkg/agent"
	"github.com/filecontext-aws/filecontext/pkg/approval/dynamostore"
	"github.com/filecontext-aws/filecontext/pkg/client"
)

const prefix = "agents/"

// TestTheLoopAgainstTheLambdas runs the agent against the three functions
// under aws-lambda-rie (data and system buckets in versitygw, the approvals
// table in moto), reached through an API Gateway stand-in that passes the
// caller's identity as IAM would.
func TestTheLoopAgainstTheLambdas(t *testing.T) {
	s3t := testenv.Versitygw(t)
	moto := testenv.DynamoTargets(t)[0]
	table := testenv.TableName()
	if err := dynamostore.CreateTable(context.Background(), moto.Client, table); err != nil {
		t.Fatal(err)
	}
	bucket, system := testenv.NewBucket(t, s3t.Client), testenv.NewBucket(t, s3t.Client)
	testenv.UploadDir(t, s3t.Client, bucket, prefix, filepath.Join("..", "..", "examples"))
	env := testenv.LambdaEnv(t, bucket, prefix)
	env["FILECONTEXT_SYSTEM_BUCKET"], env["FILECONTEXT_APPROVALS_TABLE"] = system, table
	env["AWS_ENDPOINT_URL_DYNAMODB"] = os.Getenv("FILECONTEXT_TEST_MOTO_URL")
	toolsEnv := maps.Clone(env)
	toolsEnv["FILECONTEXT_WRITE_TOOLS"] = "enabled"
	tools := testenv.StartRIE(t, testenv.BuildBootstrap(t, "../../functions/tools"), toolsEnv)
	graph := testenv.StartRIE(t, testenv.BuildBootstrap(t, "../../functions/graph"), env)
	approve := testenv.StartRIE(t, testenv.BuildBootstrap(t, "../../functions/approve"), env)
	route := func(path string) *testenv.RIE {
		switch {
		case strings.HasPrefix(path, "/approvals"):
			return approve
		case IsGraphRoute(path):
			return graph
		}
		return tools
	}
	agentURL := Gateway(t, "arn:aws:sts::123456789012:assumed-role/agent/s", route)
	approverURL := Gateway(t, "arn:aws:sts::123456789012:assumed-role/approver/s", route)

	m := scriptedmodel.New()
	defer m.Close()
	m.Queue("lambda", scriptedmodel.Response{ToolCalls: []scriptedmodel.ToolCall{
		call("l1", "file_access_read", `{"fileName":"notes/todo.txt"}`),
		call("l2", "file_context_markdown_graph_search", `{"query":"approvals"}`),
		call("l3", "file_access_replace", `{"fileName":"notes/todo.txt","oldString":"gamma","newString":"GAMMA"}`),
	}}, scriptedmodel.Response{Text: "proposed"})
	a := newAgent(m, agentURL, "lambda")
	a.Concurrent = true
	if answer, err := a.Run(context.Background(), &agent.Conversation{}, "read and propose"); err != nil || answer != "proposed" {
		t.Fatalf("run = %q %v", answer, err)
	}
	reqs := requests(t, m, "lambda")
	res := toolResults(t, reqs[1])
	local, _ := os.ReadFile(filepath.Join("..", "..", "examples", "notes", "todo.txt"))
	var read struct{ Content string }
	json.Unmarshal([]byte(res["l1"]), &read)
	if read.Content != string(local) || !strings.Contains(res["l2"], `"label":"Approvals"`) {
		t.Errorf("results = %v", res)
	}
	var parked client.WriteResult
	if err := json.Unmarshal([]byte(res["l3"]), &parked); err != nil || !parked.Pending() {
		t.Fatalf("the write was not parked: %s", res["l3"])
	}
	for _, tool := range reqs[0].Tools {
		if tool.Function.Name == "file_access_write" {
			goto offered
		}
	}
	t.Error("the write tools are not offered while writes are enabled")
offered:
	if _, err := client.New(agentURL).Approve(context.Background(), parked.ApprovalID); !client.IsCode(err, "forbidden") {
		t.Errorf("self-approval: %v", err)
	}
	if v, err := client.New(approverURL).Approve(context.Background(), parked.ApprovalID); err != nil || v.Status != "applied" {
		t.Fatalf("approve = %+v %v", v, err)
	}
	runSteps(t, agentURL, "lambda-after", []step{
		{"file_context_approval_status", `{"approvalId":"` + parked.ApprovalID + `"}`, `"status":"applied"`},
		{"file_access_read", `{"fileName":"notes/todo.txt"}`, `GAMMA: ship the approvals`},
	})
}
