package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
)

// Read is file_access_read.
func (c *Client) Read(ctx context.Context, fileName string) (*fileops.ReadResult, error) {
	var r fileops.ReadResult
	return &r, c.CallInto(ctx, "file_access_read", map[string]any{"fileName": fileName}, &r)
}

// ReadLines is file_access_read_lines; endLine 0 is the default window.
func (c *Client) ReadLines(ctx context.Context, fileName string, startLine, endLine int) (*fileops.WindowResult, error) {
	args := map[string]any{"fileName": fileName, "startLine": startLine}
	if endLine != 0 {
		args["endLine"] = endLine
	}
	var r fileops.WindowResult
	return &r, c.CallInto(ctx, "file_access_read_lines", args, &r)
}

// ReadRange is file_context_read_range; zero values are left out.
func (c *Client) ReadRange(ctx context.Context, a fileops.ReadRangeArgs) (*fileops.WindowResult, error) {
	args := map[string]any{"path": a.Path}
	if a.StartLine != 0 {
		args["startLine"] = a.StartLine
	}
	if a.LineCount != 0 {
		args["lineCount"] = a.LineCount
	}
	if a.Cursor != "" {
		args["cursor"] = a.Cursor
	}
	var r fileops.WindowResult
	return &r, c.CallInto(ctx, "file_context_read_range", args, &r)
}

// Ls is file_access_ls.
func (c *Client) Ls(ctx context.Context, directory, globPattern string) (*fileops.LsResult, error) {
	var r fileops.LsResult
	return &r, c.CallInto(ctx, "file_access_ls", map[string]any{"directory": directory, "globPattern": globPattern}, &r)
}

// Grep is file_access_grep.
func (c *Client) Grep(ctx context.Context, a fileops.GrepArgs) (*fileops.GrepResult, error) {
	var r fileops.GrepResult
	return &r, c.CallInto(ctx, "file_access_grep", map[string]any{"regexPattern": a.RegexPattern, "globPattern": a.GlobPattern,
		"directory": a.Directory, "caseSensitive": a.CaseSensitive}, &r)
}

// Info is file_context_info.
func (c *Client) Info(ctx context.Context, path string) (*fileops.InfoResult, error) {
	var r fileops.InfoResult
	return &r, c.CallInto(ctx, "file_context_info", map[string]any{"path": path}, &r)
}

// Download is file_context_download.
func (c *Client) Download(ctx context.Context, a fileops.DownloadArgs) (*fileops.DownloadResult, error) {
	args := map[string]any{"path": a.Path, "offsetBytes": a.OffsetBytes}
	if a.MaxBytes != 0 {
		args["maxBytes"] = a.MaxBytes
	}
	if a.Encoding != "" {
		args["encoding"] = a.Encoding
	}
	if a.ExpectedETag != "" {
		args["expectedEtag"] = a.ExpectedETag
	}
	var r fileops.DownloadResult
	return &r, c.CallInto(ctx, "file_context_download", args, &r)
}

// WriteResult is what a write tool answers: applied at once, or parked.
type WriteResult struct {
	Status     string           `json:"status"` // "applied" or "pending_approval"
	Tool       string           `json:"tool"`
	Path       string           `json:"path"`
	ETag       string           `json:"etag,omitempty"`
	Message    string           `json:"message"`
	ApprovalID string           `json:"approvalId,omitempty"`
	BaseETag   string           `json:"baseEtag,omitempty"`
	Preview    approval.Preview `json:"preview"`
}

// Pending reports whether the write waits for an approver.
func (w *WriteResult) Pending() bool { return w.Status == "pending_approval" }

func (c *Client) write(ctx context.Context, tool string, args map[string]any, expectedETag string) (*WriteResult, error) {
	if expectedETag != "" {
		args["expectedEtag"] = expectedETag
	}
	var r WriteResult
	return &r, c.CallInto(ctx, tool, args, &r)
}

// Write is file_access_write.
func (c *Client) Write(ctx context.Context, fileName, content string, overwrite bool, expectedETag string) (*WriteResult, error) {
	return c.write(ctx, "file_access_write", map[string]any{"fileName": fileName, "content": content, "overwrite": overwrite}, expectedETag)
}

// Delete is file_access_delete.
func (c *Client) Delete(ctx context.Context, fileName, expectedETag string) (*WriteResult, error) {
	return c.write(ctx, "file_access_delete", map[string]any{"fileName": fileName}, expectedETag)
}

// Replace is file_access_replace.
func (c *Client) Replace(ctx context.Context, fileName, oldString, newString string, replaceAll bool, expectedETag string) (*WriteResult, error) {
	return c.write(ctx, "file_access_replace", map[string]any{"fileName": fileName, "oldString": oldString, "newString": newString,
		"replaceAll": replaceAll}, expectedETag)
}

// ReplaceLines is file_access_replace_lines.
func (c *Client) ReplaceLines(ctx context.Context, fileName string, edits []fileops.LineEdit, expectedETag string) (*WriteResult, error) {
	return c.write(ctx, "file_access_replace_lines", map[string]any{"fileName": fileName, "edits": edits}, expectedETag)
}

// ApprovalStatus is file_context_approval_status.
func (c *Client) ApprovalStatus(ctx context.Context, approvalID string) (*approval.View, error) {
	var v approval.View
	return &v, c.CallInto(ctx, "file_context_approval_status", map[string]any{"approvalId": approvalID}, &v)
}

// GraphSearch is file_context_markdown_graph_search.
func (c *Client) GraphSearch(ctx context.Context, a mdkb.SearchArgs) (*mdkb.SearchResult, error) {
	args := map[string]any{"query": a.Query, "directory": a.Directory}
	if a.MaxResults != 0 {
		args["maxResults"] = a.MaxResults
	}
	var r mdkb.SearchResult
	return &r, c.CallInto(ctx, "file_context_markdown_graph_search", args, &r)
}

// GraphExport is file_context_markdown_graph_export.
func (c *Client) GraphExport(ctx context.Context, format, directory string) (*mdkb.ExportResult, error) {
	var r mdkb.ExportResult
	return &r, c.CallInto(ctx, "file_context_markdown_graph_export", map[string]any{"format": format, "directory": directory}, &r)
}

// GraphRelated calls file_context_markdown_graph_related.
func (c *Client) GraphRelated(ctx context.Context, a mdkb.RelatedArgs) (*mdkb.RelatedResult, error) {
	args := map[string]any{"path": a.Path}
	if a.Direction != "" {
		args["direction"] = a.Direction
	}
	if a.Depth != 0 {
		args["depth"] = a.Depth
	}
	if a.Directory != "" {
		args["directory"] = a.Directory
	}
	if a.MaxResults != 0 {
		args["maxResults"] = a.MaxResults
	}
	var r mdkb.RelatedResult
	return &r, c.CallInto(ctx, "file_context_markdown_graph_related", args, &r)
}

// ListApprovals is GET /approvals.
func (c *Client) ListApprovals(ctx context.Context, status string, limit int, nextToken string) (*approval.Page, error) {
	q := url.Values{}
	if status != "" {
		q.Set("status", status)
	}
	if limit > 0 {
		q.Set("limit", itoa(limit))
	}
	if nextToken != "" {
		q.Set("nextToken", nextToken)
	}
	path := "/approvals"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	_, out, err := c.Do(ctx, http.MethodGet, path, nil, true)
	if err != nil {
		return nil, err
	}
	var p approval.Page
	return &p, json.Unmarshal(out, &p)
}

// GetApproval is GET /approvals/{id}.
func (c *Client) GetApproval(ctx context.Context, id string) (*approval.View, error) {
	return c.approval(ctx, http.MethodGet, "/approvals/"+url.PathEscape(id), nil, true)
}

// Approve is POST /approvals/{id}/approve; it is not retried.
func (c *Client) Approve(ctx context.Context, id string) (*approval.View, error) {
	return c.approval(ctx, http.MethodPost, "/approvals/"+url.PathEscape(id)+"/approve", nil, false)
}

// Reject is POST /approvals/{id}/reject; it is not retried.
func (c *Client) Reject(ctx context.Context, id, reason string) (*approval.View, error) {
	body, _ := json.Marshal(map[string]string{"reason": reason})
	return c.approval(ctx, http.MethodPost, "/approvals/"+url.PathEscape(id)+"/reject", body, false)
}

func (c *Client) approval(ctx context.Context, method, path string, body []byte, idempotent bool) (*approval.View, error) {
	_, out, err := c.Do(ctx, method, path, body, idempotent)
	if err != nil {
		return nil, err
	}
	var v approval.View
	return &v, json.Unmarshal(out, &v)
}
