//go:build integration

package approval_test

import (
	"context"
	"testing"

	"github.com/filecontext-aws/filecontext/internal/testenv"
	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/approval/dynamostore"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/s3store"
)

// TestFlowsOnEmulators runs every approval flow with the records in DynamoDB
// (moto server, then dynalite) and the files and staged content in S3
// (versitygw).
func TestFlowsOnEmulators(t *testing.T) {
	s3 := testenv.Versitygw(t)
	for _, dyn := range testenv.DynamoTargets(t) {
		t.Run(dyn.Name+"+versitygw", func(t *testing.T) {
			RunFlows(t, Backend{
				Name: dyn.Name,
				Approvals: func(t *testing.T) approval.Store {
					table := testenv.TableName()
					if err := dynamostore.CreateTable(context.Background(), dyn.Client, table); err != nil {
						t.Fatal(err)
					}
					return dynamostore.New(dyn.Client, table)
				},
				Data: func(t *testing.T) fileops.Store { return s3store.New(s3.Client, testenv.NewBucket(t, s3.Client)) },
			})
		})
	}
}
