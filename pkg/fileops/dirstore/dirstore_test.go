package dirstore_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/dirstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
)

func open(t *testing.T, dir string) *dirstore.Store {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The store lives two levels down a fresh temporary directory, so the suite
// can check that no hostile key wrote into either parent.
func TestConformance(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "root", "data")
	storetest.RunConformance(t, func(t *testing.T) fileops.Store {
		os.RemoveAll(dir)
		return open(t, dir)
	}, storetest.Capabilities{Outside: []string{filepath.Join(base, "root"), base}})
}

func TestOperations(t *testing.T) {
	storetest.RunOperations(t, func(t *testing.T) fileops.Store { return open(t, t.TempDir()) }, storetest.Capabilities{})
}

func TestLargeSparseObject(t *testing.T) {
	dir := t.TempDir()
	if err := storetest.WriteSparseLarge(filepath.Join(dir, "big.bin")); err != nil {
		t.Fatal(err)
	}
	storetest.RunLargeObject(t, open(t, dir))
}
