//go:build integration

package mdkb_test

import (
	"testing"

	"github.com/filecontext-aws/filecontext/internal/testenv"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/s3store"
)

// TestFreshnessOnS3 runs the freshness checks with the data and the
// snapshots in S3: versitygw, then moto server.
func TestFreshnessOnS3(t *testing.T) {
	for _, target := range testenv.S3Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			runFreshness(t, func(t *testing.T) fileops.Store {
				return s3store.New(target.Client, testenv.NewBucket(t, target.Client))
			})
		})
	}
}
