package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/toolapi/graphtools"
)

// noApprovals stands in for the approval store: the catalog only needs to
// know that approvals exist; nothing is ever called.
type noApprovals struct{}

func (noApprovals) Park(context.Context, *fileops.Change, string, []byte) (any, error) {
	return nil, nil
}
func (noApprovals) Status(context.Context, string) (any, error) { return nil, nil }

// Catalog is the tool catalog as the functions serve it, from package
// toolapi: the one source of names, descriptions and schemas.
type Catalog struct {
	files *toolapi.Server // the tools function: file tools and approval status
	graph *toolapi.Server // the graph function
}

// NewCatalog builds the catalog for a configuration.
func NewCatalog(cfg Config) *Catalog {
	files, _ := fileops.New(memstore.New(), pathsafe.Root{}, fileops.DefaultLimits())
	g := mdkb.New(memstore.New(), pathsafe.Root{}, nil, mdkb.DefaultLimits())
	return &Catalog{
		files: toolapi.New(toolapi.Options{Files: files, WriteTools: true, ApprovalOff: cfg.ApprovalOff, Approvals: noApprovals{}}),
		graph: toolapi.New(toolapi.Options{Extra: graphtools.Tools(g)}),
	}
}

// ReadTools, WriteTools and GraphTools name the tools by function and kind.
func (c *Catalog) ReadTools() []string  { return names(c.files, false) }
func (c *Catalog) WriteTools() []string { return names(c.files, true) }
func (c *Catalog) GraphTools() []string { return names(c.graph, false) }

func names(s *toolapi.Server, write bool) []string {
	var out []string
	for _, t := range s.Enabled() {
		if t.IsWrite() == write {
			out = append(out, t.Name)
		}
	}
	return out
}

// ActionGroup is one Bedrock action group: the operations of one function,
// with the OpenAPI document the API serves at GET /openapi.json?group=.
type ActionGroup struct {
	Name     string
	Function string // tools or graph
	Tools    []string
	Write    bool
	Schema   string
}

// ActionGroups returns the named groups, each the same document the API
// serves for it (toolapi.GroupOpenAPI), so the agent and GET
// /openapi.json?group= never differ.
func (c *Catalog) ActionGroups(groups []string) []ActionGroup {
	var out []ActionGroup
	for _, g := range groups {
		// The document is the tools function's, which serves GET
		// /openapi.json for the API (the graph group from its specs).
		srv, fn := c.files, "tools"
		if g == "graph" {
			fn = "graph"
		}
		doc, err := srv.GroupOpenAPI(Title, g)
		if err != nil {
			panic(err) // the groups were checked with the configuration
		}
		tools, _ := srv.GroupTools(g)
		var names []string
		for _, t := range tools {
			names = append(names, t.Name)
		}
		b, _ := json.Marshal(doc)
		out = append(out, ActionGroup{Name: g, Function: fn, Tools: names, Write: g == "write", Schema: string(b)})
	}
	return out
}

// Operations counts the operations of the named groups.
func (c *Catalog) Operations(groups []string) int {
	n := 0
	for _, g := range groups {
		tools, _ := c.files.GroupTools(g)
		n += len(tools)
	}
	return n
}

// Title is the title of the OpenAPI documents, as the functions serve them.
const Title = "FileContext for AWS"

// AgentCoreSchemaFile is the name of the AgentCore tool schema in the cloud
// assembly.
const AgentCoreSchemaFile = "agentcore-tools.json"

// writeAgentCoreSchema writes the tools function's AgentCore Gateway tool
// schema into dir.
func writeAgentCoreSchema(dir string, cfg Config) error {
	b, err := json.MarshalIndent(NewCatalog(cfg).files.AgentCoreToolSchema(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, AgentCoreSchemaFile), append(b, '\n'), 0o644)
}
