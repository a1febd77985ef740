//go:build integration

package dynamostore_test

import (
	"context"
	"testing"

	"github.com/filecontext-aws/filecontext/internal/testenv"
	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/approval/approvaltest"
	"github.com/filecontext-aws/filecontext/pkg/approval/dynamostore"
)

func TestConformance(t *testing.T) {
	for _, target := range testenv.DynamoTargets(t) {
		t.Run(target.Name, func(t *testing.T) {
			approvaltest.Run(t, func(t *testing.T) approval.Store {
				table := testenv.TableName()
				if err := dynamostore.CreateTable(context.Background(), target.Client, table); err != nil {
					t.Fatalf("creating table: %v", err)
				}
				return dynamostore.New(target.Client, table)
			})
		})
	}
}
