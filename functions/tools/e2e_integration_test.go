//go:build integration

package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/filecontext-aws/filecontext/internal/agenttest"
	"github.com/filecontext-aws/filecontext/internal/testenv"
)

const prefix = "tenant-e2e-91c4/"

func TestToolsFunctionUnderRIE(t *testing.T) {
	target := testenv.Versitygw(t)
	bucket := testenv.NewBucket(t, target.Client)
	examples := filepath.Join("..", "..", "examples")
	testenv.UploadDir(t, target.Client, bucket, prefix, examples)
	env := testenv.LambdaEnv(t, bucket, prefix)
	env["FILECONTEXT_WRITE_TOOLS"], env["FILECONTEXT_APPROVAL"] = "enabled", "off"
	rie := testenv.StartRIE(t, testenv.BuildBootstrap(t, "."), env)

	raw, err := os.ReadFile("../../events/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var expected map[string]int
	json.Unmarshal(raw, &expected)
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			testenv.ResetDir(t, target.Client, bucket, prefix, examples) // undo earlier writes
			event, err := os.ReadFile(filepath.Join("../../events", name))
			if err != nil {
				t.Fatal(err)
			}
			out, err := rie.Invoke(context.Background(), event)
			if err != nil {
				t.Fatal(err)
			}
			status, body := testenv.Answer(t, out)
			if status != want {
				t.Fatalf("status %d, want %d: %s", status, want, body)
			}
			for _, secret := range []string{bucket, strings.TrimSuffix(prefix, "/")} {
				if strings.Contains(string(out), secret) {
					t.Errorf("the answer shows %q: %s", secret, out)
				}
			}
		})
	}

	t.Run("generated events", func(t *testing.T) {
		testenv.UploadDir(t, target.Client, bucket, prefix, examples)
		for i, name := range []string{"README.md", "guides/approvals.md", "guides/architecture.md", "notes/todo.txt", "missing.txt"} {
			body, _ := json.Marshal(map[string]any{"fileName": name})
			event, _ := json.Marshal(map[string]any{
				"httpMethod": "POST", "path": "/tools/file_access_read", "resource": "/tools/file_access_read",
				"requestContext": map[string]any{"requestId": fmt.Sprintf("gen-%d", i), "identity": map[string]any{"userArn": "arn:aws:iam::123456789012:user/tester"}},
				"body":           string(body),
			})
			out, err := rie.Invoke(context.Background(), event)
			if err != nil {
				t.Fatal(err)
			}
			status, resp := testenv.Answer(t, out)
			want := 200
			if name == "missing.txt" {
				want = 404
			}
			if status != want {
				t.Errorf("%s: %d %s", name, status, resp)
			}
			if want == 200 {
				local, _ := os.ReadFile(filepath.Join(examples, name))
				var r struct{ Content string }
				json.Unmarshal([]byte(resp), &r)
				if r.Content != string(local) {
					t.Errorf("%s: content differs from the file", name)
				}
			}
		}
	})
	if d, ok := rie.InitDuration(); ok {
		t.Logf("init duration under the emulator: %v", d)
	}
}

// stuckListener accepts connections and never answers: a storage endpoint
// that hangs.
func stuckListener(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + ln.Addr().String()
}

// templateTimeouts reads, from the synthesized dev template, the API's
// integration timeout and the tools function's operation timeout and
// function timeout.
func templateTimeouts(t *testing.T) (integration, operation time.Duration, function int) {
	path := filepath.Join("..", "..", "infra", "cdk", "cdk.out", "dev", "FileContext-dev.template.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: synthesize the stack first (scripts/synth.sh dev; scripts/test does it before these tests)", err)
	}
	var tpl struct {
		Resources map[string]struct {
			Type       string
			Properties map[string]any
		}
	}
	if err := json.Unmarshal(raw, &tpl); err != nil {
		t.Fatal(err)
	}
	for _, r := range tpl.Resources {
		switch r.Type {
		case "AWS::ApiGateway::Method":
			if integ, ok := r.Properties["Integration"].(map[string]any); ok {
				if ms, ok := integ["TimeoutInMillis"].(float64); ok {
					integration = time.Duration(ms) * time.Millisecond
				}
			}
		case "AWS::Lambda::Function":
			if name, _ := r.Properties["FunctionName"].(string); strings.HasSuffix(name, "-tools") {
				vars := r.Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
				operation, err = time.ParseDuration(vars["FILECONTEXT_OPERATION_TIMEOUT"].(string))
				if err != nil {
					t.Fatal(err)
				}
				function = int(r.Properties["Timeout"].(float64))
			}
		}
	}
	if integration == 0 || operation == 0 || function == 0 {
		t.Fatalf("the template lacks the timeouts: integration %v, operation %v, function %d", integration, operation, function)
	}
	return integration, operation, function
}

// A storage endpoint that never answers gets the contract's 504 from the
// function, before API Gateway's integration timeout in the template would
// answer with its own.
func TestStuckStorageAnswers504BeforeTheIntegrationTimeout(t *testing.T) {
	integration, operation, function := templateTimeouts(t)
	env := map[string]string{
		"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
		"AWS_ENDPOINT_URL_S3": stuckListener(t), "FILECONTEXT_S3_PATH_STYLE": "true",
		"FILECONTEXT_BUCKET": "stuck", "FILECONTEXT_OPERATION_TIMEOUT": operation.String(),
		"AWS_LAMBDA_FUNCTION_TIMEOUT": strconv.Itoa(function),
	}
	rie := testenv.StartRIE(t, testenv.BuildBootstrap(t, "."), env)
	event, err := os.ReadFile("../../events/apigw/file_access_read.json")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := rie.Invoke(context.Background(), event)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	status, body := testenv.Answer(t, out)
	if status != 504 || !strings.Contains(body, `"timeout"`) {
		t.Errorf("a stuck store answered %d: %s", status, body)
	}
	if took >= integration {
		t.Errorf("the answer took %v, not under the integration timeout of %v", took, integration)
	}
	t.Logf("504 after %v (operation timeout %v, integration timeout %v)", took.Round(time.Millisecond), operation, integration)
}

// MCP's streamable HTTP through the tools function under aws-lambda-rie,
// behind the API Gateway stand-in, with the Go SDK's client.
func TestMCPThroughTheToolsFunction(t *testing.T) {
	target := testenv.Versitygw(t)
	bucket := testenv.NewBucket(t, target.Client)
	testenv.UploadDir(t, target.Client, bucket, prefix, filepath.Join("..", "..", "examples"))
	env := testenv.LambdaEnv(t, bucket, prefix)
	env["FILECONTEXT_WRITE_TOOLS"], env["FILECONTEXT_APPROVAL"] = "enabled", "off"
	rie := testenv.StartRIE(t, testenv.BuildBootstrap(t, "."), env)
	gateway := agenttest.Gateway(t, "arn:aws:iam::111122223333:role/agent", func(string) *testenv.RIE { return rie })

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: gateway + "/mcp"}, nil)
	if err != nil {
		t.Fatalf("connect through the gateway: %v\n%s", err, rie.Logs())
	}
	defer session.Close()
	if !strings.Contains(session.InitializeResult().Instructions, "file_context_read_range") {
		t.Error("no instructions in initialize")
	}
	list, err := session.ListTools(ctx, nil)
	if err != nil || len(list.Tools) < 11 {
		t.Fatalf("tools/list = %v %v", list, err)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "file_access_read", Arguments: map[string]any{"fileName": "notes/todo.txt"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "alpha") {
		t.Fatalf("read = %+v %v", res, err)
	}
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "file_access_write", Arguments: map[string]any{"fileName": "mcp.md", "content": "from MCP"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"applied"`) {
		t.Fatalf("write = %+v %v", res, err)
	}
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "file_access_read", Arguments: map[string]any{"fileName": "../x"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "invalid_path") {
		t.Errorf("a hostile path = %+v %v", res, err)
	}
	if out := rie.Logs(); strings.Contains(out, bucket) && strings.Contains(res.Content[0].(*mcp.TextContent).Text, bucket) {
		t.Error("an answer shows the bucket")
	}
}

// AgentCore Gateway Lambda targets: the tool named in the client context's
// bedrockAgentCoreToolName ("<target>___<tool>"), the arguments as the
// event, the contract JSON as the answer.
func TestAgentCoreTargetUnderRIE(t *testing.T) {
	target := testenv.Versitygw(t)
	bucket := testenv.NewBucket(t, target.Client)
	testenv.UploadDir(t, target.Client, bucket, prefix, filepath.Join("..", "..", "examples"))
	rie := testenv.StartRIE(t, testenv.BuildBootstrap(t, "."), testenv.LambdaEnv(t, bucket, prefix))
	invoke := func(tool, args string) map[string]any {
		cc, _ := json.Marshal(map[string]any{"custom": map[string]string{
			"bedrockAgentCoreToolName": "filecontext-target___" + tool, "bedrockAgentCoreGatewayId": "gw-123",
			"bedrockAgentCoreTargetId": "tg-1", "bedrockAgentCoreMessageVersion": "1.0",
		}})
		out, err := rie.InvokeWithHeaders(context.Background(), []byte(args),
			map[string]string{"X-Amz-Client-Context": base64.StdEncoding.EncodeToString(cc)})
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("%s: %s", tool, out)
		}
		return m
	}
	if m := invoke("file_access_read", `{"fileName":"notes/todo.txt"}`); !strings.HasPrefix(fmt.Sprint(m["content"]), "alpha") {
		t.Errorf("read = %v", m)
	}
	if m := invoke("file_access_grep", `{"regexPattern":"match"}`); m["results"] == nil {
		t.Errorf("grep = %v", m)
	}
	m := invoke("file_access_read", `{"fileName":"missing.md"}`)
	if e, _ := m["error"].(map[string]any); e["code"] != "not_found" {
		t.Errorf("a missing file = %v", m)
	}
	m = invoke("file_access_read", `{"fileName":"a.md","nope":1}`)
	if e, _ := m["error"].(map[string]any); e["code"] != "invalid_argument" {
		t.Errorf("an unknown argument = %v", m)
	}
}
