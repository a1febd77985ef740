package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
)

// BedrockEvent is a Bedrock agent action-group invocation, in either style:
// OpenAPI (ApiPath, HTTPMethod, RequestBody) or function details (Function).
type BedrockEvent struct {
	MessageVersion string `json:"messageVersion"`
	Agent          struct {
		Name    string `json:"name"`
		ID      string `json:"id"`
		Alias   string `json:"alias"`
		Version string `json:"version"`
	} `json:"agent"`
	InputText   string               `json:"inputText"`
	SessionID   string               `json:"sessionId"`
	ActionGroup string               `json:"actionGroup"`
	APIPath     string               `json:"apiPath,omitempty"`
	HTTPMethod  string               `json:"httpMethod,omitempty"`
	Function    string               `json:"function,omitempty"`
	Parameters  []toolapi.NamedValue `json:"parameters,omitempty"`
	RequestBody *struct {
		Content map[string]struct {
			Properties []toolapi.NamedValue `json:"properties"`
		} `json:"content"`
	} `json:"requestBody,omitempty"`
	SessionAttributes       map[string]string `json:"sessionAttributes,omitempty"`
	PromptSessionAttributes map[string]string `json:"promptSessionAttributes,omitempty"`
}

// BedrockResponse is the envelope Bedrock expects back.
type BedrockResponse struct {
	MessageVersion          string            `json:"messageVersion"`
	Response                BedrockResult     `json:"response"`
	SessionAttributes       map[string]string `json:"sessionAttributes,omitempty"`
	PromptSessionAttributes map[string]string `json:"promptSessionAttributes,omitempty"`
}

// BedrockResult is the "response" member, for either style.
type BedrockResult struct {
	ActionGroup      string                   `json:"actionGroup"`
	APIPath          string                   `json:"apiPath,omitempty"`
	HTTPMethod       string                   `json:"httpMethod,omitempty"`
	HTTPStatusCode   int                      `json:"httpStatusCode,omitempty"`
	ResponseBody     map[string]BedrockBody   `json:"responseBody,omitempty"`
	ResponseState    string                   `json:"responseState,omitempty"`
	Function         string                   `json:"function,omitempty"`
	FunctionResponse *BedrockFunctionResponse `json:"functionResponse,omitempty"`
}

// BedrockFunctionResponse is the result of a function-style call.
type BedrockFunctionResponse struct {
	ResponseState string                 `json:"responseState,omitempty"`
	ResponseBody  map[string]BedrockBody `json:"responseBody"`
}

// BedrockBody holds the body as a string.
type BedrockBody struct {
	Body string `json:"body"`
}

// IsBedrockEvent tells a Bedrock action-group event from other JSON events.
func IsBedrockEvent(raw []byte) bool {
	var probe struct {
		MessageVersion string `json:"messageVersion"`
		ActionGroup    string `json:"actionGroup"`
		Agent          any    `json:"agent"`
	}
	return json.Unmarshal(raw, &probe) == nil && probe.MessageVersion != "" && (probe.ActionGroup != "" || probe.Agent != nil)
}

// ServeBedrock answers a Bedrock action-group event. Domain errors (4xx) are
// REPROMPT, so the model can correct its call; infrastructure errors (5xx)
// are FAILURE. The body is cut to fit BodyBudget bytes, with truncated: true
// and a continuation, never breaking the envelope.
func (r *Router) ServeBedrock(ctx context.Context, e *BedrockEvent, bodyBudget int) BedrockResponse {
	start := time.Now()
	caller := toolapi.Caller{ID: "bedrock-agent:" + e.Agent.ID + "/" + e.Agent.Alias}
	out := BedrockResponse{MessageVersion: "1.0", SessionAttributes: e.SessionAttributes, PromptSessionAttributes: e.PromptSessionAttributes}
	out.Response.ActionGroup = e.ActionGroup
	req := Request{Method: "POST", Caller: caller, RequestID: e.SessionID}

	var res Response
	var tool string
	switch {
	case e.Function != "":
		tool = e.Function
		req.Path = "/tools/" + tool
		res = r.serveValues(ctx, req, tool, e.Parameters, start)
	case e.APIPath != "":
		req.Method, req.Path = strings.ToUpper(e.HTTPMethod), e.APIPath
		if req.Method == "" {
			req.Method = "POST"
		}
		if t, ok := strings.CutPrefix(e.APIPath, "/tools/"); ok && req.Method == "POST" {
			tool = t
			values := append([]toolapi.NamedValue(nil), e.Parameters...)
			if e.RequestBody != nil {
				for _, c := range e.RequestBody.Content {
					values = append(values, c.Properties...)
				}
			}
			res = r.serveValues(ctx, req, tool, values, start)
		} else {
			res = r.Serve(ctx, req)
		}
	default:
		res = r.Respond(req, toolapi.ErrorResult(fault.New(fault.InvalidArgument,
			"The Bedrock event names neither a function nor an apiPath.")), start)
	}

	body := fitBody(tool, res.Body, bodyBudget)
	state := ""
	if res.Status >= 400 {
		state = "REPROMPT"
		if res.Status >= 500 {
			state = "FAILURE"
		}
	}
	if e.Function != "" {
		out.Response.Function = e.Function
		out.Response.FunctionResponse = &BedrockFunctionResponse{ResponseState: state, ResponseBody: map[string]BedrockBody{"TEXT": {Body: string(body)}}}
	} else {
		out.Response.APIPath, out.Response.HTTPMethod = e.APIPath, e.HTTPMethod
		out.Response.HTTPStatusCode = res.Status
		out.Response.ResponseState = state
		out.Response.ResponseBody = map[string]BedrockBody{"application/json": {Body: string(body)}}
	}
	return out
}

func (r *Router) serveValues(ctx context.Context, req Request, tool string, values []toolapi.NamedValue, start time.Time) Response {
	// Coercion happens here, then the call takes the same path as JSON.
	args, err := r.Tools.Coerce(tool, values)
	if err != nil {
		return r.Respond(req, toolapi.ErrorResult(err), start)
	}
	req.Body = args
	return r.Serve(ctx, req)
}

// fitBody returns body if it fits the budget; otherwise a shorter body of
// the same result with truncated: true and a continuation telling how to
// get the rest.
func fitBody(tool string, body []byte, budget int) []byte {
	if budget <= 0 || len(body) <= budget {
		return body
	}
	var obj map[string]any
	if json.Unmarshal(body, &obj) != nil {
		return tooBig(tool, len(body))
	}
	obj["truncated"] = true
	switch {
	case isString(obj["content"]):
		return fitContent(tool, obj, budget)
	case isString(obj["text"]) || isString(obj["base64"]):
		return fitDownload(obj, budget)
	case isSlice(obj["results"]):
		return fitSlice(obj, "results", budget, "Narrow directory, globPattern or regexPattern to see the rest.")
	case isSlice(obj["entries"]):
		return fitSlice(obj, "entries", budget, "Use globPattern to see the rest.")
	case isSlice(obj["matches"]):
		return fitSlice(obj, "matches", budget, "Lower maxResults or refine the query.")
	}
	return tooBig(tool, len(body))
}

func isString(v any) bool { _, ok := v.(string); return ok }
func isSlice(v any) bool  { _, ok := v.([]any); return ok }

func tooBig(tool string, n int) []byte {
	b, _ := json.Marshal(map[string]any{"truncated": true,
		"message": fmt.Sprintf("The result of %s (%d bytes) is over the response budget; ask for less.", tool, n)})
	return b
}

// fitContent cuts a text result at a line boundary (or, for a single long
// line, a character boundary) and says where to continue.
func fitContent(tool string, obj map[string]any, budget int) []byte {
	content := obj["content"].(string)
	path, _ := obj["path"].(string)
	startLine := 1
	if n, ok := obj["startLine"].(float64); ok {
		startLine = int(n)
	}
	fits := func(c string) ([]byte, bool) {
		o := cloneMap(obj)
		o["content"] = c
		lines := countLines(c)
		delete(o, "totalLines")
		if tool == "file_access_read" {
			o["continuation"] = map[string]any{"tool": "file_context_read_range", "arguments": map[string]any{"path": path, "startLine": lines + 1}}
		} else {
			o["endLine"] = startLine + lines - 1
			o["hasMore"] = true
			o["next"] = map[string]any{"startLine": startLine + lines}
			o["continuation"] = map[string]any{"tool": tool, "arguments": map[string]any{pathArg(tool): path, "startLine": startLine + lines}}
		}
		b, _ := json.Marshal(o)
		return b, len(b) <= budget
	}
	// Binary search the longest prefix that fits, then back off to a line end.
	lo, hi := 0, len(content)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if _, ok := fits(content[:mid]); ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	cut := lastLineEnd(content[:lo])
	if cut == 0 {
		for lo > 0 && !utf8.RuneStart(content[lo]) {
			lo--
		}
		cut = lo
	}
	b, ok := fits(content[:cut])
	if !ok {
		return tooBig(tool, len(content))
	}
	return b
}

func pathArg(tool string) string {
	if tool == "file_access_read_lines" {
		return "fileName"
	}
	return "path"
}

func lastLineEnd(s string) int {
	i := strings.LastIndexAny(s, "\n\r")
	if i < 0 {
		return 0
	}
	if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
		i++
	}
	return i + 1
}

func countLines(s string) int {
	n := strings.Count(s, "\n") + strings.Count(s, "\r") - strings.Count(s, "\r\n")
	if s != "" && !strings.HasSuffix(s, "\n") && !strings.HasSuffix(s, "\r") {
		n++
	}
	return n
}

func fitDownload(obj map[string]any, budget int) []byte {
	field := "text"
	if isString(obj["base64"]) {
		field = "base64"
	}
	data := obj[field].(string)
	offset, _ := obj["offsetBytes"].(float64)
	path, _ := obj["path"].(string)
	try := func(n int) ([]byte, bool) {
		o := cloneMap(obj)
		o[field] = data[:n]
		read := n
		if field == "base64" {
			read = n / 4 * 3 // whole quanta only
		}
		next := int64(offset) + int64(read)
		o["bytesRead"], o["hasMore"], o["nextOffsetBytes"] = read, true, next
		o["continuation"] = map[string]any{"tool": "file_context_download", "arguments": map[string]any{"path": path, "offsetBytes": next, "maxBytes": read}}
		b, _ := json.Marshal(o)
		return b, len(b) <= budget
	}
	lo, hi := 0, len(data)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if _, ok := try(mid); ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if field == "base64" {
		lo -= lo % 4
	} else {
		for lo > 0 && lo < len(data) && !utf8.RuneStart(data[lo]) {
			lo--
		}
	}
	b, _ := try(lo)
	return b
}

func fitSlice(obj map[string]any, field string, budget int, hint string) []byte {
	items := obj[field].([]any)
	for n := len(items); n >= 0; n-- {
		o := cloneMap(obj)
		o[field] = items[:n]
		o["omitted"] = len(items) - n
		o["message"] = fmt.Sprintf("%d item(s) left out to fit the response budget. %s", len(items)-n, hint)
		if b, _ := json.Marshal(o); len(b) <= budget {
			return b
		}
	}
	return tooBig(field, budget)
}

func cloneMap(m map[string]any) map[string]any {
	o := make(map[string]any, len(m)+3)
	for k, v := range m {
		o[k] = v
	}
	return o
}
