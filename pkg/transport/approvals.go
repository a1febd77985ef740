package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
)

// ApprovalRoutes serve CONTRACT §6 for approvers:
//
//	GET  /approvals?status=pending&limit=&nextToken=
//	GET  /approvals/{approvalId}
//	POST /approvals/{approvalId}/approve
//	POST /approvals/{approvalId}/reject     {"reason": "..."}
//
// The approver is the request's caller (the IAM principal behind API
// Gateway), never a value from the body.
type ApprovalRoutes struct {
	Service *approval.Service
}

// Serve implements Handler.
func (a *ApprovalRoutes) Serve(ctx context.Context, req Request) (toolapi.Result, bool) {
	path := strings.TrimSuffix(req.Path, "/")
	if path != "/approvals" && !strings.HasPrefix(path, "/approvals/") {
		return toolapi.Result{}, false
	}
	parts := strings.Split(strings.TrimPrefix(path, "/approvals"), "/")[1:]
	ok := func(v any, err error) (toolapi.Result, bool) {
		if err != nil {
			return toolapi.ErrorResult(err), true
		}
		return toolapi.Result{Status: http.StatusOK, Body: v}, true
	}
	switch {
	case len(parts) == 0 && req.Method == http.MethodGet:
		limit := 0
		if v := req.Query["limit"]; v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return toolapi.ErrorResult(fault.New(fault.InvalidArgument, "limit must be a whole number from 1 to 100, got %q.", v)), true
			}
			limit = n
		}
		return ok(a.Service.List(ctx, req.Query["status"], limit, req.Query["nextToken"]))
	case len(parts) == 1 && req.Method == http.MethodGet:
		return ok(a.Service.Get(ctx, parts[0]))
	case len(parts) == 2 && parts[1] == "approve" && req.Method == http.MethodPost:
		if b := bytes.TrimSpace(req.Body); len(b) > 0 && string(b) != "{}" {
			return toolapi.ErrorResult(fault.New(fault.InvalidArgument,
				"approve takes no body: the approver is the caller's identity and the change is the one parked.")), true
		}
		return ok(a.Service.Approve(ctx, parts[0], req.Caller.ID))
	case len(parts) == 2 && parts[1] == "reject" && req.Method == http.MethodPost:
		var body struct {
			Reason string `json:"reason"`
		}
		if b := bytes.TrimSpace(req.Body); len(b) > 0 {
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&body); err != nil {
				return toolapi.ErrorResult(fault.New(fault.InvalidArgument, `reject takes {"reason": "..."} and nothing else.`)), true
			}
		}
		return ok(a.Service.Reject(ctx, parts[0], req.Caller.ID, body.Reason))
	}
	switch {
	case len(parts) <= 1:
		return MethodNotAllowed(req, http.MethodGet), true
	case len(parts) == 2 && (parts[1] == "approve" || parts[1] == "reject"):
		return MethodNotAllowed(req, http.MethodPost), true
	}
	return toolapi.ErrorResult(fault.New(fault.NotFound, "No route %s %s; the approval routes are GET /approvals, GET /approvals/{id}, POST /approvals/{id}/approve and POST /approvals/{id}/reject.", req.Method, req.Path)), true
}

// ScheduledSweep handles the scheduled events of an EventBridge rule
// (source "aws.events", detail-type "Scheduled Event"): it expires and
// announces the requests nobody decided, and their staged content goes.
func ScheduledSweep(svc *approval.Service, log *slog.Logger) EventHandler {
	return func(ctx context.Context, raw json.RawMessage) (any, bool, error) {
		var e struct {
			Source     string `json:"source"`
			DetailType string `json:"detail-type"`
		}
		if json.Unmarshal(raw, &e) != nil || e.Source != "aws.events" || e.DetailType != "Scheduled Event" {
			return nil, false, nil
		}
		n, err := svc.Sweep(ctx)
		if err != nil {
			log.Error("approval sweep", "error", err.Error())
			return nil, true, err
		}
		log.Info("approval sweep", "expired", n)
		return map[string]int{"expired": n}, true, nil
	}
}
