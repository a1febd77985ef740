package approval_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/approval/boltstore"
	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

// countingStore counts successful writes per key.
type countingStore struct {
	fileops.Store
	mu     sync.Mutex
	writes map[string]int
}

func (c *countingStore) Put(ctx context.Context, key string, b []byte, o fileops.PutOptions) (fileops.ObjectInfo, error) {
	info, err := c.Store.Put(ctx, key, b, o)
	if err == nil {
		c.mu.Lock()
		c.writes[key]++
		c.mu.Unlock()
	}
	return info, err
}

func (c *countingStore) Delete(ctx context.Context, key string, o fileops.DeleteOptions) error {
	err := c.Store.Delete(ctx, key, o)
	if err == nil {
		c.mu.Lock()
		c.writes[key]++
		c.mu.Unlock()
	}
	return err
}

type env struct {
	t       *testing.T
	data    *countingStore
	raw     fileops.Store
	staging fileops.Store
	files   *fileops.Service
	svc     *approval.Service
	clock   *atomic.Int64 // unix nanos
	opts    approval.Options
}

const agent, operator = "arn:aws:iam::1:role/agent", "arn:aws:iam::1:user/operator"

// Backend supplies the stores of one test environment.
type Backend struct {
	Name      string
	Approvals func(t *testing.T) approval.Store
	Data      func(t *testing.T) fileops.Store // each call a fresh, empty store
}

// embedded is the backend of the unit tests: bbolt and memory.
var embedded = Backend{
	Name: "bolt+memory",
	Approvals: func(t *testing.T) approval.Store {
		s, err := boltstore.Open(filepath.Join(t.TempDir(), "a.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	},
	Data: func(*testing.T) fileops.Store { return memstore.New() },
}

type newEnvFunc func(t *testing.T, tune func(*approval.Options)) *env

func envFor(b Backend) newEnvFunc {
	return func(t *testing.T, tune func(*approval.Options)) *env {
		t.Helper()
		raw := b.Data(t)
		e := &env{t: t, raw: raw, data: &countingStore{Store: raw, writes: map[string]int{}}, staging: b.Data(t), clock: &atomic.Int64{}}
		e.clock.Store(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC).UnixNano())
		root, _ := pathsafe.NewRoot("data")
		var err error
		e.files, err = fileops.New(e.data, root, fileops.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		e.opts = approval.Options{Store: b.Approvals(t), Files: e.files, Staging: e.staging, Now: func() time.Time { return time.Unix(0, e.clock.Load()) }, Lease: time.Minute}
		if tune != nil {
			tune(&e.opts)
		}
		e.svc, err = approval.New(e.opts)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
}

// flows are the approval flows every backend runs.
var flows = []struct {
	name string
	run  func(t *testing.T, newEnv newEnvFunc)
}{
	{"park, list, approve", parkListApprove},
	{"reject leaves the file", rejectLeavesTheFile},
	{"a changed file is a conflict and keeps the other edit", changedFileIsAConflict},
	{"expired requests are refused", expiredRequestsAreRefused},
	{"self-approval", selfApproval},
	{"concurrent decisions have one winner", concurrentDecisionsHaveOneWinner},
	{"an approve that dies is finished by the next", approveThatDiesIsFinished},
	{"staged content is removed once decided", stagedContentIsRemovedOnceDecided},
	{"decided records are retained, not expired", decidedRecordsAreRetained},
	{"every transition is announced once", everyTransitionIsAnnouncedOnce},
	{"bad requests", badRequests},
	{"previews are bounded", previewsAreBounded},
}

func TestFlows(t *testing.T) { RunFlows(t, embedded) }

// RunFlows runs every flow over a backend.
func RunFlows(t *testing.T, b Backend) {
	for _, f := range flows {
		t.Run(f.name, func(t *testing.T) { f.run(t, envFor(b)) })
	}
}

func (e *env) advance(d time.Duration) { e.clock.Add(int64(d)) }

func (e *env) put(path, content string) fileops.ObjectInfo {
	info, err := e.raw.Put(context.Background(), "data/"+path, []byte(content), fileops.PutOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return info
}

func (e *env) content(path string) string {
	r, err := e.files.Read(context.Background(), path)
	if err != nil {
		return "<" + string(fault.CodeOf(err)) + ">"
	}
	return r.Content
}

func (e *env) park(c *fileops.Change, err error) *approval.Parked {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
	p, err := e.svc.Park(context.Background(), c, agent, []byte(`{"fileName":"x"}`))
	if err != nil {
		e.t.Fatal(err)
	}
	return p.(*approval.Parked)
}

func wantCode(t *testing.T, err error, code fault.Code) *fault.Error {
	t.Helper()
	if fault.CodeOf(err) != code {
		t.Fatalf("error %v, want %s", err, code)
	}
	return fault.As(err)
}

func parkListApprove(t *testing.T, newEnv newEnvFunc) {
	ctx := context.Background()
	e := newEnv(t, nil)
	e.put("notes.md", "one\ntwo\n")
	p := e.park(e.files.PlanReplace(ctx, fileops.ReplaceArgs{FileName: "notes.md", OldString: "two", NewString: "deux"}))
	if p.Status != "pending_approval" || !strings.HasPrefix(p.ApprovalID, "apr_") || p.Path != "notes.md" || p.Tool != "file_access_replace" ||
		!strings.Contains(p.Preview.Diff, "-two\n+deux\n") || p.Preview.Truncated || !p.ExpiresAt.Equal(time.Unix(0, e.clock.Load()).UTC().Add(24*time.Hour)) {
		t.Fatalf("parked = %+v", p)
	}
	if e.content("notes.md") != "one\ntwo\n" {
		t.Fatal("parking changed the file")
	}
	page, err := e.svc.List(ctx, "", 0, "")
	if err != nil || len(page.Approvals) != 1 || page.Approvals[0].ApprovalID != p.ApprovalID || page.Approvals[0].RequestedBy != agent {
		t.Fatalf("list = %+v %v", page, err)
	}
	v, err := e.svc.Approve(ctx, p.ApprovalID, operator)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != approval.Applied || v.DecidedBy != operator || v.Result == nil || v.Result.ETag == "" || v.Result.Message != "Replaced 1 occurrence(s) in 'notes.md'." {
		t.Errorf("approved = %+v", v)
	}
	if e.content("notes.md") != "one\ndeux\n" || e.data.writes["data/notes.md"] != 1 {
		t.Errorf("file = %q, written %d times", e.content("notes.md"), e.data.writes["data/notes.md"])
	}
	_, err = e.svc.Approve(ctx, p.ApprovalID, operator)
	fe := wantCode(t, err, fault.Conflict)
	if fe.Details["approval"].(approval.View).Status != approval.Applied {
		t.Errorf("conflict does not carry the current record: %+v", fe.Details)
	}
	got, _ := e.svc.Get(ctx, p.ApprovalID)
	if got.Status != approval.Applied {
		t.Errorf("status = %s", got.Status)
	}
	if page, _ := e.svc.List(ctx, "applied", 10, ""); len(page.Approvals) != 1 {
		t.Errorf("applied list = %+v", page)
	}
}

func rejectLeavesTheFile(t *testing.T, newEnv newEnvFunc) {
	ctx := context.Background()
	e := newEnv(t, nil)
	e.put("a.md", "a\n")
	p := e.park(e.files.PlanWrite(ctx, fileops.WriteArgs{FileName: "a.md", Content: "b\n", Overwrite: true}))
	_, err := e.svc.Reject(ctx, p.ApprovalID, operator, strings.Repeat("x", 1001))
	wantCode(t, err, fault.LimitExceeded)
	v, err := e.svc.Reject(ctx, p.ApprovalID, operator, "not now")
	if err != nil || v.Status != approval.Rejected || v.Reason != "not now" || v.DecidedBy != operator {
		t.Fatalf("reject = %+v %v", v, err)
	}
	if e.content("a.md") != "a\n" {
		t.Error("a rejected change was applied")
	}
	_, err = e.svc.Approve(ctx, p.ApprovalID, operator)
	wantCode(t, err, fault.Conflict)
	_, err = e.svc.Reject(ctx, p.ApprovalID, operator, "")
	wantCode(t, err, fault.Conflict)
}

func changedFileIsAConflict(t *testing.T, newEnv newEnvFunc) {
	ctx := context.Background()
	e := newEnv(t, nil)
	e.put("c.md", "base\n")
	p := e.park(e.files.PlanReplace(ctx, fileops.ReplaceArgs{FileName: "c.md", OldString: "base", NewString: "mine"}))
	e.put("c.md", "theirs\n")
	_, err := e.svc.Approve(ctx, p.ApprovalID, operator)
	fe := wantCode(t, err, fault.Conflict)
	v, _ := fe.Details["approval"].(approval.View)
	if v.Status != approval.Conflict || v.Result == nil || v.Result.Error == nil || v.Result.Error.Code != fault.Conflict {
		t.Fatalf("approve = %+v", fe.Details)
	}
	if e.content("c.md") != "theirs\n" {
		t.Errorf("the other edit was lost: %q", e.content("c.md"))
	}
	// A create that someone else made first.
	p = e.park(e.files.PlanWrite(ctx, fileops.WriteArgs{FileName: "n.md", Content: "mine"}))
	if !strings.Contains(p.Preview.Diff, "+++ b/n.md") || !strings.Contains(p.Preview.Diff, "--- /dev/null") {
		t.Errorf("create diff = %q", p.Preview.Diff)
	}
	e.put("n.md", "theirs")
	_, err = e.svc.Approve(ctx, p.ApprovalID, operator)
	wantCode(t, err, fault.Conflict)
	if v, _ := e.svc.Get(ctx, p.ApprovalID); v.Status != approval.Conflict || e.content("n.md") != "theirs" {
		t.Errorf("create over a new file: %+v %q", v, e.content("n.md"))
	}
}

// stagedContentIsRemovedOnceDecided: a large change is staged while it
// waits, and nothing of it stays once it is applied, rejected, a conflict or
// expired (the sweep finds those nobody touches again).
func stagedContentIsRemovedOnceDecided(t *testing.T, newEnv newEnvFunc) {
	ctx := context.Background()
	e := newEnv(t, nil)
	big := strings.Repeat("a staged line of text\n", 400)
	staged := func() int {
		page, err := e.staging.List(ctx, fileops.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Objects)
	}
	var ids []string
	for _, name := range []string{"apply.md", "reject.md", "conflict.md", "expire.md", "sweep.md"} {
		e.put(name, "old\n")
		ids = append(ids, e.park(e.files.PlanWrite(ctx, fileops.WriteArgs{FileName: name, Content: big, Overwrite: true})).ApprovalID)
	}
	if staged() != 5 {
		t.Fatalf("%d staged, want 5", staged())
	}
	if _, err := e.svc.Approve(ctx, ids[0], operator); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Reject(ctx, ids[1], operator, "no"); err != nil {
		t.Fatal(err)
	}
	e.put("conflict.md", "theirs\n")
	_, err := e.svc.Approve(ctx, ids[2], operator)
	wantCode(t, err, fault.Conflict)
	if staged() != 2 {
		t.Errorf("%d staged after three decisions, want 2", staged())
	}
	e.advance(25 * time.Hour)
	_, err = e.svc.Approve(ctx, ids[3], operator)
	wantCode(t, err, fault.Conflict)
	if staged() != 1 {
		t.Errorf("%d staged after an expiry, want 1", staged())
	}
	if n, err := e.svc.Sweep(ctx); err != nil || n != 1 || staged() != 0 {
		t.Errorf("sweep = %d %v, %d left staged", n, err, staged())
	}
	if v, _ := e.svc.Get(ctx, ids[4]); v.Status != approval.Expired {
		t.Errorf("swept record = %s", v.Status)
	}
	if e.content("apply.md") != big || e.content("reject.md") != "old\n" {
		t.Error("the decisions did not do what they say")
	}
}

func expiredRequestsAreRefused(t *testing.T, newEnv newEnvFunc) {
	ctx := context.Background()
	e := newEnv(t, nil)
	e.put("x.md", "x")
	p := e.park(e.files.PlanDelete(ctx, fileops.DeleteArgs{FileName: "x.md"}))
	e.advance(24*time.Hour + time.Second)
	if v, _ := e.svc.Get(ctx, p.ApprovalID); v.Status != approval.Expired {
		t.Errorf("an expired request reads as %s", v.Status)
	}
	if page, _ := e.svc.List(ctx, "pending", 10, ""); len(page.Approvals) != 0 {
		t.Errorf("an expired request is listed as pending: %+v", page)
	}
	if page, _ := e.svc.List(ctx, "expired", 10, ""); len(page.Approvals) != 1 {
		t.Errorf("expired list = %+v", page)
	}
	_, err := e.svc.Approve(ctx, p.ApprovalID, operator)
	fe := wantCode(t, err, fault.Conflict)
	if !strings.Contains(fe.Message, "expired") {
		t.Errorf("message %q", fe.Message)
	}
	if e.content("x.md") != "x" {
		t.Error("an expired change was applied")
	}
	p2 := e.park(e.files.PlanDelete(ctx, fileops.DeleteArgs{FileName: "x.md"}))
	e.advance(25 * time.Hour)
	_, err = e.svc.Reject(ctx, p2.ApprovalID, operator, "")
	wantCode(t, err, fault.Conflict)
}

func selfApproval(t *testing.T, newEnv newEnvFunc) {
	ctx := context.Background()
	e := newEnv(t, nil)
	e.put("s.md", "s")
	p := e.park(e.files.PlanDelete(ctx, fileops.DeleteArgs{FileName: "s.md"}))
	_, err := e.svc.Approve(ctx, p.ApprovalID, agent)
	wantCode(t, err, fault.Forbidden)
	if v, _ := e.svc.Get(ctx, p.ApprovalID); v.Status != approval.Pending {
		t.Errorf("a refused self-approval changed the record: %s", v.Status)
	}
	// The requester may withdraw their own request.
	if v, err := e.svc.Reject(ctx, p.ApprovalID, agent, "withdrawn"); err != nil || v.Status != approval.Rejected {
		t.Errorf("self-reject = %+v %v", v, err)
	}
	e2 := newEnv(t, func(o *approval.Options) { o.AllowSelfApprove = true })
	e2.put("s.md", "s")
	p = e2.park(e2.files.PlanDelete(ctx, fileops.DeleteArgs{FileName: "s.md"}))
	if v, err := e2.svc.Approve(ctx, p.ApprovalID, agent); err != nil || v.Status != approval.Applied || e2.content("s.md") != "<not_found>" {
		t.Errorf("allowed self-approval = %+v %v", v, err)
	}
}

func concurrentDecisionsHaveOneWinner(t *testing.T, newEnv newEnvFunc) {
	for _, mixed := range []bool{false, true} {
		t.Run(fmt.Sprintf("mixed=%v", mixed), func(t *testing.T) {
			ctx := context.Background()
			e := newEnv(t, nil)
			e.put("race.md", "v0\n")
			p := e.park(e.files.PlanWrite(ctx, fileops.WriteArgs{FileName: "race.md", Content: "v1\n", Overwrite: true}))
			var wins, conflicts atomic.Int32
			var wg sync.WaitGroup
			errs := make(chan error, 100)
			for i := range 100 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var err error
					if mixed && i%2 == 1 {
						_, err = e.svc.Reject(ctx, p.ApprovalID, operator, "no")
					} else {
						_, err = e.svc.Approve(ctx, p.ApprovalID, fmt.Sprintf("%s-%d", operator, i))
					}
					switch fault.CodeOf(err) {
					case "":
						wins.Add(1)
					case fault.Conflict:
						conflicts.Add(1)
					default:
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if wins.Load() != 1 || conflicts.Load() != 99 {
				t.Errorf("%d won, %d conflicts", wins.Load(), conflicts.Load())
			}
			v, _ := e.svc.Get(ctx, p.ApprovalID)
			writes := e.data.writes["data/race.md"]
			switch v.Status {
			case approval.Applied:
				if writes != 1 || e.content("race.md") != "v1\n" {
					t.Errorf("applied, written %d times, content %q", writes, e.content("race.md"))
				}
			case approval.Rejected:
				if writes != 0 || e.content("race.md") != "v0\n" {
					t.Errorf("rejected, written %d times", writes)
				}
			default:
				t.Errorf("final status %s", v.Status)
			}
		})
	}
}

func approveThatDiesIsFinished(t *testing.T, newEnv newEnvFunc) {
	ctx := context.Background()
	crash := errors.New("killed after the write")
	armed := atomic.Bool{}
	armed.Store(true)
	e := newEnv(t, func(o *approval.Options) {
		o.AfterWrite = func(*approval.Record) error {
			if armed.Load() {
				return crash
			}
			return nil
		}
	})
	big := strings.Repeat("a staged line of text\n", 400) // over the inline limit: staged
	e.put("r.md", "old\n")
	p := e.park(e.files.PlanWrite(ctx, fileops.WriteArgs{FileName: "r.md", Content: big, Overwrite: true}))
	if keys, _ := e.staging.List(ctx, fileops.ListOptions{}); len(keys.Objects) != 1 {
		t.Fatalf("large content was not staged: %+v", keys)
	}
	if _, err := e.svc.Approve(ctx, p.ApprovalID, operator); !errors.Is(err, crash) {
		t.Fatalf("first approve: %v", err)
	}
	armed.Store(false)
	if e.content("r.md") != big {
		t.Fatal("the write did not happen before the crash")
	}
	v, _ := e.svc.Get(ctx, p.ApprovalID)
	if v.Status != approval.Approving {
		t.Fatalf("after the crash: %s", v.Status)
	}
	// Within the lease, the claim holds.
	_, err := e.svc.Approve(ctx, p.ApprovalID, operator)
	wantCode(t, err, fault.Conflict)
	e.advance(2 * time.Minute)
	v, err = e.svc.Approve(ctx, p.ApprovalID, operator)
	if err != nil || v.Status != approval.Applied || v.Result.ETag == "" {
		t.Fatalf("recovery = %+v %v", v, err)
	}
	if n := e.data.writes["data/r.md"]; n != 1 {
		t.Errorf("written %d times", n)
	}
	// A delete that died is recognised the same way.
	e.put("d.md", "x")
	armed.Store(true)
	p = e.park(e.files.PlanDelete(ctx, fileops.DeleteArgs{FileName: "d.md"}))
	e.svc.Approve(ctx, p.ApprovalID, operator)
	armed.Store(false)
	e.advance(2 * time.Minute)
	if v, err := e.svc.Approve(ctx, p.ApprovalID, operator); err != nil || v.Status != approval.Applied {
		t.Errorf("delete recovery = %+v %v", v, err)
	}
}

func badRequests(t *testing.T, newEnv newEnvFunc) {
	ctx := context.Background()
	e := newEnv(t, nil)
	_, err := e.svc.Approve(ctx, "apr_nope", operator)
	wantCode(t, err, fault.NotFound)
	_, err = e.svc.Get(ctx, "")
	wantCode(t, err, fault.InvalidArgument)
	_, err = e.svc.List(ctx, "weird", 0, "")
	wantCode(t, err, fault.InvalidArgument)
	_, err = e.svc.List(ctx, "pending", 500, "")
	wantCode(t, err, fault.InvalidArgument)
	_, err = e.svc.List(ctx, "pending", 10, "forged")
	wantCode(t, err, fault.InvalidArgument)
	if _, err := approval.New(approval.Options{}); err == nil {
		t.Error("New accepted no stores")
	}
}

func previewsAreBounded(t *testing.T, newEnv newEnvFunc) {
	ctx := context.Background()
	e := newEnv(t, func(o *approval.Options) { o.PreviewBytes = 300 })
	e.put("p.md", "")
	p := e.park(e.files.PlanWrite(ctx, fileops.WriteArgs{FileName: "p.md", Content: strings.Repeat("ünïcode line\n", 100), Overwrite: true}))
	if !p.Preview.Truncated || len(p.Preview.Diff) > 300 || !strings.HasSuffix(p.Preview.Diff, "\n") {
		t.Errorf("preview = %d bytes, truncated %v", len(p.Preview.Diff), p.Preview.Truncated)
	}
}

// decidedRecordsAreRetained: a waiting record may be removed only a
// retention after its expiry, a decided one a retention after its decision,
// so the audit trail outlives the 24-hour request.
func decidedRecordsAreRetained(t *testing.T, newEnv newEnvFunc) {
	ctx := context.Background()
	e := newEnv(t, func(o *approval.Options) { o.Retention = 48 * time.Hour })
	e.put("k.md", "k\n")
	p := e.park(e.files.PlanDelete(ctx, fileops.DeleteArgs{FileName: "k.md"}))
	r, err := e.opts.Store.Get(ctx, p.ApprovalID)
	if err != nil {
		t.Fatal(err)
	}
	if want := r.ExpiresAt.Add(48 * time.Hour); !r.RetainUntil.Equal(want) {
		t.Errorf("a waiting record is kept until %v, want %v", r.RetainUntil, want)
	}
	e.advance(time.Hour)
	if _, err := e.svc.Reject(ctx, p.ApprovalID, operator, "keep it"); err != nil {
		t.Fatal(err)
	}
	r, _ = e.opts.Store.Get(ctx, p.ApprovalID)
	if want := r.DecidedAt.Add(48 * time.Hour); !r.RetainUntil.Equal(want) || !r.RetainUntil.After(r.ExpiresAt) {
		t.Errorf("a decided record is kept until %v, want %v (after its expiry %v)", r.RetainUntil, want, r.ExpiresAt)
	}
	e.advance(30 * time.Hour) // past expiresAt: the decision still reads as made
	if v, _ := e.svc.Get(ctx, p.ApprovalID); v.Status != approval.Rejected || v.DecidedBy != operator {
		t.Errorf("after the request's expiry the record reads %s by %s", v.Status, v.DecidedBy)
	}
}

// recorder is an approval.Events that keeps what it is told.
type recorder struct {
	mu     sync.Mutex
	events []approval.Event
}

func (r *recorder) Publish(_ context.Context, e approval.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e.Transition+" "+e.Approval.ApprovalID+" "+string(e.Approval.Status))
	}
	r.events = nil
	return out
}

// everyTransitionIsAnnouncedOnce: requested, applied, conflict, rejected
// and expired each publish one event with the record as it now is, even
// under 20 concurrent approvals.
func everyTransitionIsAnnouncedOnce(t *testing.T, newEnv newEnvFunc) {
	ctx := context.Background()
	rec := &recorder{}
	e := newEnv(t, func(o *approval.Options) { o.Events = rec })
	e.put("a.md", "a\n")
	p := e.park(e.files.PlanReplace(ctx, fileops.ReplaceArgs{FileName: "a.md", OldString: "a", NewString: "A"}))
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() { defer wg.Done(); e.svc.Approve(ctx, p.ApprovalID, fmt.Sprintf("%s-%d", operator, i)) }()
	}
	wg.Wait()
	if got := rec.take(); strings.Join(got, "|") != "requested "+p.ApprovalID+" pending|applied "+p.ApprovalID+" applied" {
		t.Errorf("park and 20 approvals announced %v", got)
	}
	p = e.park(e.files.PlanDelete(ctx, fileops.DeleteArgs{FileName: "a.md"}))
	e.svc.Reject(ctx, p.ApprovalID, operator, "no")
	e.svc.Reject(ctx, p.ApprovalID, operator, "again")
	if got := rec.take(); len(got) != 2 || !strings.HasPrefix(got[1], "rejected ") {
		t.Errorf("reject announced %v", got)
	}
	p = e.park(e.files.PlanWrite(ctx, fileops.WriteArgs{FileName: "a.md", Content: "mine", Overwrite: true}))
	e.put("a.md", "theirs\n")
	e.svc.Approve(ctx, p.ApprovalID, operator)
	if got := rec.take(); len(got) != 2 || got[1] != "conflict "+p.ApprovalID+" conflict" {
		t.Errorf("conflict announced %v", got)
	}
	p = e.park(e.files.PlanWrite(ctx, fileops.WriteArgs{FileName: "b.md", Content: "b"}))
	e.advance(25 * time.Hour)
	e.svc.Approve(ctx, p.ApprovalID, operator)
	e.svc.Sweep(ctx)
	if got := rec.take(); len(got) != 2 || got[1] != "expired "+p.ApprovalID+" expired" {
		t.Errorf("expiry announced %v", got)
	}
	if d := (approval.Event{Transition: "requested"}).DetailType(); d != "Approval Requested" {
		t.Errorf("detail-type %q", d)
	}
}
