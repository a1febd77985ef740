package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/approval/boltstore"
	"github.com/filecontext-aws/filecontext/pkg/client"
	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/toolapi/graphtools"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

// server is the API over memory, with approvals and the graph; the agent and
// the operator are told apart by a header, as IAM would tell them apart.
func server(t *testing.T) string {
	ctx := context.Background()
	store := memstore.New()
	store.Put(ctx, "a.md", []byte("# Alpha\n\nalpha beta\n"), fileops.PutOptions{})
	store.Put(ctx, "docs/b.md", []byte("---\ntitle: Bravo\n---\nbody\n"), fileops.PutOptions{})
	files, _ := fileops.New(store, pathsafe.Root{}, fileops.DefaultLimits())
	bolt, err := boltstore.Open(filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bolt.Close() })
	approvals, _ := approval.New(approval.Options{Store: bolt, Files: files, Staging: memstore.New()})
	graph := mdkb.New(store, pathsafe.Root{}, nil, mdkb.DefaultLimits())
	tools := toolapi.New(toolapi.Options{Files: files, WriteTools: true, Approvals: approvals, Extra: graphtools.Tools(graph)})
	r := &transport.Router{Tools: tools, Extra: []transport.Handler{&transport.ApprovalRoutes{Service: approvals}}}
	srv := httptest.NewServer(&transport.HTTPHandler{Router: r, CallerFor: func(req *http.Request) toolapi.Caller {
		return toolapi.Caller{ID: req.Header.Get("X-Test-Caller")}
	}})
	t.Cleanup(srv.Close)
	return srv.URL
}

type asCaller struct {
	id   string
	next http.RoundTripper
}

func (a asCaller) RoundTrip(r *http.Request) (*http.Response, error) {
	r.Header.Set("X-Test-Caller", a.id)
	return a.next.RoundTrip(r)
}

func as(url, id string) *client.Client {
	return client.New(url, client.WithHTTPClient(&http.Client{Transport: asCaller{id, http.DefaultTransport}}))
}

func TestEveryTypedCall(t *testing.T) {
	ctx := context.Background()
	url := server(t)
	c, ops := as(url, "agent"), as(url, "operator")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	r, err := c.Read(ctx, "a.md")
	must(err)
	if r.Content != "# Alpha\n\nalpha beta\n" {
		t.Errorf("read = %+v", r)
	}
	w, err := c.ReadLines(ctx, "a.md", 3, 3)
	must(err)
	if w.Content != "3\talpha beta\n" {
		t.Errorf("read_lines = %+v", w)
	}
	w, err = c.ReadRange(ctx, fileops.ReadRangeArgs{Path: "a.md", StartLine: 1, LineCount: 1})
	must(err)
	w2, err := c.ReadRange(ctx, fileops.ReadRangeArgs{Path: "a.md", Cursor: w.Next.Cursor})
	must(err)
	if w2.StartLine != 2 {
		t.Errorf("cursor window = %+v", w2)
	}
	ls, err := c.Ls(ctx, "", "")
	must(err)
	g, err := c.Grep(ctx, fileops.GrepArgs{RegexPattern: "beta"})
	must(err)
	info, err := c.Info(ctx, "docs")
	must(err)
	d, err := c.Download(ctx, fileops.DownloadArgs{Path: "a.md", MaxBytes: 3, Encoding: "base64", ExpectedETag: r.ETag})
	must(err)
	if len(ls.Entries) != 2 || len(g.Results) != 1 || info.Status != "directory" || *d.Base64 != "IyBB" {
		t.Errorf("ls %+v grep %+v info %+v download %+v", ls, g, info, d)
	}
	s, err := c.GraphSearch(ctx, mdkb.SearchArgs{Query: "bravo", MaxResults: 3})
	must(err)
	e, err := c.GraphExport(ctx, "dot", "")
	must(err)
	if len(s.Matches) != 1 || !strings.HasPrefix(e.Content, "digraph") {
		t.Errorf("graph %+v %+v", s, e)
	}
	if _, err := c.GraphRelated(ctx, mdkb.RelatedArgs{Path: s.Matches[0].Path, Direction: "both", Depth: 2, MaxResults: 5}); err != nil {
		t.Errorf("related: %v", err)
	}
	cat, err := c.Catalog(ctx)
	must(err)
	doc, err := c.OpenAPI(ctx)
	must(err)
	if len(cat.Tools) != 15 || doc["openapi"] != "3.0.0" {
		t.Errorf("catalog %d tools, openapi %v", len(cat.Tools), doc["openapi"])
	}

	var ids []string
	for _, call := range []func() (*client.WriteResult, error){
		func() (*client.WriteResult, error) { return c.Write(ctx, "n.md", "new\n", false, "") },
		func() (*client.WriteResult, error) { return c.Replace(ctx, "a.md", "beta", "gamma", false, r.ETag) },
		func() (*client.WriteResult, error) {
			return c.ReplaceLines(ctx, "docs/b.md", []fileops.LineEdit{{LineNumber: 4, NewLine: "BODY"}}, "")
		},
		func() (*client.WriteResult, error) { return c.Delete(ctx, "docs/b.md", "") },
	} {
		res, err := call()
		must(err)
		if !res.Pending() || res.ApprovalID == "" {
			t.Fatalf("write = %+v", res)
		}
		ids = append(ids, res.ApprovalID)
	}
	page, err := ops.ListApprovals(ctx, "pending", 2, "")
	must(err)
	if len(page.Approvals) != 2 || page.NextToken == "" {
		t.Errorf("first page = %+v", page)
	}
	page, err = ops.ListApprovals(ctx, "pending", 2, page.NextToken)
	must(err)
	if len(page.Approvals) != 2 {
		t.Errorf("second page = %+v", page)
	}
	v, err := ops.GetApproval(ctx, ids[0])
	must(err)
	if v.RequestedBy != "agent" {
		t.Errorf("requestedBy = %q", v.RequestedBy)
	}
	_, err = c.Approve(ctx, ids[0])
	if !client.IsCode(err, fault.Forbidden) {
		t.Errorf("self-approval: %v", err)
	}
	v, err = ops.Approve(ctx, ids[0])
	must(err)
	st, err := c.ApprovalStatus(ctx, ids[0])
	must(err)
	if v.Status != "applied" || st.Status != "applied" {
		t.Errorf("approve %s, status %s", v.Status, st.Status)
	}
	v, err = ops.Reject(ctx, ids[1], "not now")
	must(err)
	if v.Reason != "not now" {
		t.Errorf("reject = %+v", v)
	}
	_, err = ops.Approve(ctx, ids[1])
	var apiErr *client.Error
	if !client.IsCode(err, fault.Conflict) || !strings.Contains(err.Error(), "conflict (409)") {
		t.Errorf("approving a rejected request: %v", err)
	}
	_, err = c.Read(ctx, "../x")
	if ok := errorsAs(err, &apiErr); !ok || apiErr.Code != fault.InvalidPath || apiErr.Status != 400 || apiErr.Path != "../x" {
		t.Errorf("invalid path: %#v", err)
	}
}

func errorsAs(err error, target **client.Error) bool {
	e, ok := err.(*client.Error)
	if ok {
		*target = e
	}
	return ok
}

func TestOnlyIdempotentCallsAreRetried(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch {
		case strings.HasSuffix(r.URL.Path, "/file_access_write"):
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"message":"Service Unavailable"}`))
		case n%2 == 1:
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"message":"Too Many Requests"}`))
		default:
			w.Write([]byte(`{"path":"a.md","content":"x"}`))
		}
	}))
	defer srv.Close()
	c := client.New(srv.URL)
	if r, err := c.Read(context.Background(), "a.md"); err != nil || r.Content != "x" || calls.Load() != 2 {
		t.Errorf("read after a 429 = %v %v, %d calls", r, err, calls.Load())
	}
	calls.Store(0)
	_, err := c.Write(context.Background(), "a.md", "x", true, "")
	if calls.Load() != 1 || !client.IsCode(err, fault.StorageError) {
		t.Errorf("a write was sent %d times: %v", calls.Load(), err)
	}
	calls.Store(0)
	_, _, err = client.New(srv.URL, client.WithRetries(3)).Do(context.Background(), "POST", "/tools/file_access_write", []byte("{}"), true)
	if calls.Load() != 4 {
		t.Errorf("an idempotent failure was tried %d times: %v", calls.Load(), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := c.Do(ctx, "GET", "/tools", nil, true); err == nil {
		t.Error("a canceled call succeeded")
	}
	down := client.New("http://127.0.0.1:1", client.WithRetries(1))
	if _, err := down.Catalog(context.Background()); err == nil {
		t.Error("an unreachable server answered")
	}
	if _, _, err := c.Call(context.Background(), "x", func() {}); err == nil {
		t.Error("unencodable arguments were sent")
	}
}

func TestBareGatewayErrorsGetCodes(t *testing.T) {
	for status, want := range map[int]fault.Code{403: fault.Forbidden, 404: fault.NotFound, 413: fault.RequestTooLarge, 504: fault.Timeout,
		502: fault.StorageError, 500: fault.Internal, 400: fault.InvalidArgument} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			w.Write([]byte(`{"message":"` + strings.Repeat("x", 300) + `"}`))
		}))
		_, err := client.New(srv.URL, client.WithRetries(0)).Catalog(context.Background())
		if !client.IsCode(err, want) {
			t.Errorf("%d: %v", status, err)
		}
		srv.Close()
	}
}
