package boltstore

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/filecontext-aws/filecontext/pkg/approval"
)

func TestCorruptRecordsAndBadPaths(t *testing.T) {
	if _, err := Open(t.TempDir()); err == nil {
		t.Error("a directory opened as a store")
	}
	s, err := Open(filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	r := &approval.Record{View: approval.View{ApprovalID: "apr_x", Status: approval.Pending, RequestedAt: time.Now()}}
	if err := s.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	s.update(func(tx *bolt.Tx) error { return tx.Bucket(records).Put([]byte("apr_x"), []byte("{not json")) })
	if _, err := s.Get(ctx, "apr_x"); err == nil {
		t.Error("a corrupt record read")
	}
	if err := s.Update(ctx, r, 1); err == nil || errors.Is(err, approval.ErrConflict) {
		t.Errorf("update of a corrupt record: %v", err)
	}
	if _, _, err := s.List(ctx, approval.Pending, 10, ""); err == nil {
		t.Error("a listing with a corrupt record succeeded")
	}
	if err := s.Update(ctx, &approval.Record{View: approval.View{ApprovalID: "apr_missing"}}, 1); !errors.Is(err, approval.ErrConflict) {
		t.Errorf("update of a missing record: %v", err)
	}
}

// Two stores on one file, as two processes on one state folder: each sees
// what the other wrote, and neither holds the file between transactions.
func TestTwoStoresShareOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(path)
	if err != nil {
		t.Fatalf("a second store could not open the file: %v", err)
	}
	ctx := context.Background()
	r := &approval.Record{View: approval.View{ApprovalID: "apr_shared", Status: approval.Pending, RequestedAt: time.Now()}}
	if err := a.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := b.Get(ctx, "apr_shared")
	if err != nil || got.ApprovalID != "apr_shared" {
		t.Fatalf("the second store reads %+v %v", got, err)
	}
	got.Status = approval.Rejected
	if err := b.Update(ctx, got, got.Version); err != nil {
		t.Fatal(err)
	}
	if again, _ := a.Get(ctx, "apr_shared"); again.Status != approval.Rejected {
		t.Errorf("the first store reads %s", again.Status)
	}
}
