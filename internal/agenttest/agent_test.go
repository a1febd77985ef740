package agenttest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/filecontext-aws/filecontext/internal/scriptedmodel"
	"github.com/filecontext-aws/filecontext/pkg/agent"
	"github.com/filecontext-aws/filecontext/pkg/client"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// cli builds cmd/filecontext once for the package's tests.
func cli(t *testing.T) string {
	buildOnce.Do(func() {
		dir, _ := os.MkdirTemp("", "filecontext-bin")
		binPath = filepath.Join(dir, "filecontext")
		out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/filecontext").CombinedOutput()
		if err != nil {
			buildErr = err
			binPath = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build: %v\n%s", buildErr, binPath)
	}
	return binPath
}

// fixtures copies examples/ into a fresh directory.
func fixtures(t *testing.T) string {
	dir := t.TempDir()
	root := filepath.Join("..", "..", "examples")
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
		b, _ := os.ReadFile(p)
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	os.WriteFile(filepath.Join(dir, "notes", "empty.txt"), nil, 0o644)
	return dir
}

// serve starts the local server as a process and returns its URL.
func serve(t *testing.T, dir string, args ...string) string {
	cmd := exec.Command(cli(t), append([]string{"serve", "--root", dir, "--addr", "127.0.0.1:0", "--state", t.TempDir()}, args...)...)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, stdout)
	return regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(line)
}

func newAgent(model *scriptedmodel.Server, endpoint, scenario string) *agent.Agent {
	return &agent.Agent{
		Model:     openai.NewClient(option.WithBaseURL(model.BaseURL()), option.WithAPIKey("test"), option.WithMaxRetries(0)),
		ModelName: scenario,
		Tools:     client.New(endpoint),
	}
}

func call(id, name, args string) scriptedmodel.ToolCall {
	return scriptedmodel.ToolCall{ID: id, Name: name, Arguments: args}
}

// request is a recorded chat completion request.
type request struct {
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct{ Name, Arguments string }
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func requests(t *testing.T, m *scriptedmodel.Server, scenario string) []request {
	var out []request
	for _, raw := range m.Requests(scenario) {
		var r request
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// toolResults maps tool_call_id to the tool message's content in a request,
// and fails unless every assistant tool call is closed by exactly one result.
func toolResults(t *testing.T, r request) map[string]string {
	t.Helper()
	results := map[string]string{}
	open := map[string]bool{}
	for _, m := range r.Messages {
		for _, c := range m.ToolCalls {
			open[c.ID] = true
		}
		if m.Role == "tool" {
			if _, dup := results[m.ToolCallID]; dup {
				t.Errorf("two results for %s", m.ToolCallID)
			}
			s, _ := m.Content.(string)
			results[m.ToolCallID] = s
			delete(open, m.ToolCallID)
		}
	}
	for id := range open {
		t.Errorf("tool call %s has no result", id)
	}
	return results
}

func TestAReadReachesTheModelAndTheAnswerIsTheScriptedText(t *testing.T) {
	dir := fixtures(t)
	url := serve(t, dir)
	m := scriptedmodel.New()
	defer m.Close()
	m.Queue("read", scriptedmodel.Response{ToolCalls: []scriptedmodel.ToolCall{call("call_1", "file_access_read", `{"fileName":"notes/todo.txt"}`)}},
		scriptedmodel.Response{Text: "The notes list three tasks."})
	answer, err := newAgent(m, url, "read").Run(context.Background(), &agent.Conversation{}, "What is in notes/todo.txt?")
	if err != nil || answer != "The notes list three tasks." {
		t.Fatalf("answer = %q, %v", answer, err)
	}
	reqs := requests(t, m, "read")
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	first := reqs[0]
	if first.Messages[0].Role != "system" || !strings.Contains(first.Messages[0].Content.(string), "untrusted") {
		t.Errorf("the system prompt is not the instructions: %v", first.Messages[0].Content)
	}
	for _, tool := range first.Tools {
		if strings.Contains(tool.Function.Name, "write") || strings.Contains(tool.Function.Name, "delete") || strings.Contains(tool.Function.Name, "replace") {
			t.Errorf("a write tool is offered while writes are disabled: %s", tool.Function.Name)
		}
	}
	content, _ := os.ReadFile(filepath.Join(dir, "notes", "todo.txt"))
	got := toolResults(t, reqs[1])["call_1"]
	var r struct{ Content string }
	json.Unmarshal([]byte(got), &r)
	if r.Content != string(content) {
		t.Errorf("the file content did not reach the model: %s", got)
	}
	if st := m.Stats(); st.Matched != 2 || st.Unmatched != 0 || st.Exhausted != 0 {
		t.Errorf("stats = %+v", st)
	}
}

func TestThreeCallsInOneTurnOneFailing(t *testing.T) {
	url := serve(t, fixtures(t))
	for _, concurrent := range []bool{false, true} {
		m := scriptedmodel.New()
		defer m.Close()
		scenario := "three"
		m.Queue(scenario, scriptedmodel.Response{ToolCalls: []scriptedmodel.ToolCall{
			call("call_a", "file_access_read", `{"fileName":"notes/todo.txt"}`),
			call("call_b", "file_access_read", `{"fileName":"notes/missing.txt"}`),
			call("call_c", "file_context_info", `{"path":"guides"}`),
		}}, scriptedmodel.Response{Text: "ok"})
		a := newAgent(m, url, scenario)
		a.Concurrent = concurrent
		if _, err := a.Run(context.Background(), &agent.Conversation{}, "go"); err != nil {
			t.Fatal(err)
		}
		res := toolResults(t, requests(t, m, scenario)[1])
		if !strings.Contains(res["call_a"], "alpha") || !strings.Contains(res["call_b"], `"not_found"`) || !strings.Contains(res["call_c"], `"directory"`) {
			t.Errorf("concurrent=%v results = %v", concurrent, res)
		}
	}
}

func TestEmptyResultsAndErrorsAreToolMessages(t *testing.T) {
	url := serve(t, fixtures(t))
	m := scriptedmodel.New()
	defer m.Close()
	m.Queue("empty", scriptedmodel.Response{ToolCalls: []scriptedmodel.ToolCall{
		call("e1", "file_access_read", `{"fileName":"notes/empty.txt"}`),
		call("e2", "file_access_grep", `{"regexPattern":"no such words anywhere"}`),
		call("e3", "file_context_info", `{"path":"nope.md"}`),
		call("e4", "file_access_read_lines", `{"fileName":"notes/todo.txt","startLine":0}`),
		call("e5", "file_access_read", `{not json`),
	}}, scriptedmodel.Response{Text: "done"})
	if _, err := newAgent(m, url, "empty").Run(context.Background(), &agent.Conversation{}, "go"); err != nil {
		t.Fatal(err)
	}
	res := toolResults(t, requests(t, m, "empty")[1])
	for id, want := range map[string]string{"e1": `"content":""`, "e2": `"results":[]`, "e3": `"status":"not_found"`, "e4": `"invalid_argument"`, "e5": `"invalid_argument"`} {
		if !strings.Contains(res[id], want) {
			t.Errorf("%s = %s, want %s", id, res[id], want)
		}
	}
}

func TestASavedConversationResumes(t *testing.T) {
	url := serve(t, fixtures(t))
	m := scriptedmodel.New()
	defer m.Close()
	m.Queue("resume", scriptedmodel.Response{ToolCalls: []scriptedmodel.ToolCall{call("r1", "file_access_ls", `{"directory":"guides"}`)}},
		scriptedmodel.Response{Text: "three guides"},
		scriptedmodel.Response{ToolCalls: []scriptedmodel.ToolCall{call("r2", "file_access_read", `{"fileName":"guides/approvals.md"}`)}},
		scriptedmodel.Response{Text: "approvals wait for a human"})
	conv := &agent.Conversation{}
	a := newAgent(m, url, "resume")
	if _, err := a.Run(context.Background(), conv, "list the guides"); err != nil {
		t.Fatal(err)
	}
	saved, err := json.Marshal(conv)
	if err != nil {
		t.Fatal(err)
	}
	var restored agent.Conversation
	if err := json.Unmarshal(saved, &restored); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if answer, err := newAgent(m, url, "resume").Run(context.Background(), &restored, "and approvals?"); err != nil || answer != "approvals wait for a human" {
		t.Fatalf("resumed = %q %v", answer, err)
	}
	reqs := requests(t, m, "resume")
	last := reqs[len(reqs)-1]
	res := toolResults(t, last)
	if len(res) != 2 || !strings.Contains(res["r1"], "approvals.md") || !strings.Contains(res["r2"], "Approvals") {
		t.Errorf("resumed request results = %v", res)
	}
	if last.Messages[0].Role != "system" || strings.Count(string(saved), `"role":"system"`) != 1 {
		t.Error("the restored conversation lost or doubled its system prompt")
	}
}

func TestModelErrorsEndTheRun(t *testing.T) {
	url := serve(t, fixtures(t))
	m := scriptedmodel.New()
	defer m.Close()
	m.Queue("fail", scriptedmodel.Response{Status: 500, Message: "model overloaded"})
	if _, err := newAgent(m, url, "fail").Run(context.Background(), &agent.Conversation{}, "go"); err == nil || !strings.Contains(err.Error(), "model") {
		t.Errorf("a model error: %v", err)
	}
	if _, err := newAgent(m, url, "unscripted").Run(context.Background(), &agent.Conversation{}, "go"); err == nil {
		t.Error("an unscripted scenario answered")
	}
	m.Queue("loop", scriptedmodel.Response{ToolCalls: []scriptedmodel.ToolCall{call("l1", "file_context_info", `{"path":""}`)}},
		scriptedmodel.Response{ToolCalls: []scriptedmodel.ToolCall{call("l2", "file_context_info", `{"path":""}`)}})
	a := newAgent(m, url, "loop")
	a.MaxSteps = 2
	if _, err := a.Run(context.Background(), &agent.Conversation{}, "go"); err != agent.ErrTooManySteps {
		t.Errorf("the step limit: %v", err)
	}
	if st := m.Stats(); st.Unmatched != 1 || st.Matched != 3 {
		t.Errorf("stats = %+v", st)
	}
	// Tools that cannot be reached are results too.
	m.Queue("down", scriptedmodel.Response{ToolCalls: []scriptedmodel.ToolCall{call("d1", "file_context_info", `{"path":""}`)}}, scriptedmodel.Response{Text: "x"})
	b := newAgent(m, url, "down")
	if _, err := b.Run(context.Background(), &agent.Conversation{}, "go"); err != nil {
		t.Fatal(err)
	}
	b.Tools = client.New("http://127.0.0.1:1", client.WithRetries(0))
	if _, err := b.Run(context.Background(), &agent.Conversation{}, "go"); err == nil {
		t.Error("a run without a catalog started")
	}
}

func TestTheAgentCommand(t *testing.T) {
	url := serve(t, fixtures(t))
	m := scriptedmodel.New()
	defer m.Close()
	m.Queue("cli", scriptedmodel.Response{ToolCalls: []scriptedmodel.ToolCall{call("k1", "file_context_info", `{"path":"notes/todo.txt"}`)}},
		scriptedmodel.Response{Text: "todo.txt has 83 bytes"},
		scriptedmodel.Response{Text: "still 83"})
	conv := filepath.Join(t.TempDir(), "conv.json")
	run := func(prompt string) string {
		cmd := exec.Command(cli(t), "agent", "--model-endpoint", m.BaseURL(), "--model", "cli", "--endpoint", url, "--conversation", conv, prompt)
		cmd.Env = append(os.Environ(), "OPENAI_API_KEY=test")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("agent: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := run("How big is todo.txt?"); got != "todo.txt has 83 bytes" {
		t.Errorf("answer = %q", got)
	}
	if got := run("And now?"); got != "still 83" {
		t.Errorf("second answer = %q", got)
	}
	reqs := requests(t, m, "cli")
	if res := toolResults(t, reqs[2]); !strings.Contains(res["k1"], `"size":83`) {
		t.Errorf("the resumed conversation lost the tool result: %v", res)
	}
}
