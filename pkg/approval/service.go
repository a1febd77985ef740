package approval

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

// Options configure a Service.
type Options struct {
	Store   Store
	Files   *fileops.Service
	Staging fileops.Store // the system store, for proposed content over InlineBytes
	// StagingPrefix starts the keys of staged content ("staged/" by default).
	StagingPrefix string
	TTL           time.Duration // how long a request waits (24 h by default)
	// Retention is how long a record is kept after its decision (or its
	// expiry) before the store may remove it (90 days by default).
	Retention time.Duration
	// Lease is how long an approve in progress holds its claim; after it, the
	// next approve finishes the change (5 minutes by default, above any
	// function timeout).
	Lease            time.Duration
	AllowSelfApprove bool
	InlineBytes      int // proposed content kept in the record (4 KiB by default)
	PreviewBytes     int // the diff preview budget (16 KiB by default)
	MaxReasonBytes   int // a rejection reason (1,000 by default)
	Now              func() time.Time
	// AfterWrite, when set, runs after the file is written and before the
	// outcome is recorded: a test hook to kill an approve midway.
	AfterWrite func(r *Record) error
	// Events, when set, is told of every transition, once (best effort).
	Events Events
}

// Service parks, approves, rejects and lists proposed changes.
type Service struct{ o Options }

// New returns a Service with defaults filled in.
func New(o Options) (*Service, error) {
	if o.Store == nil || o.Files == nil || o.Staging == nil {
		return nil, errors.New("approval: a store, the file service and a staging store are required")
	}
	if o.StagingPrefix == "" {
		o.StagingPrefix = "staged/"
	}
	if o.TTL <= 0 {
		o.TTL = 24 * time.Hour
	}
	if o.Retention <= 0 {
		o.Retention = 90 * 24 * time.Hour
	}
	if o.Lease <= 0 {
		o.Lease = 5 * time.Minute
	}
	if o.InlineBytes <= 0 {
		o.InlineBytes = 4 << 10
	}
	if o.PreviewBytes <= 0 {
		o.PreviewBytes = 16 << 10
	}
	if o.MaxReasonBytes <= 0 {
		o.MaxReasonBytes = 1000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{o: o}, nil
}

// Parked is what a parked write answers (202).
type Parked struct {
	Status     string    `json:"status"` // "pending_approval"
	ApprovalID string    `json:"approvalId"`
	Tool       string    `json:"tool"`
	Path       string    `json:"path"`
	BaseETag   string    `json:"baseEtag"`
	ExpiresAt  time.Time `json:"expiresAt"`
	Preview    Preview   `json:"preview"`
	Message    string    `json:"message"`
}

func (s *Service) now() time.Time { return s.o.Now().UTC().Truncate(time.Millisecond) }

// Park stores a checked change for approval: the proposed content (inline or
// staged), its hash, a unified diff, and the record. args are the tool's
// arguments; large ones are kept as a summary.
func (s *Service) Park(ctx context.Context, c *fileops.Change, requester string, args []byte) (any, error) {
	id := "apr_" + strings.ToLower(rand.Text()[:20])
	now := s.now()
	r := &Record{View: View{ApprovalID: id, Status: Pending, Tool: c.Tool, Path: c.Path.String(), BaseETag: c.BaseETag,
		RequestedBy: requester, RequestedAt: now, ExpiresAt: now.Add(s.o.TTL)}, BaseExists: c.Exists, Delete: c.Delete, Message: c.Message}
	r.RetainUntil = r.ExpiresAt.Add(s.o.Retention)
	if len(args) <= s.o.InlineBytes && json.Valid(args) {
		r.Arguments = json.RawMessage(args)
	} else {
		r.Arguments, _ = json.Marshal(map[string]any{"summary": fmt.Sprintf("%d bytes of arguments, not kept; see the preview", len(args))})
	}
	if !c.Delete {
		sum := sha256.Sum256(c.Content)
		r.ContentSHA256, r.ContentSize = hex.EncodeToString(sum[:]), int64(len(c.Content))
		if len(c.Content) <= s.o.InlineBytes {
			r.Content = append([]byte{}, c.Content...)
		} else {
			r.ContentKey = s.o.StagingPrefix + id
			if _, err := s.o.Staging.Put(ctx, r.ContentKey, c.Content, fileops.PutOptions{IfNoneMatch: "*", ContentType: "application/octet-stream"}); err != nil {
				return nil, stagingErr(err)
			}
		}
	}
	old := c.Old
	if old == nil && c.Exists {
		old = s.readOld(ctx, c)
	}
	r.Preview = s.diff(c, old)
	if err := s.o.Store.Create(ctx, r); err != nil {
		s.dropStaged(ctx, r)
		return nil, storeErr(err, id)
	}
	s.announce(ctx, "requested", r)
	return &Parked{Status: "pending_approval", ApprovalID: id, Tool: r.Tool, Path: r.Path, BaseETag: r.BaseETag,
		ExpiresAt: r.ExpiresAt, Preview: r.Preview,
		Message: "The change waits for a human approver; poll file_context_approval_status with approvalId " + id + "."}, nil
}

// readOld reads the content a change was computed from, for the diff, when
// it is still that version and text of readable size; nil otherwise.
func (s *Service) readOld(ctx context.Context, c *fileops.Change) []byte {
	obj, err := s.o.Files.Store().Get(ctx, c.Path.Key(), fileops.GetOptions{Length: s.o.Files.Limits().MaximumFullReadBytes + 1, IfMatch: c.BaseETag})
	if err != nil {
		return nil
	}
	defer obj.Body.Close()
	if obj.Info.Size > s.o.Files.Limits().MaximumFullReadBytes {
		return nil
	}
	b, err := io.ReadAll(obj.Body)
	if err != nil || !utf8.Valid(b) {
		return nil
	}
	return b
}

// diff renders the change as a unified diff within the preview budget.
func (s *Service) diff(c *fileops.Change, old []byte) Preview {
	name := c.Path.String()
	var d string
	switch {
	case c.Exists && old == nil:
		d = fmt.Sprintf("--- a/%s\n+++ b/%s\n(the current content is not shown: binary or over the read limit)\n", name, name)
		if !c.Delete {
			d += udiff.Unified("a/"+name, "b/"+name, "", string(c.Content))
		}
	case c.Delete:
		d = udiff.Unified("a/"+name, "/dev/null", string(old), "")
	case !c.Exists:
		d = udiff.Unified("/dev/null", "b/"+name, "", string(c.Content))
	default:
		d = udiff.Unified("a/"+name, "b/"+name, string(old), string(c.Content))
	}
	if len(d) <= s.o.PreviewBytes {
		return Preview{Diff: d}
	}
	cut := s.o.PreviewBytes
	for cut > 0 && !utf8.RuneStart(d[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(d[:cut], '\n'); nl > 0 {
		cut = nl + 1
	}
	return Preview{Diff: d[:cut], Truncated: true}
}

// Get returns a record's view.
func (s *Service) Get(ctx context.Context, id string) (*View, error) {
	r, err := s.load(ctx, id)
	if err != nil {
		return nil, err
	}
	v := r.ViewAt(s.now())
	return &v, nil
}

// Status is Get for the agent's tool: an unknown id is not_found.
func (s *Service) Status(ctx context.Context, id string) (any, error) { return s.Get(ctx, id) }

func (s *Service) load(ctx context.Context, id string) (*Record, error) {
	if id == "" || len(id) > 100 {
		return nil, fault.New(fault.InvalidArgument, "approvalId must be 1 to 100 characters.")
	}
	r, err := s.o.Store.Get(ctx, id)
	if err != nil {
		return nil, storeErr(err, id)
	}
	return r, nil
}

// conflictWith is the 409 of a decision that lost, with the current record.
func (s *Service) conflictWith(r *Record, format string, args ...any) error {
	v := r.ViewAt(s.now())
	return fault.New(fault.Conflict, format, args...).With("approval", v)
}

// Approve applies a pending change as approver. Exactly one of any number of
// concurrent approvals wins; the others get conflict with the current record.
func (s *Service) Approve(ctx context.Context, id, approver string) (*View, error) {
	r, err := s.load(ctx, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	switch r.Status {
	case Pending:
		if !now.Before(r.ExpiresAt) {
			return nil, s.expire(ctx, r)
		}
	case Approving:
		if r.ClaimedAt != nil && now.Sub(*r.ClaimedAt) < s.o.Lease {
			return nil, s.conflictWith(r, "Approval %s is being applied by %s.", id, r.DecidedBy)
		}
		// The claim's lease passed: the approve that held it died. Finish it.
	default:
		return nil, s.conflictWith(r, "Approval %s is %s, not pending.", id, r.Status)
	}
	if approver == r.RequestedBy && !s.o.AllowSelfApprove {
		return nil, fault.New(fault.Forbidden, "%s requested this change and cannot approve it; another approver must.", approver).With("approvalId", id)
	}
	claim := r.clone()
	claim.Status, claim.DecidedBy, claim.DecidedAt, claim.ClaimedAt = Approving, approver, &now, &now
	claim.RetainUntil = now.Add(s.o.Retention)
	if err := s.o.Store.Update(ctx, claim, r.Version); err != nil {
		return nil, s.lost(ctx, id, err)
	}
	return s.finish(ctx, claim)
}

// lost turns a failed conditional update into conflict with the record as
// it now is.
func (s *Service) lost(ctx context.Context, id string, err error) error {
	if !errors.Is(err, ErrConflict) {
		return storeErr(err, id)
	}
	cur, gerr := s.o.Store.Get(ctx, id)
	if gerr != nil {
		return storeErr(gerr, id)
	}
	return s.conflictWith(cur, "Approval %s was decided concurrently; it is now %s.", id, cur.ViewAt(s.now()).Status)
}

// finish applies a claimed change and records the outcome.
func (s *Service) finish(ctx context.Context, r *Record) (*View, error) {
	out := r.clone()
	out.Result = &Result{}
	out.RetainUntil = s.now().Add(s.o.Retention)
	p, err := s.o.Files.Root().Parse(r.Path)
	if err != nil {
		return nil, err
	}
	change := &fileops.Change{Tool: r.Tool, Path: p, Exists: r.BaseExists, BaseETag: r.BaseETag, Delete: r.Delete, Message: r.Message}
	if !r.Delete {
		if change.Content, err = s.content(ctx, r); err != nil {
			return nil, err
		}
	}
	applied, err := s.o.Files.Apply(ctx, change)
	switch {
	case err == nil:
		out.Status, out.Result.ETag, out.Result.Message = Applied, applied.ETag, applied.Message
		if s.o.AfterWrite != nil {
			if err := s.o.AfterWrite(out); err != nil {
				return nil, err
			}
		}
	case fault.CodeOf(err) == fault.Conflict:
		if etag, ok := s.inPlace(ctx, p, r); ok {
			// A previous approve wrote it and died before recording it.
			out.Status, out.Result.ETag, out.Result.Message = Applied, etag, r.Message
		} else {
			out.Status, out.Result.Error = Conflict, fault.As(err)
		}
	case fault.CodeOf(err) == fault.Timeout:
		return nil, err // the claim stays; the next approve after the lease finishes it
	default:
		out.Status, out.Result.Error = Failed, fault.As(err)
	}
	if err := s.o.Store.Update(ctx, out, r.Version); err != nil {
		return nil, s.lost(ctx, r.ApprovalID, err)
	}
	s.dropStaged(ctx, out)
	s.announce(ctx, string(out.Status), out)
	if out.Status == Conflict {
		// The approve was refused by the file, not by the record: 409, with
		// the record (now conflict) for the approver to read.
		return nil, s.conflictWith(out, "File '%s' changed since the change was computed; it was not overwritten, and approval %s is now conflict.", r.Path, r.ApprovalID)
	}
	v := out.ViewAt(s.now())
	return &v, nil
}

// dropStaged removes a record's staged content once nothing can need it
// again: the record is decided, expired, or was never stored. Best effort:
// a failure leaves the content to the staging area's own expiry.
func (s *Service) dropStaged(ctx context.Context, r *Record) {
	if r.ContentKey != "" {
		_ = s.o.Staging.Delete(context.WithoutCancel(ctx), r.ContentKey, fileops.DeleteOptions{})
	}
}

// inPlace reports whether the file already holds the proposed change.
func (s *Service) inPlace(ctx context.Context, p pathsafe.Path, r *Record) (string, bool) {
	if r.Delete {
		_, err := s.o.Files.Store().Head(ctx, p.Key())
		return "", errors.Is(err, fileops.ErrNotFound)
	}
	obj, err := s.o.Files.Store().Get(ctx, p.Key(), fileops.GetOptions{Length: r.ContentSize + 1})
	if err != nil {
		return "", false
	}
	defer obj.Body.Close()
	if obj.Info.Size != r.ContentSize {
		return "", false
	}
	h := sha256.New()
	if _, err := io.Copy(h, obj.Body); err != nil {
		return "", false
	}
	return obj.Info.ETag, hex.EncodeToString(h.Sum(nil)) == r.ContentSHA256
}

// content returns the proposed content, checked against its hash.
func (s *Service) content(ctx context.Context, r *Record) ([]byte, error) {
	b := r.Content
	if r.ContentKey != "" {
		obj, err := s.o.Staging.Get(ctx, r.ContentKey, fileops.GetOptions{Length: -1})
		if err != nil {
			return nil, stagingErr(err)
		}
		defer obj.Body.Close()
		if b, err = io.ReadAll(obj.Body); err != nil {
			return nil, stagingErr(err)
		}
	}
	if b == nil {
		b = []byte{}
	}
	sum := sha256.Sum256(b)
	if hex.EncodeToString(sum[:]) != r.ContentSHA256 {
		return nil, fault.New(fault.Internal, "internal error").WithCause(fmt.Errorf("staged content of %s does not match its hash", r.ApprovalID))
	}
	return b, nil
}

// expire records a pending record past its time as expired and answers the
// conflict a decision on it gets.
func (s *Service) expire(ctx context.Context, r *Record) error {
	e := r.clone()
	e.Status = Expired
	e.RetainUntil = s.now().Add(s.o.Retention)
	if err := s.o.Store.Update(ctx, e, r.Version); err != nil {
		return s.lost(ctx, r.ApprovalID, err)
	}
	s.dropStaged(ctx, e)
	s.announce(ctx, "expired", e)
	return s.conflictWith(e, "Approval %s expired at %s.", r.ApprovalID, r.ExpiresAt.Format(time.RFC3339))
}

// Reject declines a pending change. The requester may withdraw their own.
func (s *Service) Reject(ctx context.Context, id, approver, reason string) (*View, error) {
	if len(reason) > s.o.MaxReasonBytes {
		return nil, fault.Limit("maximumReasonBytes", s.o.MaxReasonBytes, "reason is %d bytes, over the limit of %d.", len(reason), s.o.MaxReasonBytes)
	}
	r, err := s.load(ctx, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	if r.Status != Pending {
		return nil, s.conflictWith(r, "Approval %s is %s, not pending.", id, r.Status)
	}
	if !now.Before(r.ExpiresAt) {
		return nil, s.expire(ctx, r)
	}
	d := r.clone()
	d.Status, d.DecidedBy, d.DecidedAt, d.Reason = Rejected, approver, &now, reason
	d.RetainUntil = now.Add(s.o.Retention)
	if err := s.o.Store.Update(ctx, d, r.Version); err != nil {
		return nil, s.lost(ctx, id, err)
	}
	s.dropStaged(ctx, d)
	s.announce(ctx, "rejected", d)
	v := d.ViewAt(now)
	return &v, nil
}

// Sweep records every pending request past its expiry as expired and
// removes its staged content, a page of up to 100 at a time, until none is
// left or ctx ends. It returns how many it expired. Hosts run it on a
// schedule, so content of requests nobody looks at again does not stay.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	n, token := 0, ""
	for {
		recs, next, err := s.o.Store.List(ctx, Pending, 100, token)
		if err != nil {
			return n, storeErr(err, "")
		}
		now := s.now()
		for _, r := range recs {
			if r.Status == Pending && !now.Before(r.ExpiresAt) {
				if fault.CodeOf(s.expire(ctx, r)) == fault.Conflict {
					n++
				}
			}
		}
		if token = next; token == "" {
			return n, nil
		}
	}
}

// Page is one page of a listing.
type Page struct {
	Approvals []View `json:"approvals"`
	NextToken string `json:"nextToken,omitempty"`
}

// List lists records of one status (pending by default), oldest first. A
// pending record past its expiry is listed as expired under expired, not
// under pending.
func (s *Service) List(ctx context.Context, status string, limit int, token string) (*Page, error) {
	st := Status(status)
	if status == "" {
		st = Pending
	}
	if !slices.Contains(Statuses, st) {
		return nil, fault.New(fault.InvalidArgument, "status must be one of pending, approving, applied, conflict, failed, rejected, expired; got %q.", status)
	}
	if limit == 0 {
		limit = 50
	}
	if limit < 1 || limit > 100 {
		return nil, fault.New(fault.InvalidArgument, "limit must be 1 to 100, got %d.", limit)
	}
	now := s.now()
	page := &Page{Approvals: []View{}}
	recs, next, err := s.o.Store.List(ctx, st, limit, token)
	if err != nil {
		if errors.Is(err, ErrBadToken) {
			return nil, fault.New(fault.InvalidArgument, "nextToken is not one this service issued.")
		}
		return nil, storeErr(err, "")
	}
	for _, r := range recs {
		if v := r.ViewAt(now); v.Status == st {
			page.Approvals = append(page.Approvals, v)
		}
	}
	page.NextToken = next
	if st == Expired { // also those still stored as pending
		more, _, err := s.o.Store.List(ctx, Pending, 100, "")
		if err == nil {
			for _, r := range more {
				if v := r.ViewAt(now); v.Status == Expired && len(page.Approvals) < limit {
					page.Approvals = append(page.Approvals, v)
				}
			}
		}
	}
	return page, nil
}

func storeErr(err error, id string) error {
	switch {
	case errors.Is(err, ErrNotFound):
		return fault.New(fault.NotFound, "Approval '%s' was not found.", id).With("approvalId", id)
	case errors.Is(err, ErrConflict), errors.Is(err, ErrExists):
		return fault.New(fault.Conflict, "Approval '%s' changed concurrently; read it again.", id).With("approvalId", id)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return fault.As(err)
	}
	var fe *fault.Error
	if errors.As(err, &fe) {
		return fe
	}
	return fault.New(fault.StorageError, "The approval store failed.").WithCause(err)
}

func stagingErr(err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fault.As(err)
	}
	return fault.New(fault.StorageError, "The system store failed to keep the proposed content.").WithCause(err)
}
