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
	s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(records).Put([]byte("apr_x"), []byte("{not json")) })
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
