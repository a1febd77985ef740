//go:build integration

package dynamostore_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/filecontext-aws/filecontext/internal/testenv"
	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/approval/approvaltest"
	"github.com/filecontext-aws/filecontext/pkg/approval/dynamostore"
)

// newTable creates an approvals table with a fresh name.
func newTable(t *testing.T, c *dynamodb.Client) string {
	t.Helper()
	table := testenv.TableName()
	if err := dynamostore.CreateTable(context.Background(), c, table); err != nil {
		t.Fatalf("creating table: %v", err)
	}
	return table
}

func TestConformance(t *testing.T) {
	for _, target := range testenv.DynamoTargets(t) {
		t.Run(target.Name, func(t *testing.T) {
			approvaltest.Run(t, func(t *testing.T) approval.Store {
				return dynamostore.New(target.Client, newTable(t, target.Client))
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

// The TTL attribute follows the record's retention, on both emulators.
func TestTTLFollowsRetention(t *testing.T) {
	ctx := context.Background()
	for _, target := range testenv.DynamoTargets(t) {
		t.Run(target.Name, func(t *testing.T) {
			table := newTable(t, target.Client)
			s := dynamostore.New(target.Client, table)
			now := time.Now().UTC().Truncate(time.Second)
			kept := approvaltest.Record("apr_kept", now)
			kept.RetainUntil = now.Add(90 * 24 * time.Hour)
			old := approvaltest.Record("apr_old", now)
			for _, r := range []*approval.Record{kept, old} {
				if err := s.Create(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			for id, want := range map[string]time.Time{"apr_kept": kept.RetainUntil, "apr_old": old.ExpiresAt} {
				out, err := target.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table,
					Key: map[string]types.AttributeValue{"approvalId": &types.AttributeValueMemberS{Value: id}}})
				if err != nil {
					t.Fatal(err)
				}
				n, _ := out.Item["expiresAtEpoch"].(*types.AttributeValueMemberN)
				if n == nil || n.Value != strconv.FormatInt(want.Unix(), 10) {
					t.Errorf("%s: TTL %v, want %d", id, out.Item["expiresAtEpoch"], want.Unix())
				}
			}
		})
	}
}

// loseAnswers passes requests on, but loses the answer of the first
// request of each listed DynamoDB operation after the emulator applied it:
// the SDK then retries a write that already took effect.
type loseAnswers struct {
	next http.RoundTripper
	mu   sync.Mutex
	lose map[string]bool // X-Amz-Target suffix -> still to lose
}

func (l *loseAnswers) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(r)
	op := r.Header.Get("X-Amz-Target")
	op = op[strings.LastIndexByte(op, '.')+1:]
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil && l.lose[op] {
		l.lose[op] = false
		resp.Body.Close()
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	}
	return resp, err
}

// TestRetriedWritesAreNotConflicts: a create and an update whose answers
// are lost after they took effect are retried by the SDK; the store
// recognises its own writes by their token and reports success, not a
// collision or a conflict.
func TestRetriedWritesAreNotConflicts(t *testing.T) {
	ctx := context.Background()
	for _, target := range testenv.DynamoTargets(t) {
		t.Run(target.Name, func(t *testing.T) {
			table := newTable(t, target.Client)
			lossy := &loseAnswers{next: http.DefaultTransport, lose: map[string]bool{"PutItem": true}}
			client := dynamodb.New(target.Client.Options(), func(o *dynamodb.Options) { o.HTTPClient = &http.Client{Transport: lossy} })
			s := dynamostore.New(client, table)
			base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
			r := approvaltest.Record("apr_retried", base)
			if err := s.Create(ctx, r); err != nil {
				t.Fatalf("a create retried after it took effect: %v", err)
			}
			lossy.mu.Lock()
			lost := !lossy.lose["PutItem"]
			lossy.lose["PutItem"] = true
			lossy.mu.Unlock()
			if !lost {
				t.Fatal("no answer was lost: the test did not retry")
			}
			r.Status = approval.Rejected
			if err := s.Update(ctx, r, 1); err != nil || r.Version != 2 {
				t.Fatalf("an update retried after it took effect: %v (version %d)", err, r.Version)
			}
			got, err := s.Get(ctx, "apr_retried")
			if err != nil || got.Status != approval.Rejected || got.Version != 2 {
				t.Errorf("stored %+v %v", got, err)
			}
			// Another writer's record is still a collision, a stale update a conflict.
			if err := dynamostore.New(target.Client, table).Create(ctx, approvaltest.Record("apr_retried", base)); !errors.Is(err, approval.ErrExists) {
				t.Errorf("another create under the id: %v", err)
			}
			if err := s.Update(ctx, r, 1); !errors.Is(err, approval.ErrConflict) {
				t.Errorf("a stale update: %v", err)
			}
		})
	}
}
