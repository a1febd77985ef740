package boltstore_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/approval/approvaltest"
	"github.com/filecontext-aws/filecontext/pkg/approval/boltstore"
)

func TestConformance(t *testing.T) {
	approvaltest.Run(t, func(t *testing.T) approval.Store {
		s, err := boltstore.Open(filepath.Join(t.TempDir(), "approvals.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestRecordsSurviveAReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "approvals.db")
	s, err := boltstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Create(context.Background(), approvaltest.Record("apr_keep", time.Now()))
	s.Close()
	s, err = boltstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r, err := s.Get(context.Background(), "apr_keep"); err != nil || r.Status != approval.Pending {
		t.Errorf("after reopen: %v %v", r, err)
	}
	// The file is not held between transactions: another process (an
	// approvals command beside an MCP stdio server) opens it too.
	if other, err := boltstore.Open(path); err != nil {
		t.Errorf("a second store could not open the file: %v", err)
	} else if r, err := other.Get(context.Background(), "apr_keep"); err != nil || r.ApprovalID != "apr_keep" {
		t.Errorf("the second store reads %v %v", r, err)
	}
}
