// Package bridge is the MCP backend of a deployed API: each call goes
// through the Go client (signed with SigV4 when the client has a signer).
// It lives apart from package mcpserve so that the tools function, which
// serves MCP itself, does not link the client and the graph types it uses.
package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/filecontext-aws/filecontext/pkg/client"
	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/mcpserve"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
)

// Remote is a deployed API reached through the client (signed with SigV4
// when the client has a signer): the stdio bridge of `filecontext mcp
// --endpoint`.
func Remote(c *client.Client) mcpserve.Backend { return remote{c} }

type remote struct{ c *client.Client }

func (r remote) Catalog(ctx context.Context) (string, []mcpserve.Tool, error) {
	cat, err := r.c.Catalog(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("reading the catalog: %w", err)
	}
	tools := make([]mcpserve.Tool, len(cat.Tools))
	for i, t := range cat.Tools {
		tools[i] = mcpserve.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, ReadOnly: t.ReadOnly}
	}
	return cat.Instructions, tools, nil
}

func (r remote) Call(ctx context.Context, tool string, args json.RawMessage) ([]byte, bool) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	out, _, err := r.c.Call(ctx, tool, args)
	var apiErr *client.Error
	switch {
	case errors.As(err, &apiErr):
		return mcpserve.Marshal(map[string]any{"error": apiErr}), true
	case err != nil:
		// The API could not be reached: the agent sees it as a storage
		// failure of this call, not as a broken connection.
		return mcpserve.Marshal(toolapi.ErrorBody{Error: fault.New(fault.StorageError, "The FileContext API could not be reached: %v.", err)}), true
	}
	return out, false
}
