// Package graphtools defines the Markdown knowledge graph tools for the
// catalog. They live apart from package toolapi so that hosts without the
// graph (the tools function) do not link goldmark and json-gold.
package graphtools

import (
	"context"

	"github.com/filecontext-aws/filecontext/pkg/mdkb"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
)

// Tools are the Markdown knowledge graph tools of CONTRACT §7, for
// toolapi.Options.Extra: the definitions of toolapi.GraphSpecs with their runs.
func Tools(g *mdkb.Service) []toolapi.Tool {
	runs := map[string]func(ctx context.Context, c *toolapi.Call) (any, error){
		toolapi.ToolGraphSearch: toolapi.Typed(func(ctx context.Context, a struct {
			Query, Directory string
			MaxResults       int
		}) (any, error) {
			return g.Search(ctx, mdkb.SearchArgs{Query: a.Query, Directory: a.Directory, MaxResults: a.MaxResults})
		}),
		toolapi.ToolGraphExport: toolapi.Typed(func(ctx context.Context, a struct {
			Format, Directory, Cursor string
			MaxBytes                  int
		}) (any, error) {
			return g.Export(ctx, mdkb.ExportArgs{Format: a.Format, Directory: a.Directory, Cursor: a.Cursor, MaxBytes: a.MaxBytes})
		}),
		toolapi.ToolGraphRelated: toolapi.Typed(func(ctx context.Context, a struct {
			Path, Direction, Directory string
			Depth, MaxResults          int
		}) (any, error) {
			return g.Related(ctx, mdkb.RelatedArgs{Path: a.Path, Direction: a.Direction, Depth: a.Depth, Directory: a.Directory, MaxResults: a.MaxResults})
		}),
	}
	specs := toolapi.GraphSpecs()
	for i := range specs {
		specs[i].Run = runs[specs[i].Name]
	}
	return specs
}
