package mcpserve

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

// Route serves MCP's streamable HTTP transport at POST /mcp for the Router
// of a Lambda function behind API Gateway: stateless, JSON answers (API
// Gateway REST cannot stream server-sent events), protocol version
// negotiation as the SDK does it. Each request acts as its caller (the IAM
// principal), so approvals see who asked.
type Route struct {
	Tools   *toolapi.Server
	Version string
}

var _ transport.Handler = (*Route)(nil)

// Serve implements transport.Handler.
func (rt *Route) Serve(ctx context.Context, req transport.Request) (toolapi.Result, bool) {
	if strings.TrimSuffix(req.Path, "/") != "/mcp" {
		return toolapi.Result{}, false
	}
	if req.Method != http.MethodPost {
		return transport.MethodNotAllowed(req, http.MethodPost), true
	}
	server, err := NewServer(ctx, Local(rt.Tools, req.Caller), rt.Version)
	if err != nil {
		return toolapi.ErrorResult(err), true
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		// The request comes through API Gateway, signed with IAM; the SDK's
		// DNS-rebinding check is for servers a browser can reach on
		// localhost (the local server's /mcp keeps it).
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, DisableLocalhostProtection: true})
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, "/mcp", bytes.NewReader(req.Body))
	if err != nil {
		return toolapi.ErrorResult(fault.New(fault.InvalidArgument, "The MCP request could not be read.")), true
	}
	for k, v := range req.Header {
		hr.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, hr)
	return toolapi.Result{Status: rec.Code, Body: transport.RawJSON(rec.Body.Bytes())}, true
}
