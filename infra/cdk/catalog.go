package main

import (
	"context"
	"encoding/json"
	"strconv"

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

// ActionGroup is one Bedrock action group: at most 11 operations of one
// function, with the OpenAPI schema generated from the catalog.
type ActionGroup struct {
	Name     string
	Function string // tools or graph
	Tools    []string
	Write    bool
	Schema   string
}

// maxOperations is Bedrock's limit of operations per action group.
const maxOperations = 11

// ActionGroups splits the catalog into groups Bedrock accepts: read tools,
// write tools (each operation with x-requireConfirmation), graph tools.
func (c *Catalog) ActionGroups() []ActionGroup {
	var groups []ActionGroup
	add := func(name, fn string, s *toolapi.Server, tools []string, write bool) {
		for i := 0; i < len(tools); i += maxOperations {
			part := tools[i:min(i+maxOperations, len(tools))]
			doc := s.OpenAPI("FileContext "+name, part...)
			if write {
				for _, item := range doc["paths"].(map[string]any) {
					item.(map[string]any)["post"].(map[string]any)["x-requireConfirmation"] = "ENABLED"
				}
			}
			b, _ := json.Marshal(doc)
			n := name
			if i > 0 {
				n = name + "-" + itoa(i/maxOperations+1)
			}
			groups = append(groups, ActionGroup{Name: n, Function: fn, Tools: part, Write: write, Schema: string(b)})
		}
	}
	add("read", "tools", c.files, c.ReadTools(), false)
	add("write", "tools", c.files, c.WriteTools(), true)
	add("graph", "graph", c.graph, c.GraphTools(), false)
	return groups
}

func itoa(n int) string { return strconv.Itoa(n) }
