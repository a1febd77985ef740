package transport

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
)

// HTTPHandler serves the Router over net/http for the local server. Every
// request acts as Caller: the local server has no IAM, so the host names the
// identity (callerFor may pick one by path, e.g. an operator for /approvals).
type HTTPHandler struct {
	Router    *Router
	CallerFor func(r *http.Request) toolapi.Caller
}

func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	limit := h.Router.MaxRequestBytes
	var body []byte
	var err error
	if limit > 0 {
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, int64(limit)))
	} else {
		body, err = io.ReadAll(r.Body)
	}
	caller := toolapi.Caller{ID: "local"}
	if h.CallerFor != nil {
		caller = h.CallerFor(r)
	}
	req := Request{Method: r.Method, Path: r.URL.Path, Caller: caller, RequestID: r.Header.Get("X-Request-Id")}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		writeJSON(w, h.Router.Respond(req, TooLarge(limit), time.Now()))
		return
	case err != nil:
		writeJSON(w, h.Router.Respond(req, toolapi.ErrorResult(fault.New(fault.InvalidArgument, "The request body could not be read.").WithCause(err)), time.Now()))
		return
	}
	values, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		writeJSON(w, h.Router.Respond(req, toolapi.ErrorResult(fault.New(fault.InvalidArgument, "The query string is not valid URL encoding.").WithCause(err)), time.Now()))
		return
	}
	query := map[string]string{}
	for k, v := range values {
		if len(v) > 0 {
			query[k] = v[0]
		}
	}
	header := make(map[string]string, len(r.Header))
	for k, v := range r.Header {
		header[k] = v[0]
	}
	req.Query, req.Header, req.Body = query, header, body
	writeJSON(w, h.Router.Serve(r.Context(), req))
}

func writeJSON(w http.ResponseWriter, res Response) {
	w.Header().Set("Content-Type", "application/json")
	if res.Allow != "" {
		w.Header().Set("Allow", res.Allow)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(res.Body)))
	w.WriteHeader(res.Status)
	w.Write(res.Body)
}
