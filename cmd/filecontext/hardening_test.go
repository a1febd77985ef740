package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// post sends a raw body to a tool or route of the local server and returns
// the status, the decoded answer and the response.
func post(t *testing.T, url, path string, body []byte) (int, map[string]any, *http.Response) {
	t.Helper()
	resp, err := http.Post(url+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s answered %d with no JSON: %q", path, resp.StatusCode, raw)
	}
	return resp.StatusCode, m, resp
}

func errorOf(m map[string]any) (code, message string, details map[string]any) {
	e, _ := m["error"].(map[string]any)
	code, _ = e["code"].(string)
	message, _ = e["message"].(string)
	details, _ = e["details"].(map[string]any)
	return
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// The reported cases of the hardening round, each over HTTP on the local
// server, as an agent meets them.
func TestHardeningOverHTTP(t *testing.T) {
	bin := buildCLI(t)
	base := t.TempDir()
	dir, state := filepath.Join(base, "root"), filepath.Join(base, "state")
	os.MkdirAll(dir, 0o755)
	url, _ := startServer(t, bin, "--root", dir, "--state", state, "--write-tools", "enabled")

	t.Run("a cursor after a byte-limit stop starts at the line it names", func(t *testing.T) {
		var b strings.Builder
		for i := 1; i <= 40; i++ {
			fmt.Fprintf(&b, "L%03d:%s\n", i, strings.Repeat("x", 9000))
		}
		os.WriteFile(filepath.Join(dir, "wide.txt"), []byte(b.String()), 0o644)
		_, first, _ := post(t, url, "/tools/file_context_read_range", []byte(`{"path":"wide.txt"}`))
		next, _ := first["next"].(map[string]any)
		if first["hasMore"] != true || next["startLine"] != 30.0 {
			t.Fatalf("first window = endLine %v next %v", first["endLine"], next)
		}
		_, second, _ := post(t, url, "/tools/file_context_read_range", mustJSON(map[string]any{"path": "wide.txt", "cursor": next["cursor"]}))
		content, _ := second["content"].(string)
		if second["startLine"] != 30.0 || !strings.HasPrefix(content, "L030:") {
			t.Errorf("the second window starts %q at line %v: %.300s", content[:min(10, len(content))], second["startLine"], mustJSON(second))
		}
		if got := first["content"].(string) + content; got != b.String() {
			t.Errorf("two windows gave %d bytes, want %d", len(got), b.Len())
		}
	})

	t.Run("replace is sized before it is built or staged", func(t *testing.T) {
		os.WriteFile(filepath.Join(dir, "as.txt"), bytes.Repeat([]byte("a"), 1_000_000), 0o644)
		status, m, _ := post(t, url, "/tools/file_access_replace", mustJSON(map[string]any{
			"fileName": "as.txt", "oldString": "a", "newString": strings.Repeat("X", 200), "replaceAll": true}))
		code, _, details := errorOf(m)
		if status != 422 || code != "limit_exceeded" || details["limit"] != "maximumWriteBytes" || details["size"] != 200_000_000.0 {
			t.Errorf("replace = %d %v", status, m)
		}
		if entries, _ := os.ReadDir(filepath.Join(state, "staging")); len(entries) != 0 {
			t.Errorf("a refused replace staged %d entries", len(entries))
		}
	})

	t.Run("a glob of 300,000 stars is refused at once", func(t *testing.T) {
		start := time.Now()
		status, m, _ := post(t, url, "/tools/file_access_ls", mustJSON(map[string]any{"globPattern": strings.Repeat("*", 300_000)}))
		if code, _, _ := errorOf(m); status != 400 || code != "invalid_pattern" || time.Since(start) > 5*time.Second {
			t.Errorf("ls = %d %v in %v", status, code, time.Since(start))
		}
	})

	t.Run("a rejected change leaves nothing staged, and temporary files cannot be read", func(t *testing.T) {
		os.WriteFile(filepath.Join(dir, "big.md"), []byte("old\n"), 0o644)
		_, parked, _ := post(t, url, "/tools/file_access_write", mustJSON(map[string]any{
			"fileName": "big.md", "content": strings.Repeat("new line of text\n", 20_000), "overwrite": true}))
		id, _ := parked["approvalId"].(string)
		if entries, _ := os.ReadDir(filepath.Join(state, "staging", "staged")); len(entries) != 1 || id == "" {
			t.Fatalf("parked %v with %d staged", parked["status"], len(entries))
		}
		if status, m, _ := post(t, url, "/approvals/"+id+"/reject", []byte(`{"reason":"no"}`)); status != 200 || m["status"] != "rejected" {
			t.Fatalf("reject = %d %v", status, m)
		}
		if entries, _ := os.ReadDir(filepath.Join(state, "staging", "staged")); len(entries) != 0 {
			t.Errorf("%d staged entries stay after the reject", len(entries))
		}
		os.WriteFile(filepath.Join(dir, ".filecontext-tmp-ABC"), []byte("half written"), 0o644)
		status, m, _ := post(t, url, "/tools/file_access_read", []byte(`{"fileName":".filecontext-tmp-ABC"}`))
		if status == 200 || strings.Contains(string(mustJSON(m)), "half written") {
			t.Errorf("a temporary file was readable: %d %v", status, m)
		}
	})

	t.Run("an expected_line mismatch names the line number only", func(t *testing.T) {
		os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("a\r\ntoken=s3cr3t\r\n"), 0o644)
		status, m, _ := post(t, url, "/tools/file_access_replace_lines", []byte(`{"fileName":"secret.txt","edits":[{"line_number":2,"new_line":"x","expected_line":"guess"}]}`))
		if code, _, d := errorOf(m); status != 422 || code != "edit_rejected" || d["reason"] != "expected_line_mismatch" || strings.Contains(string(mustJSON(m)), "s3cr3t") {
			t.Errorf("mismatch = %d %v", status, m)
		}
		status, m, _ = post(t, url, "/tools/file_access_replace_lines", []byte(`{"fileName":"secret.txt","edits":[{"line_number":2,"new_line":"x","expected_line":"token=s3cr3t\r\n"}]}`))
		if status != 202 {
			t.Errorf("a read_lines row as expected_line = %d %v", status, m)
		}
	})

	t.Run("links that leave the root are forbidden, long names are invalid paths", func(t *testing.T) {
		outside := filepath.Join(base, "outside")
		os.MkdirAll(outside, 0o755)
		os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644)
		os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "link.md"))
		os.Symlink(outside, filepath.Join(dir, "linkdir"))
		for _, tc := range []struct{ tool, body string }{
			{"file_access_read", `{"fileName":"link.md"}`},
			{"file_access_read", `{"fileName":"linkdir/secret.md"}`},
			{"file_context_read_range", `{"path":"link.md"}`},
			{"file_access_write", `{"fileName":"linkdir/new.md","content":"x"}`},
			{"file_access_delete", `{"fileName":"link.md"}`},
		} {
			status, m, _ := post(t, url, "/tools/"+tc.tool, []byte(tc.body))
			code, msg, _ := errorOf(m)
			if status != 403 || code != "forbidden" || !strings.Contains(msg, "leaves the root") || strings.Contains(string(mustJSON(m)), "secret\"") {
				t.Errorf("%s %s = %d %v", tc.tool, tc.body, status, m)
			}
		}
		if _, err := os.Stat(filepath.Join(outside, "new.md")); err == nil {
			t.Error("a write went through a link out of the root")
		}
		long := "deep/er/" + strings.Repeat("n", 256) + ".md"
		status, m, _ := post(t, url, "/tools/file_access_write", mustJSON(map[string]any{"fileName": long, "content": "x"}))
		if code, _, _ := errorOf(m); status != 400 || code != "invalid_path" {
			t.Errorf("a 256-byte name = %d %v", status, m)
		}
		if _, err := os.Stat(filepath.Join(dir, "deep")); err == nil {
			t.Error("a refused write left a directory behind")
		}
	})

	t.Run("bodies that are not UTF-8 or hold lone surrogates are refused before storage", func(t *testing.T) {
		for _, body := range [][]byte{
			[]byte("{\"fileName\":\"a\xffb\"}"),
			[]byte("{\"fileName\":\"notes\xc3(.txt\",\"content\":\"x\"}"),
			[]byte(`{"fileName":"ok.txt","content":"a\ud800b"}`),
			[]byte(`{"fileName":"ok.txt","content":"\udc00"}`),
			[]byte(`{"fileName":"ok.txt","content":"x\ud800\u0041"}`),
		} {
			tool := "file_access_read"
			if bytes.Contains(body, []byte("content")) {
				tool = "file_access_write"
			}
			status, m, _ := post(t, url, "/tools/"+tool, body)
			if code, _, _ := errorOf(m); status != 400 || code != "invalid_argument" {
				t.Errorf("%q = %d %v", body, status, m)
			}
		}
		status, m, _ := post(t, url, "/tools/file_access_write", []byte(`{"fileName":"pair.txt","content":"clef \ud834\udd1e and \\ud800 as text"}`))
		if status != 202 {
			t.Errorf("a valid surrogate pair and an escaped backslash = %d %v", status, m)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.ContainsRune(e.Name(), '\uFFFD') {
				t.Errorf("a file with a replacement character was created: %q", e.Name())
			}
		}
	})

	t.Run("smaller mismatches", func(t *testing.T) {
		os.WriteFile(filepath.Join(dir, "n.txt"), []byte("one\ntwo\n"), 0o644)
		status, m, _ := post(t, url, "/tools/file_access_read_lines", []byte(`{"fileName":"n.txt","startLine":1.0,"endLine":2e0}`))
		if status != 200 || m["content"] != "1\tone\n2\ttwo\n" {
			t.Errorf("startLine 1.0 = %d %v", status, m)
		}
		status, m, _ = post(t, url, "/tools/file_access_read_lines", []byte(`{"fileName":"n.txt","startLine":1.5}`))
		if code, msg, _ := errorOf(m); status != 400 || code != "invalid_argument" || !strings.Contains(msg, "'startLine'") || !strings.Contains(msg, "integer") {
			t.Errorf("startLine 1.5 = %d %v", status, m)
		}
		resp, err := http.Get(url + "/approvals?nextToken=%%%garbage")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("a garbage nextToken = %d", resp.StatusCode)
		}
		resp, _ = http.Get(url + "/approvals?nextToken=bm90LWEtdG9rZW4")
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("a forged nextToken = %d", resp.StatusCode)
		}
		for _, tc := range []struct{ method, path, allow string }{
			{"GET", "/tools/file_access_read", "POST"},
			{"DELETE", "/tools", "GET"},
			{"POST", "/openapi.json", "GET"},
			{"PUT", "/approvals/apr_x", "GET"},
			{"GET", "/approvals/apr_x/approve", "POST"},
		} {
			req, _ := http.NewRequest(tc.method, url+tc.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 405 || resp.Header.Get("Allow") != tc.allow {
				t.Errorf("%s %s = %d Allow %q, want 405 Allow %s", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Allow"), tc.allow)
			}
		}
	})

	t.Run("the etag changes when a same-size rewrite restores the modification time", func(t *testing.T) {
		p := filepath.Join(dir, "same.txt")
		os.WriteFile(p, []byte("version A\n"), 0o644)
		fi, _ := os.Stat(p)
		_, before, _ := post(t, url, "/tools/file_context_info", []byte(`{"path":"same.txt"}`))
		time.Sleep(10 * time.Millisecond)
		f, _ := os.OpenFile(p, os.O_WRONLY, 0) // same inode, same size
		f.WriteString("version B\n")
		f.Close()
		os.Chtimes(p, fi.ModTime(), fi.ModTime())
		_, after, _ := post(t, url, "/tools/file_context_info", []byte(`{"path":"same.txt"}`))
		etagOf := func(m map[string]any) any { return m["info"].(map[string]any)["etag"] }
		if etagOf(before) == etagOf(after) {
			t.Fatalf("the etag %v did not change", etagOf(before))
		}
		status, m, _ := post(t, url, "/tools/file_access_write", mustJSON(map[string]any{"fileName": "same.txt", "content": "mine", "overwrite": true, "expectedEtag": etagOf(before)}))
		if code, _, _ := errorOf(m); status != 409 || code != "conflict" {
			t.Errorf("an old expectedEtag = %d %v", status, m)
		}
	})
}

// The command lines of the README parse by the flag package's rules, and
// exit codes follow the README's table.
func TestCommandLines(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.md"), []byte("x\n"), 0o644)
	url, _ := startServer(t, bin, "--root", dir, "--write-tools", "enabled")
	exit := func(env []string, args ...string) (int, string) {
		c := exec.Command(bin, args...)
		c.Env = append(os.Environ(), env...)
		out, _ := c.CombinedOutput()
		return c.ProcessState.ExitCode(), string(out)
	}
	creds := []string{"AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=secret", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null"}
	if code, out := exit(creds, "call", "file_access_read", "fileName=x.md", "--endpoint", url, "--sigv4", "--region", "eu-west-1"); code != 0 || !strings.Contains(out, `"content": "x\n"`) {
		t.Errorf("--sigv4 --region R: exit %d\n%s", code, out)
	}
	if code, out := exit(nil, "call", "--endpoint", url, "file_access_read", "fileName=x.md"); code != 0 {
		t.Errorf("flags first: exit %d\n%s", code, out)
	}
	if code, out := exit(nil, "call", "file_access_read", "--endpoint="+url, "fileName=x.md"); code != 0 {
		t.Errorf("--flag=value between pairs: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"call", "file_nope", "a=b"}, 5, "unknown_tool"},
		{[]string{"call", "file_access_read_lines", "fileName=x.md", "startLine=one"}, 3, "integer"},
		{[]string{"call", "file_access_read", "fileName=missing.md"}, 5, "not_found"},
		{[]string{"call", "file_access_read", "fileName=/abs"}, 3, "invalid_path"},
		{[]string{"call", "file_access_write", "fileName=x.md", "content=y"}, 6, "already_exists"},
		{[]string{"approvals", "show", "apr_missing"}, 5, "not_found"},
		{[]string{"call", "file_access_read", "fileName=x.md", "--no-such-flag"}, 2, ""},
	} {
		code, out := exit(nil, append(tc.args, "--endpoint", url)...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, out)
		}
	}
	os.WriteFile(filepath.Join(dir, "bin.dat"), []byte{0xff, 0xfe, 0}, 0o644)
	if code, out := exit(nil, "call", "file_context_read_range", "path=bin.dat", "--endpoint", url); code != 7 || !strings.Contains(out, "binary_content") {
		t.Errorf("binary content: exit %d\n%s", code, out)
	}
	// An approve whose outcome is conflict: 409 with the record, exit 6.
	code, out := exit(nil, "call", "file_access_write", "fileName=x.md", "content=mine", "overwrite=true", "--endpoint", url)
	var parked struct{ ApprovalID string }
	json.Unmarshal([]byte(out), &parked)
	if code != 0 || parked.ApprovalID == "" {
		t.Fatalf("park: exit %d\n%s", code, out)
	}
	os.WriteFile(filepath.Join(dir, "x.md"), []byte("theirs\n"), 0o644)
	code, out = exit(nil, "approvals", "approve", parked.ApprovalID, "--endpoint", url)
	if code != 6 || !strings.Contains(out, `"code": "conflict"`) || !strings.Contains(out, `"status": "conflict"`) {
		t.Errorf("approve into a conflict: exit %d\n%s", code, out)
	}
}

func TestParseArgsKeepsPositionalsAndBooleans(t *testing.T) {
	for _, tc := range []struct {
		args []string
		rest string
		flag string
	}{
		{[]string{"file_access_read", "fileName=x", "--endpoint", "U", "--sigv4", "--region", "R"}, "file_access_read fileName=x", "U true R false"},
		{[]string{"--concurrent", "What do the guides say?"}, "What do the guides say?", "http://127.0.0.1:8080 false  true"},
		{[]string{"--sigv4=false", "a", "--", "--region", "b"}, "a --region b", "http://127.0.0.1:8080 false  false"},
		{[]string{"-endpoint", "U", "p"}, "p", "U false  false"},
	} {
		fs := newTestFlagSet()
		var r remote
		r.flags(fs)
		r.region = ""
		conc := fs.Bool("concurrent", false, "")
		rest, err := parseArgs(fs, tc.args)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if strings.Join(rest, " ") != tc.rest || fmt.Sprintf("%s %v %s %v", r.endpoint, r.sigv4, r.region, *conc) != tc.flag {
			t.Errorf("%v: rest %q, flags %v %v %q %v", tc.args, rest, r.endpoint, r.sigv4, r.region, *conc)
		}
	}
}

// The default state folder follows the normalized root: "team" and "team/"
// are one root, so parked approvals survive either spelling.
func TestPrefixSpellingsShareTheirState(t *testing.T) {
	bin := buildCLI(t)
	dir, stateHome := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dir, "team"), 0o755)
	os.WriteFile(filepath.Join(dir, "team", "plan.md"), []byte("draft\n"), 0o644)
	env := []string{"XDG_STATE_HOME=" + stateHome, "FILECONTEXT_ENDPOINT="}
	parkThenListUnderTheOtherSpelling(t, bin, env, "--root", dir)
}

// parkThenListUnderTheOtherSpelling parks a change of plan.md on a server
// over the store the flags name with --prefix team, stops it, and checks
// that a server with --prefix team/ and the default state lists it.
func parkThenListUnderTheOtherSpelling(t *testing.T, bin string, env []string, store ...string) {
	t.Helper()
	url, cmd := startServerEnv(t, bin, env, append(store, "--prefix", "team", "--write-tools", "enabled")...)
	out, err := exec.Command(bin, "call", "file_access_replace", "fileName=plan.md", "oldString=draft", "newString=final", "--endpoint", url).Output()
	if err != nil || !strings.Contains(string(out), "pending_approval") {
		t.Fatalf("park: %v %s", err, out)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	url, _ = startServerEnv(t, bin, env, append(store, "--prefix", "team/", "--write-tools", "enabled")...)
	out, _ = exec.Command(bin, "approvals", "list", "--endpoint", url).Output()
	if !strings.Contains(string(out), `"path": "plan.md"`) {
		t.Errorf("the approval parked under --prefix team is not listed under --prefix team/:\n%s", out)
	}
}

func newTestFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}
