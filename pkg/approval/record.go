// Package approval parks proposed writes until a human approves them, then
// applies each exactly once and never over a file that changed (CONTRACT
// §5, §6).
//
// Records live in an approval Store (DynamoDB in AWS, an embedded store
// locally). Every transition is a conditional update on the record's
// version, so of any number of concurrent decisions exactly one wins. An
// approve first claims the record (status approving), then applies the
// change with If-Match / If-None-Match, then records the outcome; an approve
// that died after the write is finished by the next approve once its claim's
// lease has passed, recognising its own write by the content hash.
package approval

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/fault"
)

// Status is where a record stands.
type Status string

// The statuses. Approving is the short-lived claim of an approve in
// progress; every other status but pending is final.
const (
	Pending   Status = "pending"
	Approving Status = "approving"
	Applied   Status = "applied"
	Conflict  Status = "conflict"
	Failed    Status = "failed"
	Rejected  Status = "rejected"
	Expired   Status = "expired"
)

// Statuses lists every status, for validating a filter.
var Statuses = []Status{Pending, Approving, Applied, Conflict, Failed, Rejected, Expired}

// Final reports whether a status is an outcome.
func (s Status) Final() bool { return s != Pending && s != Approving }

// Preview is the unified diff the agent and the approver see.
type Preview struct {
	Diff      string `json:"diff"`
	Truncated bool   `json:"truncated"`
}

// Result is the outcome of an approve.
type Result struct {
	ETag    string       `json:"etag,omitempty"`
	Message string       `json:"message,omitempty"`
	Error   *fault.Error `json:"error,omitempty"`
}

// View is a record as callers see it.
type View struct {
	ApprovalID  string          `json:"approvalId"`
	Status      Status          `json:"status"`
	Tool        string          `json:"tool"`
	Path        string          `json:"path"`
	Arguments   json.RawMessage `json:"arguments"`
	BaseETag    string          `json:"baseEtag"`
	RequestedBy string          `json:"requestedBy"`
	RequestedAt time.Time       `json:"requestedAt"`
	ExpiresAt   time.Time       `json:"expiresAt"`
	DecidedBy   string          `json:"decidedBy,omitempty"`
	DecidedAt   *time.Time      `json:"decidedAt,omitempty"`
	Reason      string          `json:"reason,omitempty"`
	Result      *Result         `json:"result,omitempty"`
	Preview     Preview         `json:"preview"`
}

// Record is one proposed change and its decision: what callers see, and
// after it the internal fields of how to apply the change, which View
// leaves out.
type Record struct {
	View
	Version int64 `json:"version"`

	BaseExists    bool       `json:"baseExists"`
	Delete        bool       `json:"delete,omitempty"`
	Content       []byte     `json:"content,omitempty"`    // inline proposed content (small changes)
	ContentKey    string     `json:"contentKey,omitempty"` // staged proposed content in the system store
	ContentSHA256 string     `json:"contentSha256,omitempty"`
	ContentSize   int64      `json:"contentSize"`
	Message       string     `json:"message,omitempty"` // what an applied change reports
	ClaimedAt     *time.Time `json:"claimedAt,omitempty"`
	// RetainUntil is when the store may remove the record (DynamoDB's TTL):
	// the retention after its decision, or after its expiry while it waits,
	// so the audit trail of who decided what outlives the request.
	RetainUntil time.Time `json:"retainUntil,omitzero"`
}

// View returns the record as callers see it at time now: a pending record
// past its expiry shows as expired even before the store says so.
func (r *Record) ViewAt(now time.Time) View {
	v := r.View
	if r.Status == Pending && !now.Before(r.ExpiresAt) {
		v.Status = Expired
	}
	return v
}

// clone returns a deep enough copy to change and write back.
func (r *Record) clone() *Record {
	c := *r
	return &c
}

// Store is the approval store port. Every method honours ctx.
type Store interface {
	// Create stores a new record with Version 1; ErrExists if the ID is
	// taken. A store whose requests may be retried after they took effect
	// recognises its own write, so a retried create is not a collision.
	Create(ctx context.Context, r *Record) error
	// Get returns a record; ErrNotFound if there is none.
	Get(ctx context.Context, id string) (*Record, error)
	// Update replaces a record if its stored Version is still expect, and
	// stores it with Version expect+1 (r.Version is set to that). Otherwise
	// ErrConflict, and nothing changes. A store whose requests may be
	// retried after they took effect recognises its own write (a token
	// written with it), so a retried update is not a conflict.
	Update(ctx context.Context, r *Record, expect int64) error
	// List returns records of one status, oldest request first, a page of at
	// most limit, and the token of the next page ("" on the last).
	List(ctx context.Context, status Status, limit int, token string) ([]*Record, string, error)
}

// Store errors, tested with errors.Is.
var (
	ErrNotFound = errors.New("approval not found")
	ErrExists   = errors.New("approval already exists")
	ErrConflict = errors.New("approval changed concurrently")
	ErrBadToken = errors.New("invalid page token")
)
