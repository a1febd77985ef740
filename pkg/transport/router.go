// Package transport serves the tool layer over plain HTTP (the local
// server), API Gateway REST proxy events and Bedrock action-group events.
// Each adapter turns its request into a Request for the Router and the
// Router's Response back into its own shape; the Router owns routing, the
// request size limit, the deadline budget and the one log line per call.
package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
)

// Request is a transport-neutral API request.
type Request struct {
	Method    string
	Path      string // e.g. "/tools/file_access_read"
	Query     map[string]string
	Header    map[string]string // canonical names; the routes that read headers (MCP) use them
	Body      []byte
	Caller    toolapi.Caller
	RequestID string
}

// RawJSON is a result body that is already JSON (or empty, for a 202 with
// no body): the Router sends it as it is.
type RawJSON []byte

// Response is a status and a JSON body.
type Response struct {
	Status int
	Body   []byte
	// Result is the tool result behind the body, when there is one.
	Result toolapi.Result
	// Allow is the Allow header of a 405 answer: the methods of the route.
	Allow string
}

// Budget is the deadline rule: one deadline per invocation, the earlier of
// OperationTimeout (0: none) and the caller's deadline less ResponseMargin,
// shared by every internal step.
type Budget struct {
	OperationTimeout time.Duration
	ResponseMargin   time.Duration
}

// Context derives the invocation's context.
func (b Budget) Context(ctx context.Context) (context.Context, context.CancelFunc) {
	var deadline time.Time
	if b.OperationTimeout > 0 {
		deadline = time.Now().Add(b.OperationTimeout)
	}
	if d, ok := ctx.Deadline(); ok {
		if d = d.Add(-b.ResponseMargin); deadline.IsZero() || d.Before(deadline) {
			deadline = d
		}
	}
	if deadline.IsZero() {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, deadline)
}

// Handler serves one extra route family (for example /approvals).
type Handler interface {
	// Serve answers a request, or reports ok=false when the path is not its own.
	Serve(ctx context.Context, req Request) (toolapi.Result, bool)
}

// Router routes API requests to the tool layer.
type Router struct {
	Tools           *toolapi.Server // nil serves no /tools routes (the approve function)
	Title           string
	MaxRequestBytes int
	Budget          Budget
	Log             *slog.Logger
	// Extra route families, tried in order before answering not_found.
	Extra []Handler
}

// Serve answers one request within the deadline budget: a store that ignores
// cancellation cannot hold the answer past the deadline.
func (r *Router) Serve(ctx context.Context, req Request) Response {
	start := time.Now()
	ctx, cancel := r.Budget.Context(ctx)
	defer cancel()
	done := make(chan toolapi.Result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- toolapi.ErrorResult(fault.New(fault.Internal, "internal error").WithCause(fmt.Errorf("panic: %v\n%s", p, debug.Stack())))
			}
		}()
		done <- r.route(ctx, req)
	}()
	var res toolapi.Result
	select {
	case res = <-done:
	case <-ctx.Done():
		res = toolapi.ErrorResult(ctx.Err())
	}
	return r.Respond(req, res, start)
}

// Respond encodes a result and logs the call once.
func (r *Router) Respond(req Request, res toolapi.Result, start time.Time) Response {
	if raw, ok := res.Body.(RawJSON); ok {
		r.logCall(req, res, time.Since(start))
		return Response{Status: res.Status, Body: raw, Result: res}
	}
	body, err := marshal(res.Body)
	if err != nil {
		res = toolapi.ErrorResult(fault.New(fault.Internal, "internal error").WithCause(err))
		body, _ = marshal(res.Body)
	}
	r.logCall(req, res, time.Since(start))
	out := Response{Status: res.Status, Body: body, Result: res}
	if res.Err != nil && res.Err.Code == fault.MethodNotAllowed {
		out.Allow, _ = res.Err.Details["allow"].(string)
	}
	return out
}

// MethodNotAllowed is the 405 answer for a known route asked with another
// method; allow lists the route's methods, for the Allow header.
func MethodNotAllowed(req Request, allow string) toolapi.Result {
	return toolapi.ErrorResult(fault.New(fault.MethodNotAllowed, "%s does not take %s; use %s.", req.Path, req.Method, allow).With("allow", allow))
}

func (r *Router) route(ctx context.Context, req Request) toolapi.Result {
	if r.MaxRequestBytes > 0 && len(req.Body) > r.MaxRequestBytes {
		return TooLarge(r.MaxRequestBytes)
	}
	if err := checkBodyText(req.Body); err != nil {
		return toolapi.ErrorResult(err)
	}
	path := strings.TrimSuffix(req.Path, "/")
	switch {
	case r.Tools == nil:
	case path == "/tools" && req.Method == http.MethodGet:
		return toolapi.Result{Status: http.StatusOK, Body: r.Tools.Catalog()}
	case path == "/openapi.json" && req.Method == http.MethodGet && req.Query["group"] != "":
		doc, err := r.Tools.GroupOpenAPI(r.Title, req.Query["group"])
		if err != nil {
			return toolapi.ErrorResult(err)
		}
		return toolapi.Result{Status: http.StatusOK, Body: doc}
	case path == "/openapi.json" && req.Method == http.MethodGet:
		return toolapi.Result{Status: http.StatusOK, Body: r.Tools.OpenAPI(r.Title)}
	case strings.HasPrefix(path, "/tools/") && req.Method == http.MethodPost:
		return r.Tools.Call(ctx, req.Caller, strings.TrimPrefix(path, "/tools/"), req.Body)
	}
	for _, h := range r.Extra {
		if res, ok := h.Serve(ctx, req); ok {
			return res
		}
	}
	if r.Tools != nil {
		switch {
		case path == "/tools", path == "/openapi.json":
			return MethodNotAllowed(req, http.MethodGet)
		case strings.HasPrefix(path, "/tools/") && !strings.Contains(strings.TrimPrefix(path, "/tools/"), "/"):
			return MethodNotAllowed(req, http.MethodPost)
		}
	}
	return toolapi.ErrorResult(fault.New(fault.NotFound, "No route %s %s; the API has GET /tools, GET /openapi.json and POST /tools/{toolName}.", req.Method, req.Path))
}

// TooLarge is the request_too_large answer.
func TooLarge(limit int) toolapi.Result {
	return toolapi.ErrorResult(fault.New(fault.RequestTooLarge, "The request body is over the limit of %d bytes.", limit).
		With("limit", "maxRequestBytes").With("value", limit))
}

func (r *Router) logCall(req Request, res toolapi.Result, d time.Duration) {
	if r.Log == nil {
		return
	}
	attrs := []any{"requestId", req.RequestID, "method", req.Method, "path", req.Path, "caller", req.Caller.ID,
		"status", res.Status, "durationMs", float64(d.Microseconds()) / 1000}
	level := slog.LevelInfo
	if res.Err != nil {
		attrs = append(attrs, "code", string(res.Err.Code))
		if res.Status >= 500 {
			level = slog.LevelError
			if c := res.Err.Cause(); c != nil {
				attrs = append(attrs, "cause", c.Error())
			}
		}
	}
	r.Log.Log(context.Background(), level, "call", attrs...)
}

// marshal encodes JSON without HTML escaping, so '<', '>' and '&' in file
// content and exports reach the agent as they are.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
