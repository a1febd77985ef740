//go:build integration

package dynamostore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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

func TestMalformedItemsAndTables(t *testing.T) {
	ctx := context.Background()
	target := testenv.DynamoTargets(t)[0]
	table := testenv.TableName()
	if err := dynamostore.CreateTable(ctx, target.Client, table); err != nil {
		t.Fatal(err)
	}
	if err := dynamostore.CreateTable(ctx, target.Client, table); err == nil {
		t.Error("a second table of the same name was created")
	}
	s := dynamostore.New(target.Client, table)
	for id, item := range map[string]map[string]types.AttributeValue{
		"apr_norecord": {"approvalId": &types.AttributeValueMemberS{Value: "apr_norecord"}},
		"apr_badjson":  {"approvalId": &types.AttributeValueMemberS{Value: "apr_badjson"}, "record": &types.AttributeValueMemberS{Value: "{"}},
	} {
		if _, err := target.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, id); err == nil {
			t.Errorf("%s read", id)
		}
	}
	if _, _, err := s.List(ctx, approval.Pending, 10, "eyJzdGF0dXMiOiJhcHBsaWVkIn0"); !errors.Is(err, approval.ErrBadToken) {
		t.Errorf("a token of another status: %v", err)
	}
	missing := dynamostore.New(target.Client, "fc-no-such-table")
	if err := missing.Create(ctx, approvaltest.Record("apr_1", time.Now())); err == nil {
		t.Error("a create into a missing table succeeded")
	}
	if err := missing.Update(ctx, approvaltest.Record("apr_1", time.Now()), 1); err == nil {
		t.Error("an update in a missing table succeeded")
	}
	if _, _, err := missing.List(ctx, approval.Pending, 10, ""); err == nil {
		t.Error("a listing of a missing table succeeded")
	}
}
