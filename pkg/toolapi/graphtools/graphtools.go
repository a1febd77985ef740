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
// toolapi.Options.Extra.
func Tools(g *mdkb.Service) []toolapi.Tool {
	dir := toolapi.Param{Name: "directory", Type: "string", Default: "", Description: "Optional. Directory whose .md files (recursively) make the graph; '' (the default) is the root."}
	one := 1
	return []toolapi.Tool{
		{
			Name:     "file_context_markdown_graph_search",
			ReadOnly: true,
			Description: "Search the knowledge graph built from the Markdown files in scope: each document is a schema:Article with its front-matter title, summary, " +
				"tags, author and dates; links and [[wiki links]] connect documents. Ranking: exact title 1.0, title contains 0.95, description 0.75, " +
				"keywords and related labels 0.65, body text 0.5 (all query words 0.4); ties by label. Returns {documentCount, tripleCount, " +
				"matches: [{nodeId, label, description?, path?, score, source}], snapshot: {fingerprint, reused, fetched}}; path can be passed to the read tools. " +
				"At most 1,000 files of at most 1 MiB.",
			Params: []toolapi.Param{
				{Name: "query", Type: "string", Required: true, Description: "Words to find; not blank."},
				dir,
				{Name: "maxResults", Type: "integer", Minimum: &one, Default: 10, Description: "Optional. How many matches; default 10, at most 100."},
			},
			Run: toolapi.Typed(func(ctx context.Context, a struct {
				Query, Directory string
				MaxResults       int
			}) (any, error) {
				return g.Search(ctx, mdkb.SearchArgs{Query: a.Query, Directory: a.Directory, MaxResults: a.MaxResults})
			}),
		},
		{
			Name:     "file_context_markdown_graph_export",
			ReadOnly: true,
			Description: "Export the knowledge graph of the Markdown files in scope. format is one of: jsonld (compacted JSON-LD; also JsonLd, json-ld), " +
				"turtle (also ttl), mermaid (a 'graph LR' flowchart), dot (Graphviz). Returns {format, documentCount, tripleCount, truncated, content}; " +
				"content is cut at 200,000 bytes with truncated: true.",
			Params: []toolapi.Param{
				{Name: "format", Type: "string", Required: true, Description: "jsonld, turtle, mermaid or dot (case-insensitive; also JsonLd, json-ld, ttl)."},
				dir,
			},
			Run: toolapi.Typed(func(ctx context.Context, a struct{ Format, Directory string }) (any, error) {
				return g.Export(ctx, mdkb.ExportArgs{Format: a.Format, Directory: a.Directory})
			}),
		},
	}
}
