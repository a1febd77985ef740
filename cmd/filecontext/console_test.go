package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// startConsole runs `filecontext console --no-open` with args and returns
// the URL it prints.
func startConsole(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"console", "--no-open"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return startedURL(t, cmd, `http://127\.0\.0\.1:\d+/console/\?key=[0-9a-f]{32}`)
}

// consoleApprove opens a console URL like a browser and approves id
// through the console's API; it returns the answer's status and body.
func consoleApprove(t *testing.T, loginURL, id string) (int, map[string]any) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	base := loginURL[:strings.Index(loginURL, "/console/")]
	if resp, err := c.Get(base + "/console/"); err != nil || resp.StatusCode != 403 {
		t.Fatalf("the page without the key = %v %v", resp, err)
	}
	resp, err := c.Get(loginURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	token := regexp.MustCompile(`name="csrf-token" content="([0-9a-f]+)"`).FindSubmatch(page)
	if resp.StatusCode != 200 || token == nil {
		t.Fatalf("the page with the key = %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", base+"/console/api/approvals/"+id+"/approve", strings.NewReader("{}"))
	req.Header.Set("X-CSRF-Token", string(token[1]))
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// TestConsoleCommand: `filecontext console` against a server (here with
// SigV4 signing on the server side of the console) and in-process on a
// root; it listens on loopback only.
func TestConsoleCommand(t *testing.T) {
	bin := buildCLI(t)
	dir, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.md"), []byte("x\n"), 0o644)
	url, _ := startServer(t, bin, "--root", dir, "--write-tools", "enabled")
	park := func() string {
		status, m, _ := post(t, url, "/tools/file_access_replace", mustJSON(map[string]any{"fileName": "x.md", "oldString": "x", "newString": "y"}))
		if status != 202 {
			t.Fatalf("park = %d %v", status, m)
		}
		return m["approvalId"].(string)
	}
	creds := []string{"AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=secret", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null"}
	remote := startConsole(t, bin, creds, "--endpoint", url, "--sigv4", "--region", "eu-west-1")
	if status, m := consoleApprove(t, remote, park()); status != 200 || m["status"] != "applied" {
		t.Errorf("approve through the remote console = %d %v", status, m)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "x.md")); string(b) != "y\n" {
		t.Errorf("x.md = %q", b)
	}

	// In-process on a root, as the approvals of an MCP stdio session are
	// decided: park with the CLI's own store, approve through the console.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "z.md"), []byte("z\n"), 0o644)
	url2, srv := startServer(t, bin, "--root", other, "--write-tools", "enabled", "--state", state)
	status, m, _ := post(t, url2, "/tools/file_access_write", mustJSON(map[string]any{"fileName": "new.md", "content": "new\n"}))
	if status != 202 {
		t.Fatalf("park = %d %v", status, m)
	}
	srv.Process.Kill()
	srv.Wait()
	local := startConsole(t, bin, nil, "--root", other, "--state", state)
	if status, m := consoleApprove(t, local, m["approvalId"].(string)); status != 200 || m["status"] != "applied" {
		t.Errorf("approve through the local console = %d %v", status, m)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "new.md")); string(b) != "new\n" {
		t.Errorf("new.md = %q", b)
	}

	// Without --no-open the URL goes to $BROWSER.
	opened := filepath.Join(t.TempDir(), "opened")
	browser := filepath.Join(t.TempDir(), "browser")
	os.WriteFile(browser, []byte("#!/bin/sh\necho \"$1\" > "+opened+"\n"), 0o755)
	c := exec.Command(bin, "console", "--root", other, "--state", state)
	c.Env = append(os.Environ(), "BROWSER="+browser)
	stdout, _ := c.StdoutPipe()
	c.Start()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(opened); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.Process.Kill()
	c.Wait()
	if b, _ := os.ReadFile(opened); !strings.Contains(line, strings.TrimSpace(string(b))) || !strings.Contains(string(b), "?key=") {
		t.Errorf("the browser was given %q; the console printed %q", b, line)
	}

	for _, args := range [][]string{{"--addr", "0.0.0.0:0"}, {"--addr", ":8080"}, {"extra"}, {"--root", other, "--bucket", "b"}} {
		c := exec.Command(bin, append([]string{"console", "--no-open"}, args...)...)
		out, _ := c.CombinedOutput()
		if c.ProcessState.ExitCode() != 2 {
			t.Errorf("console %q: exit %d\n%s", args, c.ProcessState.ExitCode(), out)
		}
	}
}
