package dirstore_test

import (
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/dirstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
)

func newStore(t *testing.T) fileops.Store {
	s, err := dirstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.RunConformance(t, newStore, storetest.Capabilities{})
}
