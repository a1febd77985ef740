package toolapi

import (
	"context"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
)

// lineRule is stated in every description that numbers lines.
const lineRule = "Lines are numbered from 1. A line ends at \\r\\n, \\n or a lone \\r and keeps its terminator; " +
	"a file ending in a terminator has no empty last line, and an empty file has zero lines."

func intp(n int) *int { return &n }

// Typed adapts a typed read-tool function: the arguments, already checked
// against the schema, decode into A.
func Typed[A any](fn func(context.Context, A) (any, error)) func(context.Context, *Call) (any, error) {
	return func(ctx context.Context, c *Call) (any, error) {
		var a A
		if err := c.Decode(&a); err != nil {
			return nil, err
		}
		return fn(ctx, a)
	}
}

// plan adapts a typed write-tool function the same way.
func plan[A any](fn func(context.Context, A) (*fileops.Change, error)) func(context.Context, *Call) (*fileops.Change, error) {
	return func(ctx context.Context, c *Call) (*fileops.Change, error) {
		var a A
		if err := c.Decode(&a); err != nil {
			return nil, err
		}
		return fn(ctx, a)
	}
}

var (
	pFileName     = Param{Name: "fileName", Type: "string", Required: true, Description: "Path of the file, relative to the root, with '/' separators (e.g. 'docs/notes.md'). No leading '/', no '.' or '..' segments."}
	pExpectedETag = Param{Name: "expectedEtag", Type: "string", Description: "Optional. The etag from an earlier read or info; the call fails with conflict if the file changed since."}
)

// fileTools returns the file tools of CONTRACT §4 and §5 over files.
func fileTools(files *fileops.Service) []Tool {
	return []Tool{
		{
			Name:     "file_access_read",
			ReadOnly: true,
			Description: "Read a whole text file. Returns {path, content, size, etag, lineEnding}. Files over the full-read limit (1 MiB by default) " +
				"fail with limit_exceeded: call file_context_info first for large files and page them with file_context_read_range.",
			Params: []Param{pFileName},
			Run: Typed(func(ctx context.Context, a struct{ FileName string }) (any, error) {
				return files.Read(ctx, a.FileName)
			}),
		},
		{
			Name:     "file_access_read_lines",
			ReadOnly: true,
			Description: "Read a window of lines as numbered rows '<n>\\t<line>', each line verbatim with its terminator, so the text after the tab " +
				"is a valid new_line for file_access_replace_lines. " + lineRule + " endLine is clamped to the file; at most 1,000 lines and 256 KiB per call. " +
				"Returns {path, startLine, endLine, hasMore, content, totalLines (when the end was reached), next {startLine, cursor} (when hasMore)}.",
			Params: []Param{pFileName,
				{Name: "startLine", Type: "integer", Required: true, Minimum: intp(1), Description: "First line to return, 1-based."},
				{Name: "endLine", Type: "integer", Minimum: intp(1), Description: "Optional. Last line to return, inclusive; default startLine + 199."},
				{Name: "cursor", Type: "string", Description: "Optional. next.cursor of a previous result, with its next.startLine as startLine: the window is then a ranged read."},
			},
			Run: Typed(func(ctx context.Context, a struct {
				FileName           string
				StartLine, EndLine int
				Cursor             string
			}) (any, error) {
				return files.ReadLines(ctx, fileops.ReadLinesArgs{FileName: a.FileName, StartLine: a.StartLine, EndLine: a.EndLine, Cursor: a.Cursor})
			}),
		},
		{
			Name:     "file_context_read_range",
			ReadOnly: true,
			Description: "Page through a text file of any size: returns lines verbatim, unnumbered. " + lineRule +
				" Pass next.cursor from the previous result to continue: the next window is a ranged read that costs the same deep in a huge file " +
				"as at its start. A cursor of a file that changed is ignored and the result says cursorStale: true. At most 1,000 lines and 256 KiB per call. " +
				"Returns {path, startLine, endLine, hasMore, content, totalLines?, next?, etag}.",
			Params: []Param{
				{Name: "path", Type: "string", Required: true, Description: pFileName.Description},
				{Name: "startLine", Type: "integer", Minimum: intp(1), Default: 1, Description: "Optional. First line, 1-based; default 1, or the cursor's line."},
				{Name: "lineCount", Type: "integer", Minimum: intp(1), Description: "Optional. How many lines; default 200, at most 1000."},
				{Name: "cursor", Type: "string", Description: "Optional. next.cursor from the previous result, unchanged."},
			},
			Run: Typed(func(ctx context.Context, a struct {
				Path                 string
				StartLine, LineCount int
				Cursor               string
			}) (any, error) {
				return files.ReadRange(ctx, fileops.ReadRangeArgs{Path: a.Path, StartLine: a.StartLine, LineCount: a.LineCount, Cursor: a.Cursor})
			}),
		},
		{
			Name:     "file_access_ls",
			ReadOnly: true,
			Description: "List the direct children of a directory: directories first, then files, each in byte order of name. " +
				"Returns {directory, entries: [{name, type: 'directory'|'file'}], truncated}; at most 1,000 entries. A missing directory has no entries.",
			Params: []Param{
				{Name: "directory", Type: "string", Default: "", Description: "Optional. Directory relative to the root; '' (the default) is the root."},
				{Name: "globPattern", Type: "string", Description: "Optional. Keep names matching this glob, case-insensitive: '*' any characters, '?' one, '[abc]', '{a,b}'."},
			},
			Run: Typed(func(ctx context.Context, a struct{ Directory, GlobPattern string }) (any, error) {
				return files.Ls(ctx, fileops.LsArgs{Directory: a.Directory, GlobPattern: a.GlobPattern})
			}),
		},
		{
			Name:     "file_access_grep",
			ReadOnly: true,
			Description: "Search text files under a directory, recursively, with a regular expression in RE2 syntax (no lookarounds, no backreferences), " +
				"matched against each line without its terminator (so 'match$' finds 'beta match\\r\\n'). " + lineRule +
				" Returns {results: [{fileName, snippet, matchingLines: [{lineNumber, line}], truncated?}], truncated, filesScanned, filesSkipped: {tooLarge, binary, invalidName}, limit?}; " +
				"fileName is relative to the root and can be passed to the read tools. Limits: 500 files scanned, 100 files with matches, 20 lines per file, 4 MiB per file.",
			Params: []Param{
				{Name: "regexPattern", Type: "string", Required: true, Description: "RE2 regular expression, matched against each line without its terminator."},
				{Name: "globPattern", Type: "string", Description: "Optional. Keep files whose path relative to directory matches, case-insensitive: '*' within a segment, '**' across segments ('**/*.md' also matches 'a.md'), '?', '[abc]', '{a,b}'."},
				{Name: "directory", Type: "string", Default: "", Description: "Optional. Directory to search; '' (the default) is the root."},
				{Name: "caseSensitive", Type: "boolean", Default: false, Description: "Optional. Match case exactly; default false."},
			},
			Run: Typed(func(ctx context.Context, a struct {
				RegexPattern, GlobPattern, Directory string
				CaseSensitive                        bool
			}) (any, error) {
				return files.Grep(ctx, fileops.GrepArgs{RegexPattern: a.RegexPattern, GlobPattern: a.GlobPattern, Directory: a.Directory, CaseSensitive: a.CaseSensitive})
			}),
		},
		{
			Name:     "file_context_info",
			ReadOnly: true,
			Description: "Tell whether a path is a file, a directory or absent, without reading it. Returns {status: 'found', path, info: {path, type, size, contentType, lastModified, etag}}, " +
				"{status: 'directory', path} or {status: 'not_found', path}. Call it before reading a file that may be large.",
			Params: []Param{{Name: "path", Type: "string", Required: true, Description: "Path relative to the root; '' is the root directory."}},
			Run: Typed(func(ctx context.Context, a struct{ Path string }) (any, error) {
				return files.Info(ctx, a.Path)
			}),
		},
		{
			Name:     "file_context_download",
			ReadOnly: true,
			Description: "Read a byte page of any file, text or binary: the way to fetch binary files and bytes of huge lines. " +
				"Returns {path, size, etag, contentType, offsetBytes, bytesRead, hasMore, nextOffsetBytes?, encoding: 'utf8'|'base64', text | base64}. " +
				"Pass the first page's etag as expectedEtag on later pages so a file that changed fails with conflict instead of mixing versions. At most 256 KiB per page.",
			Params: []Param{
				{Name: "path", Type: "string", Required: true, Description: pFileName.Description},
				{Name: "offsetBytes", Type: "integer", Minimum: intp(0), Default: 0, Description: "Optional. Byte offset of the page; default 0."},
				{Name: "maxBytes", Type: "integer", Minimum: intp(1), Description: "Optional. Page size in bytes; default and maximum 262144."},
				{Name: "encoding", Type: "string", Default: "auto", Description: "Optional. One of: auto (text when the page is UTF-8, else base64), utf8, base64. Default auto."},
				pExpectedETag,
			},
			Run: Typed(func(ctx context.Context, a struct {
				Path                   string
				OffsetBytes            int64
				MaxBytes               int
				Encoding, ExpectedEtag string
			}) (any, error) {
				return files.Download(ctx, fileops.DownloadArgs{Path: a.Path, OffsetBytes: a.OffsetBytes, MaxBytes: a.MaxBytes, Encoding: a.Encoding, ExpectedETag: a.ExpectedEtag})
			}),
		},
		{
			Name: fileops.ToolWrite,
			Description: "Create a text file, or replace one with overwrite: true. Without overwrite an existing file fails with already_exists. " +
				"Writes may wait for a human approver: the result is then {status: 'pending_approval', approvalId, ...}; poll file_context_approval_status.",
			Params: []Param{pFileName,
				{Name: "content", Type: "string", Required: true, Description: "The whole new content."},
				{Name: "overwrite", Type: "boolean", Default: false, Description: "Optional. Replace an existing file; default false."},
				pExpectedETag,
			},
			Plan: plan(func(ctx context.Context, a struct {
				FileName, Content string
				Overwrite         bool
				ExpectedEtag      string
			}) (*fileops.Change, error) {
				return files.PlanWrite(ctx, fileops.WriteArgs{FileName: a.FileName, Content: a.Content, Overwrite: a.Overwrite, ExpectedETag: a.ExpectedEtag})
			}),
		},
		{
			Name:        fileops.ToolDelete,
			Description: "Delete a file. A missing file fails with not_found. May wait for approval like file_access_write.",
			Params:      []Param{pFileName, pExpectedETag},
			Plan: plan(func(ctx context.Context, a struct{ FileName, ExpectedEtag string }) (*fileops.Change, error) {
				return files.PlanDelete(ctx, fileops.DeleteArgs{FileName: a.FileName, ExpectedETag: a.ExpectedEtag})
			}),
		},
		{
			Name: fileops.ToolReplace,
			Description: "Replace text in a file: oldString must occur exactly once (edit_rejected with reason not_unique and a count otherwise) " +
				"unless replaceAll is true. The strings are literal ('$' and '\\' included). In a file with \\r\\n line endings a \\n in the strings stands for \\r\\n. " +
				"May wait for approval like file_access_write.",
			Params: []Param{pFileName,
				{Name: "oldString", Type: "string", Required: true, Description: "Exact text to find; not empty."},
				{Name: "newString", Type: "string", Required: true, Description: "Text to put in its place."},
				{Name: "replaceAll", Type: "boolean", Default: false, Description: "Optional. Replace every occurrence; default false."},
				pExpectedETag,
			},
			Plan: plan(func(ctx context.Context, a struct {
				FileName, OldString, NewString string
				ReplaceAll                     bool
				ExpectedEtag                   string
			}) (*fileops.Change, error) {
				return files.PlanReplace(ctx, fileops.ReplaceArgs{FileName: a.FileName, OldString: a.OldString, NewString: a.NewString, ReplaceAll: a.ReplaceAll, ExpectedETag: a.ExpectedEtag})
			}),
		},
		{
			Name: fileops.ToolReplaceLines,
			Description: "Replace lines by number. " + lineRule + " Every edit addresses the original numbering and all are checked before any applies. " +
				"An empty new_line removes the line with its terminator; a new_line without a terminator keeps the old line's terminator. " +
				"expected_line, when given, must equal the current line without its terminator. May wait for approval like file_access_write.",
			Params: []Param{pFileName,
				{Name: "edits", Type: "array", Required: true, Description: "The edits, each {line_number, new_line, expected_line?}.", Items: []Param{
					{Name: "line_number", Type: "integer", Required: true, Minimum: intp(1), Description: "Line to replace, 1-based, in the original numbering."},
					{Name: "new_line", Type: "string", Required: true, Description: "The new text of the line; '' removes the line."},
					{Name: "expected_line", Type: "string", Description: "Optional. The current line without its terminator; the edit is rejected if it differs."},
				}},
				pExpectedETag,
			},
			Plan: plan(func(ctx context.Context, a struct {
				FileName     string
				Edits        []fileops.LineEdit
				ExpectedEtag string
			}) (*fileops.Change, error) {
				return files.PlanReplaceLines(ctx, fileops.ReplaceLinesArgs{FileName: a.FileName, Edits: a.Edits, ExpectedETag: a.ExpectedEtag})
			}),
		},
	}
}

// approvalStatusTool lets an agent poll a parked write.
func approvalStatusTool(a Approvals) Tool {
	return Tool{
		Name:     "file_context_approval_status",
		ReadOnly: true,
		Description: "Tell where a parked write stands: {approvalId, status: 'pending'|'approving'|'applied'|'conflict'|'failed'|'rejected'|'expired', " +
			"tool, path, requestedAt, expiresAt, decidedBy?, decidedAt?, reason?, result?, preview}. On 'conflict' the file changed before approval: " +
			"read it again and propose the change anew.",
		Params: []Param{{Name: "approvalId", Type: "string", Required: true, Description: "The approvalId a write answered with."}},
		Run: Typed(func(ctx context.Context, a2 struct{ ApprovalID string }) (any, error) {
			return a.Status(ctx, a2.ApprovalID)
		}),
	}
}
