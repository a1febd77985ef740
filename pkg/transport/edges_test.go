package transport_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

// panicky is a tool that panics, and one whose result cannot be encoded.
func panicky() []toolapi.Tool {
	return []toolapi.Tool{
		{Name: "boom", ReadOnly: true, Run: func(context.Context, *toolapi.Call) (any, error) { panic("kaboom") }},
		{Name: "unencodable", ReadOnly: true, Run: func(context.Context, *toolapi.Call) (any, error) { return map[string]any{"f": func() {}}, nil }},
		{Name: "huge", ReadOnly: true, Run: func(context.Context, *toolapi.Call) (any, error) {
			return map[string]any{"other": strings.Repeat("x", 5000)}, nil
		}},
		{Name: "failing", ReadOnly: true, Run: func(context.Context, *toolapi.Call) (any, error) {
			return nil, fault.New(fault.StorageError, "Storage failed.").WithCause(errors.New("secret cause"))
		}},
	}
}

func TestRouterSurvivesBadTools(t *testing.T) {
	var logs strings.Builder
	r := &transport.Router{Tools: toolapi.New(toolapi.Options{Extra: panicky()}), Log: slog.New(slog.NewJSONHandler(&logs, nil))}
	for tool, want := range map[string]int{"boom": 500, "unencodable": 500, "failing": 502} {
		res := r.Serve(context.Background(), transport.Request{Method: "POST", Path: "/tools/" + tool})
		if res.Status != want || strings.Contains(string(res.Body), "kaboom") || strings.Contains(string(res.Body), "secret cause") {
			t.Errorf("%s = %d %s", tool, res.Status, res.Body)
		}
	}
	if !strings.Contains(logs.String(), "kaboom") || !strings.Contains(logs.String(), "secret cause") || !strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("the log lacks the causes: %s", logs.String())
	}
	res := r.Serve(context.Background(), transport.Request{Method: "PATCH", Path: "/tools"})
	if res.Status != 405 || res.Allow != "GET" {
		t.Errorf("a wrong method = %d, Allow %q", res.Status, res.Allow)
	}
	res = r.Serve(context.Background(), transport.Request{Method: "GET", Path: "/tools/file_access_read"})
	if res.Status != 405 || res.Allow != "POST" {
		t.Errorf("GET of a tool = %d, Allow %q", res.Status, res.Allow)
	}
	res = r.Serve(context.Background(), transport.Request{Method: "GET", Path: "/nowhere"})
	if res.Status != 404 {
		t.Errorf("an unknown route = %d", res.Status)
	}
	// Bedrock: a 5xx is FAILURE; a body without content or lists is cut to a note.
	out := r.ServeBedrock(context.Background(), &transport.BedrockEvent{MessageVersion: "1.0", ActionGroup: "g", Function: "failing"}, 20000)
	if out.Response.FunctionResponse.ResponseState != "FAILURE" {
		t.Errorf("5xx state = %q", out.Response.FunctionResponse.ResponseState)
	}
	out = r.ServeBedrock(context.Background(), &transport.BedrockEvent{MessageVersion: "1.0", ActionGroup: "g", Function: "huge"}, 1200)
	body := out.Response.FunctionResponse.ResponseBody["TEXT"].Body
	var m map[string]any
	if json.Unmarshal([]byte(body), &m) != nil || m["truncated"] != true || len(body) > 1200 {
		t.Errorf("cut body = %s", body)
	}
	api := r.ServeBedrock(context.Background(), &transport.BedrockEvent{MessageVersion: "1.0", ActionGroup: "g", APIPath: "/tools", HTTPMethod: "get"}, 100000)
	if api.Response.HTTPStatusCode != 200 {
		t.Errorf("GET /tools through Bedrock = %d", api.Response.HTTPStatusCode)
	}
	api = r.ServeBedrock(context.Background(), &transport.BedrockEvent{MessageVersion: "1.0", ActionGroup: "g", APIPath: "/tools/boom"}, 100000)
	if api.Response.HTTPStatusCode != 500 || api.Response.ResponseState != "" {
		t.Errorf("an API-schema failure carries its status, never responseState: %+v", api.Response)
	}
}

func TestLambdaHandlerRejectsMalformedEvents(t *testing.T) {
	r := &transport.Router{Tools: toolapi.New(toolapi.Options{Extra: panicky()})}
	h := transport.LambdaHandler(r, 20000)
	for _, ev := range []string{`{"messageVersion":"1.0","actionGroup":"g","parameters":"not a list"}`, `{"httpMethod":"GET","requestContext":{},"body":7}`, `[]`} {
		if _, err := h(context.Background(), json.RawMessage(ev)); err == nil {
			t.Errorf("%s was answered", ev)
		}
	}
	gw := r.ServeAPIGateway(context.Background(), &events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: "/tools",
		RequestContext: events.APIGatewayProxyRequestContext{Identity: events.APIGatewayRequestIdentity{Caller: "AROA:x"}}})
	if gw.StatusCode != 200 {
		t.Errorf("caller-only identity = %d", gw.StatusCode)
	}
	if c := transport.CallerFromAPIGateway(&events.APIGatewayProxyRequest{}); c.ID != "anonymous" {
		t.Errorf("no identity = %q", c.ID)
	}
}

func TestS3EventsThatAreNotOurs(t *testing.T) {
	calls := 0
	var keys []string
	h := transport.S3EventHandler(refresherFunc(func(_ context.Context, key string) (int, error) {
		calls++
		keys = append(keys, key)
		return 1, errors.New("refresh failed")
	}), slog.New(slog.NewTextHandler(&strings.Builder{}, nil)))
	for _, ev := range []string{`{"Records":[]}`, `{"Records":[{"eventSource":"aws:sqs"}]}`, `{"foo":1}`} {
		if _, ok, _ := h(context.Background(), json.RawMessage(ev)); ok {
			t.Errorf("%s taken as an S3 event", ev)
		}
	}
	ev := `{"Records":[{"eventSource":"aws:s3","eventName":"ObjectCreated:Put","s3":{"object":{"key":"notes/a+b%2Bc.md"}}},{"eventSource":"aws:s3","eventName":"ObjectRestore:Post","s3":{"object":{"key":"b.md"}}}]}`
	out, ok, err := h(context.Background(), json.RawMessage(ev))
	if !ok || err == nil || calls != 1 || out.(map[string]any)["refreshed"] != 1 || keys[0] != "notes/a b+c.md" {
		t.Errorf("S3 event = %v %v %v, %d calls", out, ok, err, calls)
	}
}

type refresherFunc func(context.Context, string) (int, error)

func (f refresherFunc) Refresh(ctx context.Context, key string) (int, error) { return f(ctx, key) }

type failingBody struct{}

func (failingBody) Read([]byte) (int, error) { return 0, errors.New("client went away") }
func (failingBody) Close() error             { return nil }

func TestHTTPHandlerEdges(t *testing.T) {
	r := &transport.Router{Tools: toolapi.New(toolapi.Options{Extra: panicky()})}
	h := &transport.HTTPHandler{Router: r}
	req := httptest.NewRequest("POST", "/tools/huge", nil)
	req.Body = failingBody{}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusBadRequest {
		t.Errorf("a broken request body = %d %s", w.Code, w.Body.String())
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/tools?x=1&x=2", nil))
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("GET /tools = %d", w.Code)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/tools?nextToken=%%%garbage", nil))
	if w.Code != http.StatusBadRequest {
		t.Errorf("a query that is not URL encoding = %d", w.Code)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("DELETE", "/openapi.json", nil))
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET" {
		t.Errorf("DELETE /openapi.json = %d Allow %q", w.Code, w.Header().Get("Allow"))
	}
}

// Bodies that are not UTF-8, or whose JSON strings hold a lone surrogate
// escape, are refused by every transport before a tool runs; escaped
// backslashes and valid pairs pass.
func TestBodiesMustBeText(t *testing.T) {
	r := &transport.Router{Tools: toolapi.New(toolapi.Options{Extra: panicky()})}
	for body, want := range map[string]int{
		"{\"a\":\"\xff\"}":                  400,
		`{"a":"\ud800"}`:                    400,
		`{"a":"\uDBFF\u0041"}`:              400,
		`{"a":"\udc00x"}`:                   400,
		`{"a":"\ud800\ud800"}`:              400,
		`{"a":"x\ud800`:                     400,
		`{"a":"\\ud800"}`:                   404,
		`{"a":"\ud834\udd1e \u00e9 \"q\""}`: 404,
		`{"a":"\uzzzz"}`:                    404,
	} {
		res := r.Serve(context.Background(), transport.Request{Method: "POST", Path: "/tools/nope", Body: []byte(body)})
		if res.Status != want {
			t.Errorf("%q = %d %s, want %d", body, res.Status, res.Body, want)
		}
	}
	api := r.ServeAPIGateway(context.Background(), &events.APIGatewayProxyRequest{HTTPMethod: "PUT", Path: "/tools"})
	if api.StatusCode != 405 || api.Headers["Allow"] != "GET" {
		t.Errorf("API Gateway PUT /tools = %d %v", api.StatusCode, api.Headers)
	}
}
