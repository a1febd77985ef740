package transport_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

// serialized is the response as the Lambda runtime writes it, with HTML
// escaping off (lambda.WithSetEscapeHTML(false) in every function).
func serialized(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func bedrockValues(args map[string]any) []toolapi.NamedValue {
	var values []toolapi.NamedValue
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := args[k]
		s, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		values = append(values, toolapi.NamedValue{Name: k, Value: s})
	}
	return values
}

// callBedrock makes one call in the given style and returns the body and
// the whole serialized response.
func callBedrock(t *testing.T, r *transport.Router, apiStyle bool, tool string, args map[string]any, budget int) (string, []byte, transport.BedrockResponse) {
	t.Helper()
	e := &transport.BedrockEvent{MessageVersion: "1.0", ActionGroup: "read"}
	if apiStyle {
		e.APIPath, e.HTTPMethod = "/tools/"+tool, "POST"
		e.RequestBody = &struct {
			Content map[string]struct {
				Properties []toolapi.NamedValue `json:"properties"`
			} `json:"content"`
		}{Content: map[string]struct {
			Properties []toolapi.NamedValue `json:"properties"`
		}{"application/json": {Properties: bedrockValues(args)}}}
	} else {
		e.Function, e.Parameters = tool, bedrockValues(args)
	}
	out := r.ServeBedrock(context.Background(), e, budget)
	var body string
	if apiStyle {
		body = out.Response.ResponseBody["application/json"].Body
	} else {
		body = out.Response.FunctionResponse.ResponseBody["TEXT"].Body
	}
	return body, serialized(t, out), out
}

// Bodies heavy in characters that JSON escapes twice (once in the body,
// once as the envelope's string) stay within the budget of the whole
// response, in both styles; API-schema answers carry only the documented
// fields.
func TestBedrockBudgetIsTheWholeResponse(t *testing.T) {
	s := newSetup(t, writable(), nil)
	heavy := map[string]string{
		"backslashes.txt": strings.Repeat(`\\\\\\\\\\`+"\n", 4000),
		"quotes.txt":      strings.Repeat(`"a" "b" "c"`+"\n", 4000),
		"html.txt":        strings.Repeat("<a href='x'>&amp;</a>\n", 4000),
		"controls.txt":    strings.Repeat("\x01\x02\x1f\t\x7f tab\n", 4000),
		"mixed.txt":       strings.Repeat("é\\\"<>&\x03\r\n", 6000),
	}
	for name, content := range heavy {
		s.store.Put(context.Background(), secretPrefix+name, []byte(content), fileops.PutOptions{})
	}
	const budget = 24_000
	for name := range heavy {
		for _, call := range []struct {
			tool string
			args map[string]any
		}{
			{"file_access_read", map[string]any{"fileName": name}},
			{"file_context_read_range", map[string]any{"path": name, "lineCount": 1000}},
			{"file_access_read_lines", map[string]any{"fileName": name, "startLine": 1, "endLine": 1000}},
			{"file_context_download", map[string]any{"path": name, "encoding": "utf8"}},
			{"file_access_grep", map[string]any{"regexPattern": "."}},
		} {
			for _, api := range []bool{false, true} {
				body, whole, out := callBedrock(t, s.router, api, call.tool, call.args, budget)
				if len(whole) > budget {
					t.Errorf("%s %s (api %v): the response is %d bytes, over %d", call.tool, name, api, len(whole), budget)
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(body), &m); err != nil || m["truncated"] != true && call.tool != "file_access_grep" {
					t.Errorf("%s %s (api %v): body %.200s", call.tool, name, api, body)
				}
				if api {
					var raw map[string]map[string]any
					json.Unmarshal(whole, &raw)
					var keys []string
					for k := range raw["response"] {
						keys = append(keys, k)
					}
					sort.Strings(keys)
					if got := strings.Join(keys, ","); got != "actionGroup,apiPath,httpMethod,httpStatusCode,responseBody" || out.Response.ResponseState != "" {
						t.Errorf("API-schema response fields = %s", got)
					}
				}
			}
		}
	}
}

// Every continuation repeats the call's arguments, moves it on by cursor or
// offset, and following them to the end gives the uncut answer.
func TestBedrockContinuationsReachTheEnd(t *testing.T) {
	s := newSetup(t, writable(), nil)
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "line %04d %s\\\"<%s>\n", i+1, strings.Repeat("é", i%7), strings.Repeat("x", i%50))
	}
	b.WriteString(strings.Repeat("L", 30_000) + "\n") // one line longer than the budget
	b.WriteString("after the long line\r\nlast")
	text := b.String()
	s.store.Put(context.Background(), secretPrefix+"doc.txt", []byte(text), fileops.PutOptions{})
	const budget = 6_000
	uncut := func(tool string, args map[string]any) string {
		_, _, out := callBedrock(t, s.router, false, tool, args, 0)
		return out.Response.FunctionResponse.ResponseBody["TEXT"].Body
	}
	for _, start := range []struct {
		tool string
		args map[string]any
	}{
		{"file_access_read", map[string]any{"fileName": "doc.txt"}},
		{"file_context_read_range", map[string]any{"path": "doc.txt", "lineCount": 1000}},
		{"file_access_read_lines", map[string]any{"fileName": "doc.txt", "startLine": 1, "endLine": 5000}},
		{"file_context_download", map[string]any{"path": "doc.txt", "maxBytes": 200000, "encoding": "auto"}},
		{"file_context_download", map[string]any{"path": "doc.txt", "encoding": "base64"}},
	} {
		t.Run(start.tool+fmt.Sprint(start.args["encoding"]), func(t *testing.T) {
			var got bytes.Buffer
			tool, args := start.tool, start.args
			for step := 0; ; step++ {
				if step > 2000 {
					t.Fatal("continuations did not end")
				}
				body, whole, _ := callBedrock(t, s.router, step%2 == 1, tool, args, budget)
				if len(whole) > budget {
					t.Fatalf("step %d: %d bytes", step, len(whole))
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(body), &m); err != nil {
					t.Fatalf("step %d: %s", step, body)
				}
				if m["error"] != nil {
					t.Fatalf("step %d %s %v: %s", step, tool, args, body)
				}
				switch {
				case isStr(m["content"]) && tool == "file_access_read_lines":
					for _, row := range fileops.SplitLines([]byte(m["content"].(string))) {
						got.Write(row[bytes.IndexByte(row, '\t')+1:])
					}
				case isStr(m["content"]):
					got.WriteString(m["content"].(string))
				case isStr(m["text"]):
					got.WriteString(m["text"].(string))
				case isStr(m["base64"]):
					raw, err := base64.StdEncoding.DecodeString(m["base64"].(string))
					if err != nil {
						t.Fatalf("step %d: a page of base64 does not decode: %v", step, err)
					}
					got.Write(raw)
				}
				c, ok := m["continuation"].(map[string]any)
				if !ok {
					if m["hasMore"] == true { // a window that ended on its own line count
						next := m["next"].(map[string]any)
						args = withArg(args, "startLine", next["startLine"], "cursor", next["cursor"])
						continue
					}
					break
				}
				next := c["arguments"].(map[string]any)
				if c["tool"] == tool {
					for k, v := range args {
						if _, ok := next[k]; !ok {
							t.Fatalf("step %d: the continuation dropped the argument %s=%v: %v", step, k, v, next)
						}
					}
				}
				tool, args = c["tool"].(string), next
			}
			if got.String() != text {
				t.Errorf("following the continuations gave %d bytes, want %d", got.Len(), len(text))
			}
		})
	}
	if full := uncut("file_context_read_range", map[string]any{"path": "doc.txt", "lineCount": 3}); !strings.Contains(full, "line 0003") {
		t.Errorf("an uncut window = %.200s", full)
	}
}

func isStr(v any) bool { _, ok := v.(string); return ok }

func withArg(args map[string]any, kv ...any) map[string]any {
	o := map[string]any{}
	for k, v := range args {
		o[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		o[kv[i].(string)] = kv[i+1]
	}
	return o
}

// An AgentCore Gateway Lambda-target invocation: the tool from the client
// context, the arguments as the event, the contract JSON as the answer, the
// gateway as the caller.
func TestAgentCoreTargets(t *testing.T) {
	s := newSetup(t, writable(), nil)
	h := transport.LambdaHandler(s.router, 24000)
	invoke := func(tool, args string) map[string]any {
		lc := &lambdacontext.LambdaContext{ClientContext: lambdacontext.ClientContext{Custom: map[string]string{
			"bedrockAgentCoreToolName": "target___" + tool, "bedrockAgentCoreGatewayId": "gw-1"}}}
		out, err := h(lambdacontext.NewContext(context.Background(), lc), json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(out)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %s", tool, b)
		}
		return m
	}
	if m := invoke("file_access_read", `{"fileName":"notes/todo.txt"}`); !strings.HasPrefix(m["content"].(string), "alpha") {
		t.Errorf("read = %v", m)
	}
	if m := invoke("file_access_read", `{"fileName":"../x"}`); m["error"] == nil {
		t.Errorf("a bad path = %v", m)
	}
	// Without the custom field the event is an ordinary one.
	lc := &lambdacontext.LambdaContext{ClientContext: lambdacontext.ClientContext{Custom: map[string]string{"other": "x"}}}
	if _, err := h(lambdacontext.NewContext(context.Background(), lc), json.RawMessage(`{"fileName":"a"}`)); err == nil {
		t.Error("a plain event was answered as a tool call")
	}
}
