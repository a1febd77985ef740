package mcpserve_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/filecontext-aws/filecontext/pkg/client"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/mcpserve"
	"github.com/filecontext-aws/filecontext/pkg/mcpserve/bridge"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

func tools(t *testing.T) *toolapi.Server {
	t.Helper()
	store := memstore.New()
	store.Put(context.Background(), "notes.md", []byte("alpha\nbeta\n"), fileops.PutOptions{})
	files, err := fileops.New(store, pathsafe.Root{}, fileops.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return toolapi.New(toolapi.Options{Files: files, WriteTools: true, ApprovalOff: true})
}

func connect(t *testing.T, b mcpserve.Backend) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	server, err := mcpserve.NewServer(ctx, b, "test")
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	s, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func text(r *mcp.CallToolResult) string { return r.Content[0].(*mcp.TextContent).Text }

// checkSession runs one read, one error and one write through a session.
func checkSession(t *testing.T, s *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	list, err := s.ListTools(ctx, nil)
	if err != nil || len(list.Tools) != 11 {
		t.Fatalf("tools/list = %d tools, %v", len(list.Tools), err)
	}
	for _, tool := range list.Tools {
		destructive := *tool.Annotations.DestructiveHint
		if tool.Annotations.ReadOnlyHint == destructive || *tool.Annotations.OpenWorldHint {
			t.Errorf("%s: %+v", tool.Name, tool.Annotations)
		}
	}
	r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "file_access_read", Arguments: map[string]any{"fileName": "notes.md"}})
	if err != nil || r.IsError || !strings.Contains(text(r), `"content":"alpha\nbeta\n"`) {
		t.Fatalf("read = %+v %v", r, err)
	}
	var structured map[string]any
	b, _ := json.Marshal(r.StructuredContent)
	if json.Unmarshal(b, &structured) != nil || structured["path"] != "notes.md" {
		t.Errorf("structuredContent = %s", b)
	}
	r, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "file_access_read", Arguments: map[string]any{"fileName": "/abs"}})
	if err != nil || !r.IsError || !strings.Contains(text(r), `"invalid_path"`) {
		t.Errorf("a bad path = %+v %v", r, err)
	}
	r, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "file_access_write", Arguments: map[string]any{"fileName": "new.md", "content": "<&>"}})
	if err != nil || r.IsError || !strings.Contains(text(r), `"applied"`) {
		t.Errorf("write = %+v %v", r, err)
	}
	r, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "file_access_read", Arguments: map[string]any{"fileName": "new.md"}})
	if err != nil || !strings.Contains(text(r), `"content":"<&>"`) {
		t.Errorf("no HTML escaping: %s %v", text(r), err)
	}
}

func TestLocalBackend(t *testing.T) {
	checkSession(t, connect(t, mcpserve.Local(tools(t), toolapi.Caller{ID: "t"})))
}

// The bridge: the same session through the client against the HTTP API.
func TestRemoteBackend(t *testing.T) {
	srv := httptest.NewServer(&transport.HTTPHandler{Router: &transport.Router{Tools: tools(t)}})
	defer srv.Close()
	checkSession(t, connect(t, bridge.Remote(client.New(srv.URL))))

	// An API that cannot be reached: the catalog fails to load, and a call
	// is a storage_error result.
	gone := bridge.Remote(client.New("http://127.0.0.1:1"))
	if _, err := mcpserve.NewServer(context.Background(), gone, "t"); err == nil {
		t.Error("a server over an unreachable API started")
	}
	body, isErr := gone.Call(context.Background(), "file_access_read", nil)
	if !isErr || !strings.Contains(string(body), "storage_error") {
		t.Errorf("a call to an unreachable API = %s", body)
	}
}

// POST /mcp through the Router, as the tools function serves it behind API
// Gateway: the SDK's client over streamable HTTP, each request through
// Router.Serve.
func TestRouteThroughTheRouter(t *testing.T) {
	tl := tools(t)
	r := &transport.Router{Tools: tl, Extra: []transport.Handler{&mcpserve.Route{Tools: tl, Version: "t"}}}
	srv := httptest.NewServer(&transport.HTTPHandler{Router: r})
	defer srv.Close()
	ctx := context.Background()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkSession(t, s)
	res := r.Serve(ctx, transport.Request{Method: "GET", Path: "/mcp"})
	if res.Status != 405 || res.Allow != "POST" {
		t.Errorf("GET /mcp = %d %q", res.Status, res.Allow)
	}
}
