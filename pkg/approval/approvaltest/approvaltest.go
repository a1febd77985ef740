// Package approvaltest is the conformance suite every approval store passes.
package approvaltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/fault"
)

// NewStore returns a fresh, empty store for one subtest.
type NewStore func(t *testing.T) approval.Store

// Record returns a pending record with the given ID, requested at at.
func Record(id string, at time.Time) *approval.Record {
	return &approval.Record{
		View: approval.View{ApprovalID: id, Status: approval.Pending, Tool: "file_access_write", Path: "notes/" + id + ".md",
			Arguments: json.RawMessage(`{"fileName":"notes/x.md","content":"héllo"}`), BaseETag: `"abc"`,
			RequestedBy: "arn:aws:iam::1:role/agent", RequestedAt: at.UTC().Truncate(time.Millisecond), ExpiresAt: at.Add(time.Hour).UTC().Truncate(time.Millisecond),
			Preview: approval.Preview{Diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"}},
		BaseExists: true, Content: []byte("héllo\x00bytes"), ContentSHA256: "deadbeef", ContentSize: 12, Message: "File 'x' written.",
	}
}

// Run runs the suite.
func Run(t *testing.T, newStore NewStore) {
	ctx := context.Background()
	base := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

	t.Run("a created record reads back whole", func(t *testing.T) {
		s := newStore(t)
		r := Record("apr_one", base)
		if err := s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, "apr_one")
		if err != nil {
			t.Fatal(err)
		}
		want := *r
		want.Version = 1
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(&want)
		if string(a) != string(b) {
			t.Errorf("read back\n%s\nwant\n%s", a, b)
		}
		if !got.RequestedAt.Equal(r.RequestedAt) || !got.ExpiresAt.Equal(r.ExpiresAt) {
			t.Errorf("times changed: %v %v", got.RequestedAt, got.ExpiresAt)
		}
	})

	t.Run("ids are unique and missing ids are not found", func(t *testing.T) {
		s := newStore(t)
		if err := s.Create(ctx, Record("apr_dup", base)); err != nil {
			t.Fatal(err)
		}
		if err := s.Create(ctx, Record("apr_dup", base)); !errors.Is(err, approval.ErrExists) {
			t.Errorf("second create: %v", err)
		}
		if _, err := s.Get(ctx, "apr_missing"); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("missing: %v", err)
		}
		if err := s.Update(ctx, Record("apr_missing", base), 1); !errors.Is(err, approval.ErrConflict) && !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("update of a missing record: %v", err)
		}
	})

	t.Run("updates are conditional on the version", func(t *testing.T) {
		s := newStore(t)
		s.Create(ctx, Record("apr_v", base))
		r, _ := s.Get(ctx, "apr_v")
		now := base.Add(time.Minute)
		r.Status, r.DecidedBy, r.DecidedAt, r.Reason = approval.Rejected, "arn:aws:iam::1:user/ops", &now, "no"
		r.Result = &approval.Result{Error: fault.New(fault.Conflict, "changed")}
		if err := s.Update(ctx, r, 1); err != nil {
			t.Fatal(err)
		}
		if r.Version != 2 {
			t.Errorf("version after update = %d", r.Version)
		}
		got, _ := s.Get(ctx, "apr_v")
		if got.Status != approval.Rejected || got.Version != 2 || got.Reason != "no" || got.DecidedAt == nil || !got.DecidedAt.Equal(now) ||
			got.Result == nil || got.Result.Error == nil || got.Result.Error.Code != fault.Conflict {
			t.Errorf("after update = %+v", got)
		}
		stale := Record("apr_v", base)
		stale.Status = approval.Applied
		if err := s.Update(ctx, stale, 1); !errors.Is(err, approval.ErrConflict) {
			t.Errorf("stale update: %v", err)
		}
		if got, _ := s.Get(ctx, "apr_v"); got.Status != approval.Rejected {
			t.Errorf("a stale update changed the record: %s", got.Status)
		}
	})

	t.Run("of many concurrent updates from one version exactly one wins", func(t *testing.T) {
		s := newStore(t)
		s.Create(ctx, Record("apr_race", base))
		var wins atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, 50)
		for i := range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := Record("apr_race", base)
				r.Status, r.DecidedBy = approval.Approving, fmt.Sprintf("approver-%d", i)
				err := s.Update(ctx, r, 1)
				switch {
				case err == nil:
					wins.Add(1)
				case !errors.Is(err, approval.ErrConflict):
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if wins.Load() != 1 {
			t.Errorf("%d updates won", wins.Load())
		}
	})

	t.Run("listing by status pages oldest first", func(t *testing.T) {
		s := newStore(t)
		for i := range 7 {
			r := Record(fmt.Sprintf("apr_%02d", i), base.Add(time.Duration(7-i)*time.Second))
			if err := s.Create(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		r, _ := s.Get(ctx, "apr_03")
		r.Status = approval.Applied
		s.Update(ctx, r, r.Version)
		var ids []string
		token := ""
		pages := 0
		for {
			recs, next, err := s.List(ctx, approval.Pending, 2, token)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if len(recs) > 2 {
				t.Fatalf("page of %d", len(recs))
			}
			for _, r := range recs {
				ids = append(ids, r.ApprovalID)
			}
			if next == "" {
				break
			}
			if pages > 10 {
				t.Fatal("listing does not end")
			}
			token = next
		}
		want := "[apr_06 apr_05 apr_04 apr_02 apr_01 apr_00]"
		if fmt.Sprint(ids) != want {
			t.Errorf("pending = %v, want %s", ids, want)
		}
		recs, next, err := s.List(ctx, approval.Applied, 10, "")
		if err != nil || len(recs) != 1 || recs[0].ApprovalID != "apr_03" || next != "" {
			t.Errorf("applied = %v %q %v", recs, next, err)
		}
		recs, _, err = s.List(ctx, approval.Rejected, 10, "")
		if err != nil || len(recs) != 0 {
			t.Errorf("rejected = %v %v", recs, err)
		}
		if _, _, err := s.List(ctx, approval.Pending, 2, "garbage!"); !errors.Is(err, approval.ErrBadToken) {
			t.Errorf("bad token: %v", err)
		}
	})

	t.Run("canceled contexts stop every method", func(t *testing.T) {
		s := newStore(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := s.Create(cctx, Record("apr_c", base)); !errors.Is(err, context.Canceled) {
			t.Errorf("create: %v", err)
		}
		if _, err := s.Get(cctx, "apr_c"); !errors.Is(err, context.Canceled) {
			t.Errorf("get: %v", err)
		}
		if err := s.Update(cctx, Record("apr_c", base), 1); !errors.Is(err, context.Canceled) {
			t.Errorf("update: %v", err)
		}
		if _, _, err := s.List(cctx, approval.Pending, 10, ""); !errors.Is(err, context.Canceled) {
			t.Errorf("list: %v", err)
		}
	})
}
