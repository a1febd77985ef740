package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/filecontext-aws/filecontext/pkg/fault"
)

func defaultEndpoint() string {
	if v := os.Getenv("FILECONTEXT_ENDPOINT"); v != "" {
		return v
	}
	return "http://127.0.0.1:8080"
}

// splitFlags separates --flags from positional arguments, so flags may come
// after the tool name and its key=value pairs.
func splitFlags(args []string) (flags, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "--") {
			flags = append(flags, a)
			if !strings.Contains(a, "=") && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		rest = append(rest, a)
	}
	return flags, rest
}

func call(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flagArgs, rest := splitFlags(args)
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	endpoint := fs.String("endpoint", defaultEndpoint(), "server URL")
	if err := fs.Parse(flagArgs); err != nil {
		return 2
	}
	if len(rest) == 0 {
		fmt.Fprintln(stderr, "filecontext call: name a tool, e.g. filecontext call file_access_read fileName=notes.md")
		return 2
	}
	tool, pairs := rest[0], rest[1:]
	types, err := paramTypes(ctx, *endpoint, tool)
	if err != nil {
		fmt.Fprintln(stderr, "filecontext call:", err)
		return 1
	}
	body, err := buildArgs(pairs, types)
	if err != nil {
		fmt.Fprintln(stderr, "filecontext call:", err)
		return 2
	}
	status, out, err := post(ctx, *endpoint+"/tools/"+tool, body)
	if err != nil {
		fmt.Fprintln(stderr, "filecontext call:", err)
		return 1
	}
	printJSON(stdout, out)
	return exitCode(status, out)
}

// buildArgs turns key=value (typed by the tool's schema) and key:=json pairs
// into a JSON object.
func buildArgs(pairs []string, types map[string]string) ([]byte, error) {
	obj := map[string]any{}
	for _, p := range pairs {
		if k, v, ok := strings.Cut(p, ":="); ok && !strings.Contains(k, "=") {
			var j any
			if err := json.Unmarshal([]byte(v), &j); err != nil {
				return nil, fmt.Errorf("%s:= is not JSON: %v", k, err)
			}
			obj[k] = j
			continue
		}
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return nil, fmt.Errorf("argument %q is not key=value or key:=json", p)
		}
		switch types[k] {
		case "integer":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s must be an integer, got %q", k, v)
			}
			obj[k] = n
		case "boolean":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("%s must be true or false, got %q", k, v)
			}
			obj[k] = b
		case "array", "object":
			var j any
			if err := json.Unmarshal([]byte(v), &j); err != nil {
				return nil, fmt.Errorf("%s must be JSON, got %q", k, v)
			}
			obj[k] = j
		default:
			obj[k] = v
		}
	}
	return json.Marshal(obj)
}

// paramTypes asks the server's catalog for the tool's argument types.
func paramTypes(ctx context.Context, endpoint, tool string) (map[string]string, error) {
	var cat struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Properties map[string]struct {
					Type string `json:"type"`
				} `json:"properties"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	status, out, err := get(ctx, endpoint+"/tools")
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK || json.Unmarshal(out, &cat) != nil {
		return nil, fmt.Errorf("GET %s/tools answered %d", endpoint, status)
	}
	types := map[string]string{}
	for _, t := range cat.Tools {
		if t.Name == tool {
			for k, p := range t.InputSchema.Properties {
				types[k] = p.Type
			}
		}
	}
	return types, nil
}

func listTools(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	fs.SetOutput(stderr)
	endpoint := fs.String("endpoint", defaultEndpoint(), "server URL")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	status, out, err := get(ctx, *endpoint+"/tools")
	if err != nil {
		fmt.Fprintln(stderr, "filecontext tools:", err)
		return 1
	}
	printJSON(stdout, out)
	return exitCode(status, out)
}

func get(ctx context.Context, url string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	return do(req)
}

func post(ctx context.Context, url string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return do(req)
}

func do(req *http.Request) (int, []byte, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func printJSON(w io.Writer, b []byte) {
	var buf bytes.Buffer
	if json.Indent(&buf, b, "", "  ") != nil {
		w.Write(b)
		fmt.Fprintln(w)
		return
	}
	buf.WriteByte('\n')
	w.Write(buf.Bytes())
}

// exitCode maps an answer to the CLI's exit code through the one table in
// package fault.
func exitCode(status int, body []byte) int {
	if status < 400 {
		return 0
	}
	var e struct {
		Error struct {
			Code fault.Code `json:"code"`
		} `json:"error"`
	}
	json.Unmarshal(body, &e)
	return e.Error.Code.ExitCode()
}
