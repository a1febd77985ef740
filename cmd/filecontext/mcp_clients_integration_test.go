//go:build integration

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mcpClients returns the folder scripts/mcp-clients.sh installed the MCP
// Inspector and the TypeScript SDK into, and a PATH with its Node.js first.
func mcpClients(t *testing.T) (dir, path string) {
	dir = os.Getenv("FILECONTEXT_TEST_MCP_CLIENTS")
	if dir == "" {
		t.Fatal("FILECONTEXT_TEST_MCP_CLIENTS is not set: run scripts/mcp-clients.sh (scripts/test does)")
	}
	return dir, filepath.Join(dir, "node-bin") + string(os.PathListSeparator) + os.Getenv("PATH")
}

func runNode(t *testing.T, path string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(filepath.Join(strings.Split(path, string(os.PathListSeparator))[0], "node"), args...)
	cmd.Env = append(os.Environ(), "PATH="+path)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("node %v: %v\n%s\n%s", args, err, out, stderr)
	}
	return out
}

// The MCP Inspector's CLI mode lists and calls the tools over stdio and over
// streamable HTTP.
func TestMCPInspectorCLI(t *testing.T) {
	dir, path := mcpClients(t)
	inspector := filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
	bin := buildCLI(t)
	root := t.TempDir()
	copyExamples(t, root)
	url, _ := startServer(t, bin, "--root", root)
	for name, target := range map[string][]string{
		"stdio": {bin, "mcp", "--root", root, "--state", t.TempDir()},
		"http":  {url + "/mcp", "--transport", "http"},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{inspector, "--cli"}, target...)
			var list struct {
				Tools []struct {
					Name        string
					Annotations struct{ ReadOnlyHint bool }
				}
			}
			if err := json.Unmarshal(runNode(t, path, append(args, "--method", "tools/list")...), &list); err != nil || len(list.Tools) < 8 {
				t.Fatalf("tools/list = %+v %v", list, err)
			}
			var call struct {
				StructuredContent struct{ Path, Content string }
				IsError           bool
			}
			out := runNode(t, path, append(args, "--method", "tools/call", "--tool-name", "file_access_read", "--tool-arg", "fileName=notes/todo.txt")...)
			if err := json.Unmarshal(out, &call); err != nil || call.IsError || !strings.HasPrefix(call.StructuredContent.Content, "alpha") {
				t.Errorf("tools/call = %s", out)
			}
		})
	}
}

// A client written with the TypeScript SDK, over stdio and streamable HTTP.
func TestMCPTypeScriptSDKClient(t *testing.T) {
	dir, path := mcpClients(t)
	script, _ := filepath.Abs(filepath.Join("testdata", "mcp-ts-client.mjs"))
	// The script resolves the SDK from its own folder: run a copy there.
	local := filepath.Join(dir, "mcp-ts-client.mjs")
	b, _ := os.ReadFile(script)
	if err := os.WriteFile(local, b, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := buildCLI(t)
	root := t.TempDir()
	copyExamples(t, root)
	url, _ := startServer(t, bin, "--root", root)
	for name, args := range map[string][]string{
		"stdio": {"stdio", bin, "mcp", "--root", root, "--state", t.TempDir()},
		"http":  {"http", url + "/mcp"},
	} {
		t.Run(name, func(t *testing.T) {
			var got struct {
				Instructions string
				Server       struct{ Name, Version string }
				Tools        []struct {
					Name     string
					ReadOnly *bool
				}
				Read struct {
					IsError    bool
					Structured map[string]any
					Text       string
				}
				Missing struct {
					IsError    bool
					Structured map[string]any
				}
			}
			out := runNode(t, path, append([]string{local}, args...)...)
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if got.Server.Name != "filecontext" || !strings.Contains(got.Instructions, "file_context_read_range") || len(got.Tools) < 8 {
				t.Errorf("server %+v, %d tools, instructions %.60q", got.Server, len(got.Tools), got.Instructions)
			}
			for _, tool := range got.Tools {
				if tool.Name == "file_access_read" && (tool.ReadOnly == nil || !*tool.ReadOnly) {
					t.Errorf("file_access_read readOnlyHint %v", tool.ReadOnly)
				}
			}
			if got.Read.IsError || !strings.HasPrefix(got.Read.Structured["content"].(string), "alpha") || !strings.Contains(got.Read.Text, `"lineEnding":"lf"`) {
				t.Errorf("read = %+v", got.Read)
			}
			if e, _ := got.Missing.Structured["error"].(map[string]any); !got.Missing.IsError || e["code"] != "not_found" {
				t.Errorf("missing = %+v", got.Missing)
			}
		})
	}
}
