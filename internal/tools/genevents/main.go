// Command genevents writes the sample events under events/: for every tool,
// an API Gateway REST proxy event and a Bedrock action-group event in each
// style, plus bad events, and events/expected.json with the status each one
// must answer on the examples/ directory with write tools on and approval
// off. Run it from the repository root after the catalog changes:
//
//	go run ./internal/tools/genevents
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

type sample struct {
	tool   string
	args   map[string]any
	status int
}

var samples = []sample{
	{"file_access_read", map[string]any{"fileName": "notes/todo.txt"}, 200},
	{"file_access_read_lines", map[string]any{"fileName": "notes/checklist.txt", "startLine": 2, "endLine": 3}, 200},
	{"file_context_read_range", map[string]any{"path": "guides/getting-started.md", "startLine": 1, "lineCount": 5}, 200},
	{"file_access_ls", map[string]any{"directory": "guides"}, 200},
	{"file_access_grep", map[string]any{"regexPattern": "match$", "directory": "notes"}, 200},
	{"file_context_info", map[string]any{"path": "guides"}, 200},
	{"file_context_download", map[string]any{"path": "notes/todo.txt", "maxBytes": 16}, 200},
	{"file_access_write", map[string]any{"fileName": "notes/new.txt", "content": "hello\n"}, 200},
	{"file_access_delete", map[string]any{"fileName": "notes/todo.txt"}, 200},
	{"file_access_replace", map[string]any{"fileName": "notes/todo.txt", "oldString": "alpha", "newString": "ALPHA"}, 200},
	{"file_access_replace_lines", map[string]any{"fileName": "notes/todo.txt", "edits": []any{
		map[string]any{"line_number": 1, "new_line": "first", "expected_line": "alpha: read the contract"}}}, 200},
}

const userArn = "arn:aws:sts::123456789012:assumed-role/filecontext-agent/session-1"

func apigw(method, path, body string, base64 bool) map[string]any {
	return map[string]any{
		"resource": path, "path": path, "httpMethod": method,
		"headers":               map[string]any{"Content-Type": "application/json", "Host": "abc123.execute-api.eu-west-1.amazonaws.com"},
		"multiValueHeaders":     map[string]any{"Content-Type": []string{"application/json"}},
		"queryStringParameters": nil, "multiValueQueryStringParameters": nil, "pathParameters": nil, "stageVariables": nil,
		"requestContext": map[string]any{
			"resourceId": "res123", "resourcePath": path, "httpMethod": method, "requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
			"accountId": "123456789012", "stage": "dev", "apiId": "abc123", "protocol": "HTTP/1.1",
			"identity": map[string]any{"userArn": userArn, "caller": "AROAEXAMPLE:session-1", "accountId": "123456789012",
				"user": "AROAEXAMPLE:session-1", "sourceIp": "203.0.113.10", "userAgent": "filecontext-client"},
		},
		"body": body, "isBase64Encoded": base64,
	}
}

func bedrockBase() map[string]any {
	return map[string]any{
		"messageVersion": "1.0",
		"agent":          map[string]any{"name": "docs-agent", "id": "AGENT12345", "alias": "TSTALIASID", "version": "DRAFT"},
		"inputText":      "Please look at the notes.", "sessionId": "session-123", "actionGroup": "filecontext-read",
		"sessionAttributes": map[string]any{}, "promptSessionAttributes": map[string]any{},
	}
}

func params(args map[string]any) []map[string]any {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []map[string]any
	for _, k := range keys {
		v, typ := "", "string"
		switch a := args[k].(type) {
		case string:
			v = a
		case int:
			v, typ = strconv.Itoa(a), "integer"
		case bool:
			v, typ = strconv.FormatBool(a), "boolean"
		default:
			b, _ := json.Marshal(a)
			v, typ = string(b), "array"
		}
		out = append(out, map[string]any{"name": k, "type": typ, "value": v})
	}
	return out
}

// s3Event is an S3 notification for one key under the prefix the tests
// use ("tenant-e2e-91c4/"), URL-encoded as S3 sends keys.
func s3Event(name, key string) map[string]any {
	return map[string]any{"Records": []any{map[string]any{
		"eventVersion": "2.1", "eventSource": "aws:s3", "awsRegion": "eu-west-1", "eventTime": "2026-11-30T12:00:00.000Z", "eventName": name,
		"s3": map[string]any{"s3SchemaVersion": "1.0", "bucket": map[string]any{"name": "filecontext-data-dev", "arn": "arn:aws:s3:::filecontext-data-dev"},
			"object": map[string]any{"key": "tenant-e2e-91c4/" + key, "size": 120, "eTag": "0123456789abcdef0123456789abcdef", "sequencer": "0055AED6DCD90281E5"}},
	}}}
}

func bedrockOpenAPI(tool string, args map[string]any) map[string]any {
	e := bedrockBase()
	e["apiPath"], e["httpMethod"], e["parameters"] = "/tools/"+tool, "POST", []any{}
	e["requestBody"] = map[string]any{"content": map[string]any{"application/json": map[string]any{"properties": params(args)}}}
	return e
}

func bedrockFunction(tool string, args map[string]any) map[string]any {
	e := bedrockBase()
	e["function"], e["parameters"] = tool, params(args)
	return e
}

func main() {
	expected := map[string]int{}
	write := func(name string, v any, status int) {
		path := filepath.Join("events", name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		b, _ := json.MarshalIndent(v, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			panic(err)
		}
		expected[name] = status
	}
	for _, s := range samples {
		body, _ := json.Marshal(s.args)
		write("apigw/"+s.tool+".json", apigw("POST", "/tools/"+s.tool, string(body), false), s.status)
		write("bedrock-openapi/"+s.tool+".json", bedrockOpenAPI(s.tool, s.args), s.status)
		write("bedrock-function/"+s.tool+".json", bedrockFunction(s.tool, s.args), s.status)
	}
	write("apigw/get-tools.json", apigw("GET", "/tools", "", false), 200)
	write("apigw/get-openapi.json", apigw("GET", "/openapi.json", "", false), 200)
	write("apigw/base64-body.json", apigw("POST", "/tools/file_access_read", "eyJmaWxlTmFtZSI6Im5vdGVzL3RvZG8udHh0In0=", true), 200)
	// Bad input: each a clear 4xx and nothing written.
	write("bad/apigw-malformed-json.json", apigw("POST", "/tools/file_access_write", `{"fileName": "x.txt", "content": `, false), 400)
	write("bad/apigw-wrong-type.json", apigw("POST", "/tools/file_access_read_lines", `{"fileName": "notes/todo.txt", "startLine": "two"}`, false), 400)
	write("bad/apigw-unknown-argument.json", apigw("POST", "/tools/file_access_write", `{"fileName": "x.txt", "content": "x", "mode": "force"}`, false), 400)
	write("bad/apigw-missing-argument.json", apigw("POST", "/tools/file_access_write", `{"fileName": "x.txt"}`, false), 400)
	write("bad/apigw-unknown-tool.json", apigw("POST", "/tools/file_access_chmod", `{}`, false), 404)
	write("bad/apigw-invalid-path.json", apigw("POST", "/tools/file_access_write", `{"fileName": "../escape.txt", "content": "x"}`, false), 400)
	write("bad/apigw-bad-base64.json", apigw("POST", "/tools/file_access_read", "%%%not base64", true), 400)
	write("bad/apigw-unknown-route.json", apigw("DELETE", "/everything", "", false), 404)
	write("bad/apigw-body-not-object.json", apigw("POST", "/tools/file_access_read", `["notes/todo.txt"]`, false), 400)
	e := bedrockBase()
	write("bad/bedrock-no-function-or-path.json", e, 400)
	write("bad/bedrock-wrong-type.json", bedrockFunction("file_access_read_lines", map[string]any{"fileName": "notes/todo.txt", "startLine": "two"}), 400)
	write("bad/bedrock-unknown-tool.json", bedrockFunction("file_access_chmod", map[string]any{}), 404)
	write("bad/bedrock-edits-not-json.json", bedrockFunction("file_access_replace_lines", map[string]any{"fileName": "notes/todo.txt", "edits": "line 1 = x"}), 400)
	b, _ := json.MarshalIndent(expected, "", "  ")
	os.WriteFile(filepath.Join("events", "expected.json"), append(b, '\n'), 0o644)
	n := len(expected)

	// The graph function's events: its tools, and S3 notifications.
	expected = map[string]int{}
	search := map[string]any{"query": "approvals", "maxResults": 5}
	export := map[string]any{"format": "mermaid", "directory": "guides"}
	body, _ := json.Marshal(search)
	write("graph/apigw-search.json", apigw("POST", "/tools/file_context_markdown_graph_search", string(body), false), 200)
	body, _ = json.Marshal(export)
	write("graph/apigw-export.json", apigw("POST", "/tools/file_context_markdown_graph_export", string(body), false), 200)
	write("graph/bedrock-openapi-search.json", bedrockOpenAPI("file_context_markdown_graph_search", search), 200)
	write("graph/bedrock-function-export.json", bedrockFunction("file_context_markdown_graph_export", map[string]any{"format": "JsonLd"}), 200)
	write("graph/bedrock-function-related.json", bedrockFunction("file_context_markdown_graph_related", map[string]any{"path": "guides/approvals.md", "direction": "in"}), 200)
	write("graph/bad-related-missing.json", apigw("POST", "/tools/file_context_markdown_graph_related", `{"path":"guides/none.md"}`, false), 404)
	write("graph/bad-blank-query.json", bedrockFunction("file_context_markdown_graph_search", map[string]any{"query": " "}), 400)
	write("graph/bad-format.json", apigw("POST", "/tools/file_context_markdown_graph_export", `{"format":"rdfxml"}`, false), 400)
	write("graph/bad-no-markdown.json", apigw("POST", "/tools/file_context_markdown_graph_search", `{"query":"x","directory":"notes"}`, false), 422)
	write("graph/bad-file-tool.json", apigw("POST", "/tools/file_access_read", `{"fileName":"README.md"}`, false), 404)
	write("graph/s3-object-created.json", s3Event("ObjectCreated:Put", "README.md"), 200)
	write("graph/s3-object-removed.json", s3Event("ObjectRemoved:Delete", "guides/old+notes.md"), 200)
	write("graph/s3-not-markdown.json", s3Event("ObjectCreated:Put", "notes/todo.txt"), 200)
	b, _ = json.MarshalIndent(expected, "", "  ")
	os.WriteFile(filepath.Join("events", "graph", "expected.json"), append(b, '\n'), 0o644)
	fmt.Printf("wrote %d events\n", n+len(expected))
}
