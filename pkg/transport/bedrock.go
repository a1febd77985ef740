package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
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
// are FAILURE. responseBudget bounds the whole serialized response, envelope
// and escaping included (Bedrock limits the Lambda response, not the body:
// see "Configure Lambda functions to send information that an Amazon
// Bedrock agent elicits from the user" in the Bedrock user guide); a body
// that does not fit is cut with truncated: true and a continuation, never
// breaking the envelope. The response must be serialized without HTML
// escaping (lambda.WithSetEscapeHTML(false)), as the budget is measured.
func (r *Router) ServeBedrock(ctx context.Context, e *BedrockEvent, responseBudget int) BedrockResponse {
	start := time.Now()
	caller := toolapi.Caller{ID: "bedrock-agent:" + e.Agent.ID + "/" + e.Agent.Alias}
	out := BedrockResponse{MessageVersion: "1.0", SessionAttributes: e.SessionAttributes, PromptSessionAttributes: e.PromptSessionAttributes}
	out.Response.ActionGroup = e.ActionGroup
	req := Request{Method: "POST", Caller: caller, RequestID: e.SessionID}

	var res Response
	var tool string
	var args []byte
	switch {
	case e.Function != "":
		tool = e.Function
		req.Path = "/tools/" + tool
		res, args = r.serveValues(ctx, req, tool, e.Parameters, responseBudget, start)
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
			res, args = r.serveValues(ctx, req, tool, values, responseBudget, start)
		} else {
			res = r.Serve(ctx, req)
		}
	default:
		res = r.Respond(req, toolapi.ErrorResult(fault.New(fault.InvalidArgument,
			"The Bedrock event names neither a function nor an apiPath.")), start)
	}

	state := ""
	if res.Status >= 400 {
		state = "REPROMPT"
		if res.Status >= 500 {
			state = "FAILURE"
		}
	}
	// setBody puts a body in the envelope: function-details responses carry
	// responseState; API-schema responses carry exactly actionGroup,
	// apiPath, httpMethod, httpStatusCode and responseBody.
	setBody := func(body string) {
		if e.Function != "" {
			out.Response.Function = e.Function
			out.Response.FunctionResponse = &BedrockFunctionResponse{ResponseState: state, ResponseBody: map[string]BedrockBody{"TEXT": {Body: body}}}
		} else {
			out.Response.APIPath, out.Response.HTTPMethod = e.APIPath, e.HTTPMethod
			out.Response.HTTPStatusCode = res.Status
			out.Response.ResponseBody = map[string]BedrockBody{"application/json": {Body: body}}
		}
	}
	setBody("")
	envelope, _ := marshal(out)
	fits := func(body []byte) bool {
		return responseBudget <= 0 || len(envelope)+escapedLen(body) <= responseBudget
	}
	var argMap map[string]any
	json.Unmarshal(args, &argMap)
	if tool == toolapi.ToolGraphExport && res.Status == 200 {
		res.Body = withExportContinuation(res.Body, argMap)
	}
	setBody(string(fitBody(tool, res, argMap, fits)))
	return out
}

// withExportContinuation adds to an export page that has a next page the
// continuation every cut Bedrock answer carries: the call's arguments with
// the cursor of the next page.
func withExportContinuation(body []byte, args map[string]any) []byte {
	var obj map[string]any
	if json.Unmarshal(body, &obj) != nil {
		return body
	}
	next, _ := obj["next"].(map[string]any)
	cursor, _ := next["cursor"].(string)
	if cursor == "" {
		return body
	}
	obj["continuation"] = map[string]any{"tool": toolapi.ToolGraphExport, "arguments": withArgs(args, "cursor", cursor)}
	b, err := marshal(obj)
	if err != nil {
		return body
	}
	return b
}

// escapedLen is how many bytes body adds inside a JSON string, escaped as
// the response is serialized (no HTML escaping).
func escapedLen(body []byte) int {
	b, _ := marshal(string(body))
	return len(b) - 2
}

// serveValues types Bedrock's string values by the tool's schema and serves
// the call like a JSON one; it returns the typed arguments too. A graph
// export is asked for pages that fit the response budget.
func (r *Router) serveValues(ctx context.Context, req Request, tool string, values []toolapi.NamedValue, budget int, start time.Time) (Response, []byte) {
	args, err := r.Tools.Coerce(tool, values)
	if err != nil {
		return r.Respond(req, toolapi.ErrorResult(err), start), nil
	}
	if tool == toolapi.ToolGraphExport && budget > 0 {
		args = exportPageFor(args, budget)
	}
	req.Body = args
	return r.Serve(ctx, req), args
}

// exportPageFor bounds an export's page by a quarter of the response
// budget: content in a JSON body in a JSON envelope may escape each quote
// into four bytes. A smaller maxBytes the caller gave stays.
func exportPageFor(args []byte, budget int) []byte {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return args
	}
	page := max(budget/4, 1)
	if v, ok := m["maxBytes"].(float64); ok && v > 0 && int(v) < page {
		return args
	}
	m["maxBytes"] = page
	b, _ := json.Marshal(m)
	return b
}

// fitBody returns the body if it fits; otherwise a shorter body of the same
// result with truncated: true, and, where the rest can be fetched, a
// continuation that repeats every argument of the call with those that
// move it on (startLine and cursor, offsetBytes).
func fitBody(tool string, res Response, args map[string]any, fits func([]byte) bool) []byte {
	body := res.Body
	if fits(body) {
		return body
	}
	var obj map[string]any
	if json.Unmarshal(body, &obj) != nil {
		return tooBig(tool, len(body), fits)
	}
	obj["truncated"] = true
	switch {
	case isString(obj["content"]):
		return fitContent(tool, obj, res.Result.Body, args, fits)
	case isString(obj["text"]) || isString(obj["base64"]):
		return fitDownload(obj, args, fits)
	case isSlice(obj["results"]):
		return fitSlice(tool, obj, "results", fits, "Narrow directory, globPattern or regexPattern to see the rest.")
	case isSlice(obj["entries"]):
		return fitSlice(tool, obj, "entries", fits, "Use globPattern to see the rest.")
	case isSlice(obj["matches"]):
		return fitSlice(tool, obj, "matches", fits, "Lower maxResults or refine the query.")
	}
	return tooBig(tool, len(body), fits)
}

func isString(v any) bool { _, ok := v.(string); return ok }
func isSlice(v any) bool  { _, ok := v.([]any); return ok }

func tooBig(tool string, n int, fits func([]byte) bool) []byte {
	b, _ := marshal(map[string]any{"truncated": true,
		"message": fmt.Sprintf("The result of %s (%d bytes) is over the response budget; ask for less.", tool, n)})
	if !fits(b) {
		b = []byte(`{"truncated":true}`)
	}
	return b
}

// withArgs returns a copy of the call's arguments with some replaced.
func withArgs(args map[string]any, kv ...any) map[string]any {
	o := make(map[string]any, len(args)+len(kv)/2)
	for k, v := range args {
		o[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		o[kv[i].(string)] = kv[i+1]
	}
	return o
}

// segment is one line of a text result as the content shows it (a
// read_lines row keeps its "<n>\t" prefix) and the file bytes it stands for.
type segment struct {
	text      string
	fileBytes int
}

// segments splits content into its lines (rows, when numbered) by the
// line rule of package fileops.
func segments(content string, numbered bool) []segment {
	lines := fileops.SplitLines([]byte(content))
	out := make([]segment, len(lines))
	for i, l := range lines {
		out[i] = segment{text: string(l), fileBytes: len(l)}
		if numbered {
			if tab := strings.IndexByte(out[i].text, '\t'); tab >= 0 {
				out[i].fileBytes -= tab + 1
			}
		}
	}
	return out
}

// fitContent cuts a text result after its last whole line that fits and
// continues with a cursor at the first line left out. A first line that does
// not fit alone is cut at a character boundary and continues as bytes
// (file_context_download from the first byte left out).
func fitContent(tool string, obj map[string]any, typed any, args map[string]any, fits func([]byte) bool) []byte {
	content := obj["content"].(string)
	path, _ := obj["path"].(string)
	etag, _ := obj["etag"].(string)
	window, isWindow := typed.(*fileops.WindowResult)
	numbered := tool == "file_access_read_lines"
	if tool != "file_access_read" && !isWindow {
		return tooBig(tool, len(content), fits) // no paging arguments to continue with
	}
	segs := segments(content, numbered)
	startLine, endOffset := 1, int64(0)
	if isWindow {
		startLine, endOffset = window.StartLine, window.EndOffset()
	} else {
		endOffset = int64(len(content))
	}
	// build returns the answer holding the first k lines, plus cut bytes of
	// line k+1 when partial > 0.
	build := func(k, partial int) []byte {
		var text strings.Builder
		dropped := 0
		for i, sg := range segs {
			if i < k {
				text.WriteString(sg.text)
			} else {
				dropped += sg.fileBytes
			}
		}
		o := cloneMap(obj)
		delete(o, "totalLines")
		next := startLine + k
		offset := endOffset - int64(dropped)
		if partial > 0 {
			cut := segs[k].text[:partial]
			if numbered {
				partial -= len(segs[k].text) - segs[k].fileBytes // the row prefix is not file bytes
			}
			text.WriteString(cut)
			offset += int64(partial)
			o["continuation"] = map[string]any{"tool": "file_context_download",
				"arguments": map[string]any{"path": path, "offsetBytes": offset, "expectedEtag": etag},
				"message":   fmt.Sprintf("Line %d is longer than the response budget; its bytes continue by download.", next)}
		} else {
			cursor := fileops.NewCursor(etag, offset, next)
			switch {
			case tool == "file_access_read":
				o["continuation"] = map[string]any{"tool": "file_context_read_range",
					"arguments": map[string]any{"path": path, "startLine": next, "cursor": cursor}}
			default:
				o["continuation"] = map[string]any{"tool": tool, "arguments": withArgs(args, "startLine", next, "cursor", cursor)}
			}
		}
		o["content"] = text.String()
		if tool != "file_access_read" {
			o["endLine"] = next - 1
			o["hasMore"] = true
			o["next"] = map[string]any{"startLine": next, "cursor": fileops.NewCursor(etag, endOffset-int64(dropped), next)}
		}
		b, _ := marshal(o)
		return b
	}
	lo := mostThatFit(len(segs), func(n int) bool { return fits(build(n, 0)) }) // whole lines
	if lo > 0 || len(segs) == 0 {
		return build(lo, 0)
	}
	line := segs[0].text
	plo := mostThatFit(len(line), func(n int) bool { return fits(build(0, n)) }) // bytes of the first line
	for plo > 0 && plo < len(line) && !utf8.RuneStart(line[plo]) {
		plo--
	}
	if numbered && plo <= len(line)-segs[0].fileBytes {
		return tooBig(tool, len(content), fits)
	}
	if plo == 0 {
		return tooBig(tool, len(content), fits)
	}
	return build(0, plo)
}

// fitDownload cuts a page of bytes and continues from the first byte left
// out, with every argument of the call and the page's etag, so the rest
// cannot mix two versions.
func fitDownload(obj map[string]any, args map[string]any, fits func([]byte) bool) []byte {
	field := "text"
	if isString(obj["base64"]) {
		field = "base64"
	}
	data := obj[field].(string)
	offset, _ := obj["offsetBytes"].(float64)
	etag, _ := obj["etag"].(string)
	try := func(n int) []byte {
		o := cloneMap(obj)
		o[field] = data[:n]
		read := n
		if field == "base64" {
			read = n / 4 * 3 // whole quanta only
		}
		next := int64(offset) + int64(read)
		o["bytesRead"], o["hasMore"], o["nextOffsetBytes"] = read, true, next
		o["continuation"] = map[string]any{"tool": "file_context_download", "arguments": withArgs(args, "offsetBytes", next, "expectedEtag", etag)}
		b, _ := marshal(o)
		return b
	}
	lo := mostThatFit(len(data), func(n int) bool { return fits(try(n)) })
	if field == "base64" {
		lo -= lo % 4
	} else {
		for lo > 0 && lo < len(data) && !utf8.RuneStart(data[lo]) {
			lo--
		}
	}
	return try(lo)
}

func fitSlice(tool string, obj map[string]any, field string, fits func([]byte) bool, hint string) []byte {
	items := obj[field].([]any)
	build := func(n int) []byte {
		o := cloneMap(obj)
		o[field] = items[:n]
		o["omitted"] = len(items) - n
		o["message"] = fmt.Sprintf("%d item(s) left out to fit the response budget. %s", len(items)-n, hint)
		b, _ := marshal(o)
		return b
	}
	lo := mostThatFit(len(items), func(n int) bool { return fits(build(n)) })
	if b := build(lo); fits(b) {
		return b
	}
	return tooBig(tool, len(items), fits)
}

func cloneMap(m map[string]any) map[string]any {
	o := make(map[string]any, len(m)+3)
	for k, v := range m {
		o[k] = v
	}
	return o
}

// mostThatFit returns the largest n in [0, max] for which fits(n) holds,
// given that fits holds for all n up to some bound and for none after it
// (a binary search, so an answer is encoded O(log max) times).
func mostThatFit(max int, fits func(n int) bool) int {
	lo, hi := 0, max
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}
