// Package dynamostore is the approval store over DynamoDB (aws-sdk-go-v2).
//
// The table has the key approvalId (string), a global secondary index
// "byStatus" (status, requestedKey) for listing by status in request order,
// and TTL on expiresAtEpoch. Each item carries the whole record as JSON in
// "record" beside the attributes the key, the index, the TTL and the
// conditions need. Every write is conditional: a create on the ID being
// free, an update on the stored version; ConditionalCheckFailed maps to
// approval.ErrExists or approval.ErrConflict.
package dynamostore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/filecontext-aws/filecontext/pkg/approval"
)

// IndexName is the status index.
const IndexName = "byStatus"

// Store is an approval.Store over one table.
type Store struct {
	client *dynamodb.Client
	table  string
}

var _ approval.Store = (*Store)(nil)

// New returns a store over table.
func New(client *dynamodb.Client, table string) *Store { return &Store{client: client, table: table} }

func requestedKey(r *approval.Record) string {
	return r.RequestedAt.UTC().Format("2006-01-02T15:04:05.000000000Z") + "#" + r.ApprovalID
}

func item(r *approval.Record) (map[string]types.AttributeValue, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return map[string]types.AttributeValue{
		"approvalId":     &types.AttributeValueMemberS{Value: r.ApprovalID},
		"status":         &types.AttributeValueMemberS{Value: string(r.Status)},
		"requestedKey":   &types.AttributeValueMemberS{Value: requestedKey(r)},
		"version":        &types.AttributeValueMemberN{Value: strconv.FormatInt(r.Version, 10)},
		"expiresAtEpoch": &types.AttributeValueMemberN{Value: strconv.FormatInt(ttl(r).Unix(), 10)},
		"record":         &types.AttributeValueMemberS{Value: string(data)},
		writeToken:       &types.AttributeValueMemberS{Value: rand.Text()},
	}, nil
}

// ttl is when DynamoDB's TTL may remove the item: the record's RetainUntil,
// or for a record written without one, its expiry. The attribute keeps its
// first name, expiresAtEpoch, so deployed tables need no change.
func ttl(r *approval.Record) time.Time {
	if !r.RetainUntil.IsZero() {
		return r.RetainUntil
	}
	return r.ExpiresAt
}

func record(it map[string]types.AttributeValue) (*approval.Record, error) {
	s, ok := it["record"].(*types.AttributeValueMemberS)
	if !ok {
		return nil, errors.New("item has no record")
	}
	var r approval.Record
	if err := json.Unmarshal([]byte(s.Value), &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// Create implements approval.Store.
func (s *Store) Create(ctx context.Context, r *approval.Record) error {
	r.Version = 1
	it, err := item(r)
	if err != nil {
		return err
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: it,
		ConditionExpression: aws.String("attribute_not_exists(approvalId)")})
	if isConditionFailed(err) {
		if s.stored(ctx, r.ApprovalID, it) {
			return nil // our own put, retried after its answer was lost
		}
		return approval.ErrExists
	}
	return err
}

// stored reports whether the table holds this very write under id: the same
// write token. The SDK retries a request whose answer was lost, and a
// conditional put that took effect then fails its condition on the retry.
func (s *Store) stored(ctx context.Context, id string, item map[string]types.AttributeValue) bool {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"approvalId": &types.AttributeValueMemberS{Value: id}}})
	return err == nil && reflect.DeepEqual(out.Item[writeToken], item[writeToken])
}

// writeToken is the attribute holding a random token per write.
const writeToken = "writeToken"

// Get implements approval.Store with a strongly consistent read.
func (s *Store) Get(ctx context.Context, id string) (*approval.Record, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"approvalId": &types.AttributeValueMemberS{Value: id}}})
	if err != nil {
		return nil, err
	}
	if out.Item == nil {
		return nil, approval.ErrNotFound
	}
	return record(out.Item)
}

// Update implements approval.Store.
func (s *Store) Update(ctx context.Context, r *approval.Record, expect int64) error {
	next := *r
	next.Version = expect + 1
	it, err := item(&next)
	if err != nil {
		return err
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: it,
		ConditionExpression:       aws.String("version = :expect"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":expect": &types.AttributeValueMemberN{Value: strconv.FormatInt(expect, 10)}}})
	if isConditionFailed(err) {
		if !s.stored(ctx, r.ApprovalID, it) {
			return approval.ErrConflict
		}
		err = nil // our own put, retried after its answer was lost
	}
	if err == nil {
		r.Version = next.Version
	}
	return err
}

// List implements approval.Store by querying the status index.
func (s *Store) List(ctx context.Context, status approval.Status, limit int, token string) ([]*approval.Record, string, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, IndexName: aws.String(IndexName), Limit: aws.Int32(int32(limit)),
		KeyConditionExpression:    aws.String("#s = :s"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": &types.AttributeValueMemberS{Value: string(status)}}}
	if token != "" {
		var key map[string]string
		b, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil || json.Unmarshal(b, &key) != nil || key["status"] != string(status) {
			return nil, "", approval.ErrBadToken
		}
		in.ExclusiveStartKey = map[string]types.AttributeValue{}
		for k, v := range key {
			in.ExclusiveStartKey[k] = &types.AttributeValueMemberS{Value: v}
		}
	}
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return nil, "", err
	}
	var recs []*approval.Record
	for _, it := range out.Items {
		r, err := record(it)
		if err != nil {
			return nil, "", err
		}
		recs = append(recs, r)
	}
	next := ""
	if len(out.LastEvaluatedKey) > 0 {
		key := map[string]string{}
		for k, v := range out.LastEvaluatedKey {
			if sv, ok := v.(*types.AttributeValueMemberS); ok {
				key[k] = sv.Value
			}
		}
		b, _ := json.Marshal(key)
		next = base64.RawURLEncoding.EncodeToString(b)
	}
	return recs, next, nil
}

// CreateTable creates the approvals table with its index and TTL, for local
// emulators and tests (the CDK app creates it in AWS). An emulator that does
// not implement TTL still gets a usable table.
func CreateTable(ctx context.Context, client *dynamodb.Client, table string) error {
	str := func(name string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeTypeS}
	}
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            &table,
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{str("approvalId"), str("status"), str("requestedKey")},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("approvalId"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String(IndexName),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("status"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("requestedKey"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	if err != nil {
		return err
	}
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 100*time.Millisecond, time.Second
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: &table}, 30*time.Second); err != nil {
		return err
	}
	client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: &table,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expiresAtEpoch"), Enabled: aws.Bool(true)}})
	return nil
}
