// Package mcpserve serves the tool catalog over the Model Context Protocol
// with the official Go SDK: the same tools, arguments, limits, errors and
// approvals as the HTTP API, as one more transport around package toolapi.
//
// initialize gives the catalog's agent instructions; tools/list gives every
// enabled tool with its JSON Schema and annotations (readOnlyHint for read
// tools, destructiveHint for the write tools, idempotentHint for read
// tools); tools/call answers with the contract JSON both as
// structuredContent and as one text block. A contract error is a result
// with isError: true carrying the error JSON, never a JSON-RPC error; a
// parked write is a normal result with status pending_approval.
package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/filecontext-aws/filecontext/pkg/toolapi"
)

// Tool is one catalog entry as MCP describes it.
type Tool struct {
	Name        string
	Description string
	InputSchema map[string]any
	ReadOnly    bool
}

// Backend runs the tools: the tool layer in this process, or a deployed API
// reached through the client.
type Backend interface {
	// Catalog returns the agent instructions and the enabled tools.
	Catalog(ctx context.Context) (instructions string, tools []Tool, err error)
	// Call runs a tool with JSON arguments and returns the answer's JSON:
	// the result, or the error object with isError set.
	Call(ctx context.Context, tool string, args json.RawMessage) (body []byte, isError bool)
}

// NewServer returns an MCP server over a backend's catalog.
func NewServer(ctx context.Context, b Backend, version string) (*mcp.Server, error) {
	instructions, tools, err := b.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "filecontext", Title: "FileContext for AWS", Version: version},
		&mcp.ServerOptions{Instructions: instructions})
	for _, t := range tools {
		name := t.Name
		s.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Annotations: annotations(t)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				body, isError := b.Call(ctx, name, req.Params.Arguments)
				return &mcp.CallToolResult{
					Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
					StructuredContent: json.RawMessage(body),
					IsError:           isError,
				}, nil
			})
	}
	return s, nil
}

// annotations are the MCP hints of a tool: read tools are read-only and
// idempotent; the write tools change or remove content (destructive) and
// are not idempotent (each call parks a new request). No tool reaches
// beyond its store.
func annotations(t Tool) *mcp.ToolAnnotations {
	destructive, open := !t.ReadOnly, false
	return &mcp.ToolAnnotations{ReadOnlyHint: t.ReadOnly, IdempotentHint: t.ReadOnly, DestructiveHint: &destructive, OpenWorldHint: &open}
}

// Local is the tool layer of this process, acting as caller.
func Local(s *toolapi.Server, caller toolapi.Caller) Backend { return local{s, caller} }

type local struct {
	s      *toolapi.Server
	caller toolapi.Caller
}

func (l local) Catalog(context.Context) (string, []Tool, error) {
	cat := l.s.Catalog()
	tools := make([]Tool, len(cat.Tools))
	for i, t := range cat.Tools {
		tools[i] = Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, ReadOnly: t.ReadOnly}
	}
	return cat.Instructions, tools, nil
}

func (l local) Call(ctx context.Context, tool string, args json.RawMessage) ([]byte, bool) {
	res := l.s.Call(ctx, l.caller, tool, args)
	return Marshal(res.Body), res.Err != nil
}

// Marshal encodes JSON without HTML escaping, as every answer of the API.
func Marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`{"error":{"code":"internal","message":"internal error"}}`)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
