package memstore_test

import (
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
)

func TestConformance(t *testing.T) {
	storetest.RunConformance(t, func(t *testing.T) fileops.Store { return memstore.New() },
		storetest.Capabilities{LiteralKeys: true, FileAndPrefix: true})
}

func TestOperations(t *testing.T) {
	storetest.RunOperations(t, func(t *testing.T) fileops.Store { return memstore.New() },
		storetest.Capabilities{LiteralKeys: true, FileAndPrefix: true})
}
