package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildCLI builds the real binary once per test.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "filecontext")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// startServer runs `filecontext serve` as a process on a fresh state folder
// and returns its URL.
func startServer(t *testing.T, bin string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	return startServerEnv(t, bin, nil, append([]string{"--state", t.TempDir()}, args...)...)
}

// startServerEnv runs `filecontext serve` with extra environment variables
// and only the given flags (and a free port).
func startServerEnv(t *testing.T, bin string, env []string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return startedURL(t, cmd, `http://127\.0\.0\.1:\d+`), cmd
}

// startedURL starts a command that prints a URL on its first line, stops it
// when the test ends, and returns the URL (the match of pattern).
func startedURL(t *testing.T, cmd *exec.Cmd, pattern string) string {
	t.Helper()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no start line: %v; stderr %s", err, stderr.String())
	}
	m := regexp.MustCompile(pattern).FindString(line)
	if m == "" {
		t.Fatalf("start line %q has no URL", line)
	}
	go io.Copy(io.Discard, stdout)
	return m
}

func TestServeExamplesAndCurl(t *testing.T) {
	bin := buildCLI(t)
	url, cmd := startServer(t, bin, "--root", "../../examples")
	resp, err := http.Post(url+"/tools/file_access_read", "application/json", strings.NewReader(`{"fileName":"notes/todo.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Path, Content, ETag, LineEnding string
		Size                            int
	}
	json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	want, _ := os.ReadFile("../../examples/notes/todo.txt")
	if resp.StatusCode != 200 || r.Path != "notes/todo.txt" || r.Content != string(want) || r.Size != len(want) || r.LineEnding != "lf" {
		t.Errorf("read = %d %+v", resp.StatusCode, r)
	}

	out, err := exec.Command(bin, "call", "file_access_read_lines", "fileName=notes/checklist.txt", "startLine=2", "endLine=3", "--endpoint", url).Output()
	if err != nil || !strings.Contains(string(out), `"content": "2\t- run the tests\r\n3\t- record the benchmarks\r\n"`) {
		t.Errorf("call = %v\n%s", err, out)
	}
	c := exec.Command(bin, "call", "file_access_read", "fileName=missing.md", "--endpoint", url)
	out, _ = c.Output()
	if c.ProcessState.ExitCode() != 5 || !strings.Contains(string(out), "not_found") {
		t.Errorf("missing file: exit %d\n%s", c.ProcessState.ExitCode(), out)
	}
	c = exec.Command(bin, "call", "file_access_write", "fileName=x.md", "content=x", "--endpoint", url)
	out, _ = c.Output()
	if c.ProcessState.ExitCode() != 4 || !strings.Contains(string(out), "write_tools_disabled") {
		t.Errorf("write while disabled: exit %d\n%s", c.ProcessState.ExitCode(), out)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the server did not exit cleanly on SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the server did not stop on SIGTERM")
	}
}

func TestServeWritesWithApprovalOff(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	url, _ := startServer(t, bin, "--root", dir, "--write-tools", "enabled", "--approval", "off")
	out, err := exec.Command(bin, "call", "file_access_write", "fileName=notes/a.md", "content=hello\n", "--endpoint", url).Output()
	if err != nil || !strings.Contains(string(out), `"status": "applied"`) {
		t.Fatalf("write = %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes", "a.md")); string(b) != "hello\n" {
		t.Errorf("file = %q", b)
	}
	out, err = exec.Command(bin, "call", "file_access_replace_lines", `edits:=[{"line_number":1,"new_line":"bye"}]`, "fileName=notes/a.md", "--endpoint", url).Output()
	if err != nil || !strings.Contains(string(out), "Replaced 1 line(s)") {
		t.Fatalf("replace_lines = %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes", "a.md")); string(b) != "bye\n" {
		t.Errorf("file = %q", b)
	}
}

func TestCommandLineErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	for _, args := range [][]string{nil, {"nope"}, {"serve"}, {"serve", "--root", "x", "--bucket", "y"}, {"serve", "--root", t.TempDir(), "--approval", "maybe"}, {"call"}} {
		stdout.Reset()
		stderr.Reset()
		if code := run(t.Context(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr.String())
		}
	}
	root := t.TempDir()
	if code := run(t.Context(), []string{"serve", "--root", root, "--state", filepath.Join(root, "state")}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "outside") {
		t.Errorf("state inside root: exit %d %s", code, stderr.String())
	}
	if code := run(t.Context(), []string{"help"}, &stdout, &stderr); code != 0 {
		t.Errorf("help: %d", code)
	}
	if _, err := buildArgs([]string{"startLine=x"}, map[string]string{"startLine": "integer"}); err == nil {
		t.Error("a bad integer was accepted")
	}
	if b, err := buildArgs([]string{"a=1", "b=true", "c:=[1]", "d=text"}, map[string]string{"a": "integer", "b": "boolean"}); err != nil || string(b) != `{"a":1,"b":true,"c":[1],"d":"text"}` {
		t.Errorf("buildArgs = %s %v", b, err)
	}
}

func TestLocalApprovalSurvivesARestart(t *testing.T) {
	bin := buildCLI(t)
	dir, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "plan.md"), []byte("draft\n"), 0o644)
	start := func() (string, *exec.Cmd) {
		cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--state", state, "--root", dir, "--write-tools", "enabled")
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		go io.Copy(io.Discard, stdout)
		return regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(line), cmd
	}
	url, cmd := start()
	out, err := exec.Command(bin, "call", "file_access_replace", "fileName=plan.md", "oldString=draft", "newString=final", "--endpoint", url).Output()
	if err != nil {
		t.Fatalf("write: %v %s", err, out)
	}
	var parked struct{ Status, ApprovalID string }
	json.Unmarshal(out, &parked)
	if parked.Status != "pending_approval" || parked.ApprovalID == "" {
		t.Fatalf("write answered %s", out)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()

	url, _ = start()
	out, err = exec.Command(bin, "approvals", "list", "--endpoint", url).Output()
	if err != nil || !strings.Contains(string(out), parked.ApprovalID) {
		t.Fatalf("list after restart: %v %s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "plan.md")); string(b) != "draft\n" {
		t.Fatal("the file changed before approval")
	}
	out, err = exec.Command(bin, "approvals", "approve", parked.ApprovalID, "--endpoint", url).Output()
	if err != nil || !strings.Contains(string(out), `"status": "applied"`) || !strings.Contains(string(out), `"decidedBy": "local:operator"`) {
		t.Fatalf("approve: %v %s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "plan.md")); string(b) != "final\n" {
		t.Errorf("file = %q", b)
	}
	c := exec.Command(bin, "approvals", "approve", parked.ApprovalID, "--endpoint", url)
	out, _ = c.Output()
	if c.ProcessState.ExitCode() != 6 {
		t.Errorf("second approve: exit %d %s", c.ProcessState.ExitCode(), out)
	}
	// Reject through the CLI.
	out, _ = exec.Command(bin, "call", "file_access_delete", "fileName=plan.md", "--endpoint", url).Output()
	json.Unmarshal(out, &parked)
	out, err = exec.Command(bin, "approvals", "reject", parked.ApprovalID, "--reason", "keep it", "--endpoint", url).Output()
	if err != nil || !strings.Contains(string(out), `"reason": "keep it"`) {
		t.Errorf("reject: %v %s", err, out)
	}
	if out, err := exec.Command(bin, "approvals", "show", parked.ApprovalID, "--endpoint", url).Output(); err != nil || !strings.Contains(string(out), `"status": "rejected"`) {
		t.Errorf("show: %v %s", err, out)
	}
}

// The local server announces each approval transition with a log line and
// runs --on-approval-event with the event on stdin.
func TestLocalApprovalEvents(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("a\n"), 0o644)
	events := filepath.Join(t.TempDir(), "events.jsonl")
	url, _ := startServer(t, bin, "--root", dir, "--write-tools", "enabled",
		"--on-approval-event", `{ cat; echo; echo "$FILECONTEXT_EVENT_TYPE"; } >> `+events)
	out, err := exec.Command(bin, "call", "file_access_write", "fileName=a.md", "content=b", "overwrite=true", "--endpoint", url).Output()
	var parked struct{ ApprovalID string }
	if json.Unmarshal(out, &parked); err != nil || parked.ApprovalID == "" {
		t.Fatalf("park: %v %s", err, out)
	}
	if out, err := exec.Command(bin, "approvals", "approve", parked.ApprovalID, "--endpoint", url).CombinedOutput(); err != nil {
		t.Fatalf("approve: %v %s", err, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(events)
		got := string(b)
		if strings.Count(got, "Approval ") == 2 {
			if !strings.Contains(got, `"transition":"requested"`) || !strings.Contains(got, `"transition":"applied"`) ||
				!strings.Contains(got, "Approval Requested\n") || !strings.Contains(got, "Approval Applied\n") || !strings.Contains(got, parked.ApprovalID) {
				t.Errorf("events:\n%s", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("two events did not arrive:\n%s", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
