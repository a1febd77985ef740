package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// backing is direct access to the store a server under test serves, beside
// the server, for the reference model to compare with.
type backing interface {
	// Content returns a file's bytes by logical path, and whether it exists.
	Content(t *testing.T, path string) (string, bool)
}

type dirBacking string

func (d dirBacking) Content(t *testing.T, path string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(string(d), filepath.FromSlash(path)))
	if err != nil {
		return "", false
	}
	return string(b), true
}

// propertyPaths are the paths random calls use: names a model tracks, and
// the hostile vectors of the hardening round, which must never reach
// storage or answer 5xx.
var (
	modelPaths   = []string{"a.md", "b.txt", "notes..md", "...", "dir/c.md", "dir/sub/d.txt", "ü/ñ.md", "percent%41.md", "sp ace.md"}
	hostilePaths = []string{"", " ", " lead.md", "trail.md ", "/abs.md", "../up.md", "dir/../x.md", "a//b.md", "./a.md", "a\\b.md",
		"C:x.md", "ctl\x01.md", "nul\x00.md", "dir/", strings.Repeat("n", 256) + ".md", "deep/" + strings.Repeat("p/", 520) + "x.md",
		".filecontext-tmp-X", "dir/.filecontext-tmp-Y"}
)

// call is one random tool call and what the model expects of it.
type propCall struct {
	tool string
	body []byte
	args map[string]any // nil when body is raw
}

// propertyRun drives n random tool calls against a server with write tools
// on and approval off, checking after each: no 5xx, no answer over its
// budget, and every file the model tracks equal to the model.
func propertyRun(t *testing.T, url string, pid int, store backing, n int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	model := map[string]string{}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	anyPath := func() string {
		if rng.IntN(4) == 0 {
			return pick(hostilePaths)
		}
		return pick(modelPaths)
	}
	content := func() string {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pick([]string{"alpha", "beta match", "γάμμα", "", "x<&>\"\\", "🙂"}))
			b.WriteString(pick([]string{"\n", "\r\n", "\r", "\n"}))
		}
		if rng.IntN(3) == 0 {
			b.WriteString(strings.Repeat("w", rng.IntN(70_000)))
		}
		return b.String()
	}
	intArg := func() any {
		return pick([]string{"1", "2", "3", "0", "-1", "7", "1000", "1001", "999999999", "2147483648", "1.0", "1.5", `"2"`, "null"})
	}
	stats := map[int]int{}
	var applied int
	for i := range n {
		c := propCall{args: map[string]any{}}
		raw := func(k string) { c.args[k] = json.RawMessage(intArg().(string)) }
		switch c.tool = pick([]string{"file_access_read", "file_access_read_lines", "file_context_read_range", "file_access_ls", "file_access_grep",
			"file_context_info", "file_context_download", "file_access_write", "file_access_write", "file_access_delete", "file_access_replace",
			"file_access_replace_lines"}); c.tool {
		case "file_access_read":
			c.args["fileName"] = anyPath()
		case "file_access_read_lines":
			c.args["fileName"] = anyPath()
			raw("startLine")
			if rng.IntN(2) == 0 {
				raw("endLine")
			}
		case "file_context_read_range":
			c.args["path"] = anyPath()
			if rng.IntN(2) == 0 {
				raw("startLine")
			}
			if rng.IntN(2) == 0 {
				raw("lineCount")
			}
			if rng.IntN(5) == 0 {
				c.args["cursor"] = pick([]string{"bogus", "eyJ2IjoxLCJlIjoiXCJ4XCIiLCJvIjo5OTk5OTksImwiOjV9", ""})
			}
		case "file_access_ls":
			c.args["directory"] = pick([]string{"", "dir", "dir/", "ü", "../", "missing", "a.md"})
			if rng.IntN(3) == 0 {
				c.args["globPattern"] = pick([]string{"*.md", "**", "{a,b}*", "[", strings.Repeat("*", 1000), strings.Repeat("*", 1001), strings.Repeat("{a,", 300)})
			}
		case "file_access_grep":
			c.args["regexPattern"] = pick([]string{"match", "(?i)ALPHA|γάμμα", "^$", "(a+)+$", "(?<=x)y", "", strings.Repeat("a", 1001), "w{1000}"})
			if rng.IntN(2) == 0 {
				c.args["globPattern"] = pick([]string{"**/*.md", "*.txt", strings.Repeat("?", 1001)})
			}
			if rng.IntN(2) == 0 {
				c.args["directory"] = pick([]string{"", "dir", "../"})
			}
		case "file_context_info":
			c.args["path"] = anyPath()
		case "file_context_download":
			c.args["path"] = anyPath()
			if rng.IntN(2) == 0 {
				raw("offsetBytes")
			}
			if rng.IntN(2) == 0 {
				c.args["maxBytes"] = json.RawMessage(pick([]string{"1", "10", "262144", "262145", "0", "-5"}))
			}
		case "file_access_write":
			c.args["fileName"] = anyPath()
			c.args["content"] = content()
			if rng.IntN(8) == 0 {
				c.args["content"] = strings.Repeat("z", 1<<20+1)
			}
			c.args["overwrite"] = rng.IntN(2) == 0
		case "file_access_delete":
			c.args["fileName"] = anyPath()
		case "file_access_replace":
			c.args["fileName"] = anyPath()
			c.args["oldString"] = pick([]string{"alpha", "beta", "w", "", "🙂", "nothing"})
			c.args["newString"] = pick([]string{"ALPHA", "", "Ω", strings.Repeat("X", 200)})
			c.args["replaceAll"] = rng.IntN(2) == 0
		case "file_access_replace_lines":
			c.args["fileName"] = anyPath()
			var edits []map[string]any
			for range 1 + rng.IntN(3) {
				e := map[string]any{"line_number": json.RawMessage(intArg().(string)), "new_line": pick([]string{"", "new", "new\n", "crlf\r\n"})}
				if rng.IntN(3) == 0 {
					e["expected_line"] = pick([]string{"alpha", "beta match\r\n", "nope"})
				}
				edits = append(edits, e)
			}
			c.args["edits"] = edits
		}
		if rng.IntN(30) == 0 {
			c.args["unknownArgument"] = 1
		}
		c.body, _ = json.Marshal(c.args)
		if rng.IntN(40) == 0 { // a body that is not UTF-8 text
			c.body = append([]byte(`{"fileName":"a`), 0xff, '"', '}')
		}
		status, body := propertyPost(t, url, c)
		stats[status]++
		if status >= 500 {
			t.Fatalf("call %d %s %.300s answered %d: %.500s", i, c.tool, c.body, status, body)
		}
		if len(body) > 2<<20 {
			t.Fatalf("call %d %s answered %d bytes", i, c.tool, len(body))
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("call %d %s answered no JSON: %.300s", i, c.tool, body)
		}
		if s, ok := m["content"].(string); ok && (c.tool == "file_access_read_lines" || c.tool == "file_context_read_range") && len(s) > 256<<10+20*1000 {
			t.Fatalf("call %d %s: a window of %d bytes", i, c.tool, len(s))
		}
		if status == 200 && m["status"] == "applied" {
			applied++
			expectApplied(t, model, c, m)
		}
		for _, p := range modelPaths {
			got, ok := store.Content(t, p)
			want, wok := model[p]
			if ok != wok || got != want {
				t.Fatalf("after call %d %s %.200s (%d): %s is %v/%d bytes in the store, %v/%d bytes in the model",
					i, c.tool, c.body, status, p, ok, len(got), wok, len(want))
			}
		}
	}
	t.Logf("%d calls (seed %d): statuses %v, %d writes applied", n, seed, stats, applied)
	if rss := peakRSS(t, pid); rss > 256<<20 {
		t.Errorf("server peak RSS %d MiB, over 256 MiB", rss>>20)
	} else {
		t.Logf("server peak RSS %d MiB", rss>>20)
	}
}

func propertyPost(t *testing.T, url string, c propCall) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/tools/"+c.tool, bytes.NewReader(c.body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %.200s: %v", c.tool, c.body, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// expectApplied updates the model with what an applied write must have
// done, computed independently of the service.
func expectApplied(t *testing.T, model map[string]string, c propCall, res map[string]any) {
	t.Helper()
	p, _ := c.args["fileName"].(string)
	switch c.tool {
	case "file_access_write":
		model[p] = c.args["content"].(string)
	case "file_access_delete":
		delete(model, p)
	case "file_access_replace":
		n := 1
		if c.args["replaceAll"] == true {
			n = -1
		}
		model[p] = strings.Replace(model[p], c.args["oldString"].(string), c.args["newString"].(string), n)
	case "file_access_replace_lines":
		lines := splitModelLines(model[p])
		edits := map[int]string{}
		for _, e := range c.args["edits"].([]map[string]any) {
			ln, _ := strconv.ParseFloat(string(e["line_number"].(json.RawMessage)), 64)
			edits[int(ln)] = e["new_line"].(string)
		}
		var b strings.Builder
		for i, line := range lines {
			nl, ok := edits[i+1]
			body := strings.TrimRight(line, "\r\n")
			switch {
			case !ok:
				b.WriteString(line)
			case nl == "":
			case strings.HasSuffix(nl, "\n") || strings.HasSuffix(nl, "\r"):
				b.WriteString(nl)
			default:
				b.WriteString(nl + line[len(body):])
			}
		}
		model[p] = b.String()
	default:
		t.Fatalf("%s applied: %v", c.tool, res)
	}
}

// splitModelLines is the line rule written out plainly, for the model.
func splitModelLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			lines = append(lines, s[start:i+1])
			start = i + 1
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			lines = append(lines, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// peakRSS reads a process's peak resident set size (VmHWM) from /proc.
func peakRSS(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the server's memory: %v", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

func TestRandomCallsOnTheDirectoryStore(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	url, cmd := startServer(t, bin, "--root", dir, "--write-tools", "enabled", "--approval", "off")
	propertyRun(t, url, cmd.Process.Pid, dirBacking(dir), 2000, 20261130)
	// Nothing but the model's files was created: no hostile path reached
	// the directory, and no temporary file stayed.
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			if !slices.Contains(modelPaths, filepath.ToSlash(rel)) {
				t.Errorf("a file %q is in the served directory", rel)
			}
		}
		return nil
	})
}
