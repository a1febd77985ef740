package toolapi

// Names of the Markdown knowledge graph tools. Their definitions live here,
// without the graph itself, so a host without the graph (the tools
// function) can still describe them, as the OpenAPI document of the graph
// action group does; package graphtools attaches the runs.
const (
	ToolGraphSearch  = "file_context_markdown_graph_search"
	ToolGraphExport  = "file_context_markdown_graph_export"
	ToolGraphRelated = "file_context_markdown_graph_related"
)

// GraphSpecs returns the graph tools' names, descriptions and parameters,
// without Run.
func GraphSpecs() []Tool {
	dir := Param{Name: "directory", Type: "string", Default: "", Description: "Optional. Directory whose .md files (recursively) make the graph; '' (the default) is the root."}
	one := 1
	return []Tool{
		{
			Name:     ToolGraphSearch,
			ReadOnly: true,
			Description: "Search the knowledge graph built from the Markdown files in scope: each document is a schema:Article with its front-matter title, summary, " +
				"tags, author and dates; links and [[wiki links]] connect documents. Ranking: documents with every word of the query first, then by BM25 " +
				"over title, file name, description, tags and aliases, related labels and body (in that order of weight); a word matches whole words " +
				"above word starts (cost: costs) above word insides; the query as the title, or as a phrase in the title, file name or description, ranks higher; score 1 is the best match. Returns {documentCount, tripleCount, " +
				"matches: [{nodeId, label, description?, path?, score, source}], snapshot, truncated, filesInScope, filesUsed}; path can be passed to the read tools. " +
				"Files of at most 1 MiB; over 20,000 files or 64 MiB in scope the most recently modified are used, with truncated: true.",
			Params: []Param{
				{Name: "query", Type: "string", Required: true, Description: "Words to find; not blank."},
				dir,
				{Name: "maxResults", Type: "integer", Minimum: &one, Default: 10, Description: "Optional. How many matches; default 10, at most 100."},
			},
		},
		{
			Name:     ToolGraphExport,
			ReadOnly: true,
			Description: "Export the knowledge graph of the Markdown files in scope. format is one of: jsonld (compacted JSON-LD; also JsonLd, json-ld), " +
				"turtle (also ttl), mermaid (a 'graph LR' flowchart), dot (Graphviz). Returns {format, documentCount, tripleCount, truncated, content, next?}; " +
				"a graph over one page (maxBytes, at most 200,000) continues: call again with next.cursor, the same format and directory, until there is no next. " +
				"Every page is a valid document on its own; Mermaid pages hold at most 500 edges.",
			Params: []Param{
				{Name: "format", Type: "string", Required: true, Description: "jsonld, turtle, mermaid or dot (case-insensitive; also JsonLd, json-ld, ttl)."},
				dir,
				{Name: "cursor", Type: "string", Description: "Optional. next.cursor of the previous page."},
				{Name: "maxBytes", Type: "integer", Minimum: &one, Default: 200000, Description: "Optional. Largest page in bytes; default and most 200,000."},
			},
		},
		{
			Name:     ToolGraphRelated,
			ReadOnly: true,
			Description: "List the neighbourhood of one Markdown document in the knowledge graph: the documents it links to (out) and that link to it " +
				"(in: backlinks), by Markdown links, [[wiki links]], graph_related, graph_next_steps and graph_edges, with their titles and the links' text. " +
				"depth 2 adds the documents one more link away (same direction), each with the document in between (via). Returns {path, title, " +
				"direction, depth, links: [{direction, depth, path, title, predicate, linkText?, via?}], truncated}; at most maxResults links, nearest first.",
			Params: []Param{
				{Name: "path", Type: "string", Required: true, Description: "The document, e.g. 'guides/setup.md' (a path a search returned)."},
				{Name: "direction", Type: "string", Default: "both", Description: "Optional. out, in or both (the default)."},
				{Name: "depth", Type: "integer", Minimum: &one, Default: 1, Description: "Optional. 1 (the default) or 2."},
				dir,
				{Name: "maxResults", Type: "integer", Minimum: &one, Default: 50, Description: "Optional. How many links; default 50, at most 200."},
			},
		},
	}
}
