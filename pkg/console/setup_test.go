package console_test

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/approval/boltstore"
	"github.com/filecontext-aws/filecontext/pkg/console"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

// world is a tool router with write tools that park, its approval routes,
// and the memory store the files live in.
type world struct {
	router *transport.Router
	store  *memstore.Store
}

func newWorld(t testing.TB, files map[string]string) *world {
	t.Helper()
	return newWorldAt(t, files, time.Now)
}

// newWorldAt is newWorld with the approval service's clock.
func newWorldAt(t testing.TB, files map[string]string, now func() time.Time) *world {
	t.Helper()
	store := memstore.New()
	for k, v := range files {
		if _, err := store.Put(context.Background(), k, []byte(v), fileops.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	root, _ := pathsafe.NewRoot("")
	fo, _ := fileops.New(store, root, fileops.DefaultLimits())
	bolt, err := boltstore.Open(filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bolt.Close() })
	svc, err := approval.New(approval.Options{Store: bolt, Files: fo, Staging: memstore.New(), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	tools := toolapi.New(toolapi.Options{Files: fo, WriteTools: true, Approvals: svc})
	return &world{router: &transport.Router{Tools: tools, Extra: []transport.Handler{&transport.ApprovalRoutes{Service: svc}}}, store: store}
}

// backend is the console's way to the approval routes, as the caller id.
func (w *world) backend(id string) console.Backend {
	return func(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
		u, err := url.Parse(path)
		if err != nil {
			return 0, nil, err
		}
		q := map[string]string{}
		for k, v := range u.Query() {
			q[k] = v[0]
		}
		res := w.router.Serve(ctx, transport.Request{Method: method, Path: u.Path, Query: q, Body: body, Caller: toolapi.Caller{ID: id}})
		return res.Status, res.Body, nil
	}
}

// park proposes a write as the agent and returns its approval id.
func (w *world) park(t testing.TB, tool string, args map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(args)
	res := w.router.Serve(context.Background(), transport.Request{Method: "POST", Path: "/tools/" + tool, Body: b, Caller: toolapi.Caller{ID: "agent"}, Query: map[string]string{}})
	var out struct{ ApprovalID, Status string }
	json.Unmarshal(res.Body, &out)
	if res.Status != 202 || out.ApprovalID == "" {
		t.Fatalf("park %s = %d %s", tool, res.Status, res.Body)
	}
	return out.ApprovalID
}

func (w *world) file(t testing.TB, key string) string {
	t.Helper()
	r, err := w.store.Get(context.Background(), key, fileops.GetOptions{Length: -1})
	if err != nil {
		return "<" + err.Error() + ">"
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return string(b)
}
