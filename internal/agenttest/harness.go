// Package agenttest drives the example agent through real servers: the
// local server as a process over a real directory, and the Lambda functions
// under aws-lambda-rie behind a small API Gateway stand-in, with a scripted
// model.
package agenttest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/internal/testenv"
)

// Gateway stands in for API Gateway in front of functions under
// aws-lambda-rie: it turns each HTTP request into a REST proxy event for the
// function that owns the route, with the caller's identity, and the proxy
// response back into HTTP.
func Gateway(t testing.TB, callerArn string, route func(path string) *testenv.RIE) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		query := map[string]string{}
		for k, v := range r.URL.Query() {
			query[k] = v[0]
		}
		rie := route(r.URL.Path)
		if rie == nil {
			http.Error(w, `{"message":"Missing Authentication Token"}`, http.StatusForbidden)
			return
		}
		headers := map[string]string{}
		for k, v := range r.Header {
			headers[k] = v[0]
		}
		out, err := rie.Invoke(r.Context(), testenv.APIGatewayEventWithHeaders(r.Method, r.URL.Path, string(body), callerArn, query, headers))
		if err != nil {
			http.Error(w, `{"message":"Internal server error"}`, http.StatusBadGateway)
			return
		}
		var resp struct {
			StatusCode int               `json:"statusCode"`
			Headers    map[string]string `json:"headers"`
			Body       string            `json:"body"`
		}
		json.Unmarshal(out, &resp)
		for k, v := range resp.Headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, bytes.NewReader([]byte(resp.Body)))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// IsGraphRoute tells the graph function's routes from the tools function's.
func IsGraphRoute(path string) bool { return strings.Contains(path, "markdown_graph") }
