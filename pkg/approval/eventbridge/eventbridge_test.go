package eventbridge_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"

	"github.com/filecontext-aws/filecontext/pkg/approval"
	ebpub "github.com/filecontext-aws/filecontext/pkg/approval/eventbridge"
)

// A stand-in EventBridge endpoint: it reads what the SDK's serializer sends
// (AWS JSON 1.1, X-Amz-Target AWSEvents.PutEvents) and answers as the
// service does.
type standIn struct {
	mu      sync.Mutex
	entries []map[string]any
	fail    bool
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Header.Get("X-Amz-Target") != "AWSEvents.PutEvents" || r.Header.Get("Content-Type") != "application/x-amz-json-1.1" {
		http.Error(w, `{"__type":"UnknownOperationException"}`, http.StatusBadRequest)
		return
	}
	if s.fail {
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"__type":"AccessDeniedException","message":"denied"}`))
		return
	}
	var in struct{ Entries []map[string]any }
	json.Unmarshal(body, &in)
	s.mu.Lock()
	s.entries = append(s.entries, in.Entries...)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Write([]byte(`{"FailedEntryCount":0,"Entries":[{"EventId":"e-1"}]}`))
}

func client(url string) *eventbridge.Client {
	return eventbridge.New(eventbridge.Options{Region: "us-east-1", BaseEndpoint: aws.String(url), RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"}, nil
		})})
}

func TestPublishSendsOneEntryPerTransition(t *testing.T) {
	s := &standIn{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	p := ebpub.New(client(srv.URL), "")
	var errs []error
	p.OnError = func(err error) { errs = append(errs, err) }
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	p.Publish(context.Background(), approval.Event{Transition: "requested", At: at,
		Approval: approval.View{ApprovalID: "apr_1", Status: approval.Pending, Path: "a.md", Tool: "file_access_write"}})
	if len(errs) != 0 || len(s.entries) != 1 {
		t.Fatalf("errors %v, entries %v", errs, s.entries)
	}
	e := s.entries[0]
	if e["Source"] != "filecontext" || e["DetailType"] != "Approval Requested" || e["EventBusName"] != nil {
		t.Errorf("entry %v", e)
	}
	var detail approval.Event
	if err := json.Unmarshal([]byte(e["Detail"].(string)), &detail); err != nil || detail.Approval.ApprovalID != "apr_1" || detail.Transition != "requested" {
		t.Errorf("detail %v %v", e["Detail"], err)
	}
	// A named bus, and a refusal that reaches OnError only.
	ebpub.New(client(srv.URL), "ops").Publish(context.Background(), approval.Event{Transition: "applied"})
	if s.entries[1]["EventBusName"] != "ops" || s.entries[1]["DetailType"] != "Approval Applied" {
		t.Errorf("entry %v", s.entries[1])
	}
	s.fail = true
	p.Publish(context.Background(), approval.Event{Transition: "rejected"})
	if len(errs) != 1 {
		t.Errorf("a refused publish reported %v", errs)
	}
}
