package approval_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/approval/boltstore"
	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
)

// brokenStore fails the approval store's methods named in fail.
type brokenStore struct {
	approval.Store
	fail map[string]error
}

func (b *brokenStore) Create(ctx context.Context, r *approval.Record) error {
	if err := b.fail["Create"]; err != nil {
		return err
	}
	return b.Store.Create(ctx, r)
}
func (b *brokenStore) Get(ctx context.Context, id string) (*approval.Record, error) {
	if err := b.fail["Get"]; err != nil {
		return nil, err
	}
	return b.Store.Get(ctx, id)
}
func (b *brokenStore) Update(ctx context.Context, r *approval.Record, v int64) error {
	if err := b.fail["Update"]; err != nil {
		return err
	}
	return b.Store.Update(ctx, r, v)
}
func (b *brokenStore) List(ctx context.Context, s approval.Status, n int, tok string) ([]*approval.Record, string, error) {
	if err := b.fail["List"]; err != nil {
		return nil, "", err
	}
	return b.Store.List(ctx, s, n, tok)
}

// brokenFiles fails Put and Get of a fileops store when set.
type brokenFiles struct {
	fileops.Store
	put, get error
}

func (b *brokenFiles) Put(ctx context.Context, k string, body []byte, o fileops.PutOptions) (fileops.ObjectInfo, error) {
	if b.put != nil {
		return fileops.ObjectInfo{}, b.put
	}
	return b.Store.Put(ctx, k, body, o)
}
func (b *brokenFiles) Get(ctx context.Context, k string, o fileops.GetOptions) (*fileops.Object, error) {
	if b.get != nil {
		return nil, b.get
	}
	return b.Store.Get(ctx, k, o)
}

func TestStoreFailuresAreStorageErrors(t *testing.T) {
	ctx := context.Background()
	broken := &brokenStore{fail: map[string]error{}}
	staging := &brokenFiles{Store: memstore.New()}
	e := envFor(Backend{
		Approvals: func(t *testing.T) approval.Store {
			s, _ := boltstore.Open(filepath.Join(t.TempDir(), "a.db"))
			t.Cleanup(func() { s.Close() })
			broken.Store = s
			return broken
		},
		Data: func(*testing.T) fileops.Store { return memstore.New() },
	})(t, func(o *approval.Options) { o.Staging = staging })
	e.put("a.md", "a\n")
	change, _ := e.files.PlanWrite(ctx, fileops.WriteArgs{FileName: "a.md", Content: strings.Repeat("x", 5000), Overwrite: true})

	staging.put = errors.New("system bucket down")
	_, err := e.svc.Park(ctx, change, agent, nil)
	wantCode(t, err, fault.StorageError)
	staging.put = nil

	boom := errors.New("throttled")
	broken.fail["Create"] = boom
	_, err = e.svc.Park(ctx, change, agent, nil)
	if fe := wantCode(t, err, fault.StorageError); !errors.Is(fe, boom) {
		t.Error("the cause is lost")
	}
	delete(broken.fail, "Create")
	p, err := e.svc.Park(ctx, change, agent, []byte(strings.Repeat("a", 5000)))
	if err != nil {
		t.Fatal(err)
	}
	id := p.(*approval.Parked).ApprovalID
	if v, _ := e.svc.Get(ctx, id); !strings.Contains(string(v.Arguments), "not kept") {
		t.Errorf("large arguments kept: %.80s", v.Arguments)
	}

	broken.fail["Get"] = context.DeadlineExceeded
	_, err = e.svc.Approve(ctx, id, operator)
	wantCode(t, err, fault.Timeout)
	broken.fail["Get"] = fault.New(fault.Forbidden, "passthrough")
	_, err = e.svc.Get(ctx, id)
	wantCode(t, err, fault.Forbidden)
	delete(broken.fail, "Get")

	broken.fail["Update"] = boom
	_, err = e.svc.Approve(ctx, id, operator)
	wantCode(t, err, fault.StorageError)
	_, err = e.svc.Reject(ctx, id, operator, "")
	wantCode(t, err, fault.StorageError)
	delete(broken.fail, "Update")

	broken.fail["List"] = boom
	_, err = e.svc.List(ctx, "", 0, "")
	wantCode(t, err, fault.StorageError)
	delete(broken.fail, "List")

	staging.get = errors.New("gone")
	_, err = e.svc.Approve(ctx, id, operator)
	wantCode(t, err, fault.StorageError)
	staging.get = context.Canceled
	e.advance(2 * 60e9)
	_, err = e.svc.Approve(ctx, id, operator)
	wantCode(t, err, fault.Timeout)
	staging.get = nil

	// Staged content that no longer matches its hash is never applied.
	keys, _ := staging.Store.List(ctx, fileops.ListOptions{})
	for _, o := range keys.Objects {
		staging.Store.Put(ctx, o.Key, []byte("tampered"), fileops.PutOptions{})
	}
	e.advance(2 * 60e9)
	_, err = e.svc.Approve(ctx, id, operator)
	wantCode(t, err, fault.Internal)
	if e.content("a.md") != "a\n" {
		t.Error("tampered content was applied")
	}
}

func TestApplyFailuresAreRecorded(t *testing.T) {
	ctx := context.Background()
	data := &brokenFiles{Store: memstore.New()}
	e := envFor(Backend{Approvals: embedded.Approvals, Data: func(*testing.T) fileops.Store { return data }})(t, nil)
	e.put("f.md", "f\n")
	p := e.park(e.files.PlanWrite(ctx, fileops.WriteArgs{FileName: "f.md", Content: "g\n", Overwrite: true}))
	data.put = &fileops.StoreError{Code: "AccessDenied", Err: errors.New("denied")}
	v, err := e.svc.Approve(ctx, p.ApprovalID, operator)
	if err != nil || v.Status != approval.Failed || v.Result.Error.Code != fault.StorageError || !strings.Contains(v.Result.Error.Message, "AccessDenied") {
		t.Errorf("failed apply = %+v %v", v, err)
	}
	data.put = context.DeadlineExceeded
	p = e.park(e.files.PlanWrite(ctx, fileops.WriteArgs{FileName: "f.md", Content: "h\n", Overwrite: true}))
	_, err = e.svc.Approve(ctx, p.ApprovalID, operator)
	wantCode(t, err, fault.Timeout)
	if v, _ := e.svc.Get(ctx, p.ApprovalID); v.Status != approval.Approving {
		t.Errorf("a timed-out apply left %s", v.Status)
	}
	data.put = nil
	// Diffs of files that cannot be shown.
	e.put("big.md", strings.Repeat("x", 2<<20))
	p = e.park(e.files.PlanWrite(ctx, fileops.WriteArgs{FileName: "big.md", Content: "small", Overwrite: true}))
	if !strings.Contains(p.Preview.Diff, "not shown") {
		t.Errorf("large old content diff = %q", p.Preview.Diff)
	}
	e.put("bin.md", "\xff\xfe")
	p = e.park(e.files.PlanDelete(ctx, fileops.DeleteArgs{FileName: "bin.md"}))
	if !strings.Contains(p.Preview.Diff, "not shown") {
		t.Errorf("binary delete diff = %q", p.Preview.Diff)
	}
	e.put("d.md", "gone\n")
	p = e.park(e.files.PlanDelete(ctx, fileops.DeleteArgs{FileName: "d.md"}))
	if !strings.Contains(p.Preview.Diff, "-gone") || !strings.Contains(p.Preview.Diff, "/dev/null") {
		t.Errorf("delete diff = %q", p.Preview.Diff)
	}
	if approval.Pending.Final() || approval.Approving.Final() || !approval.Applied.Final() {
		t.Error("Final")
	}
}
