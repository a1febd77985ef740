// Package fault is the project's one error vocabulary (CONTRACT §3).
//
// Every failure a caller can see is an *Error with a Code from the table below,
// a message that is safe to show (it never names a bucket or a root prefix),
// the logical path it concerns, and optional details. Transports map a Code to
// an HTTP status, a Bedrock response state or a CLI exit code through the
// tables in this package, so no adapter invents its own.
package fault

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// Code names a kind of failure. The set is closed: use the constants.
type Code string

// The codes of CONTRACT §3.
const (
	InvalidArgument    Code = "invalid_argument"
	InvalidPath        Code = "invalid_path"
	InvalidPattern     Code = "invalid_pattern"
	WriteToolsDisabled Code = "write_tools_disabled"
	Forbidden          Code = "forbidden"
	NotFound           Code = "not_found"
	UnknownTool        Code = "unknown_tool"
	AlreadyExists      Code = "already_exists"
	Conflict           Code = "conflict"
	RequestTooLarge    Code = "request_too_large"
	MethodNotAllowed   Code = "method_not_allowed"
	LimitExceeded      Code = "limit_exceeded"
	EditRejected       Code = "edit_rejected"
	BinaryContent      Code = "binary_content"
	NoMarkdown         Code = "no_markdown"
	StorageError       Code = "storage_error"
	Timeout            Code = "timeout"
	Internal           Code = "internal"
)

// statusByCode is the one table from code to HTTP status.
var statusByCode = map[Code]int{
	InvalidArgument:    http.StatusBadRequest,
	InvalidPath:        http.StatusBadRequest,
	InvalidPattern:     http.StatusBadRequest,
	WriteToolsDisabled: http.StatusForbidden,
	Forbidden:          http.StatusForbidden,
	NotFound:           http.StatusNotFound,
	UnknownTool:        http.StatusNotFound,
	AlreadyExists:      http.StatusConflict,
	Conflict:           http.StatusConflict,
	RequestTooLarge:    http.StatusRequestEntityTooLarge,
	MethodNotAllowed:   http.StatusMethodNotAllowed,
	LimitExceeded:      http.StatusUnprocessableEntity,
	EditRejected:       http.StatusUnprocessableEntity,
	BinaryContent:      http.StatusUnprocessableEntity,
	NoMarkdown:         http.StatusUnprocessableEntity,
	StorageError:       http.StatusBadGateway,
	Timeout:            http.StatusGatewayTimeout,
	Internal:           http.StatusInternalServerError,
}

// Codes lists every code, in the order of the contract's table.
func Codes() []Code {
	return []Code{InvalidArgument, InvalidPath, InvalidPattern, WriteToolsDisabled, Forbidden,
		NotFound, UnknownTool, AlreadyExists, Conflict, RequestTooLarge, MethodNotAllowed, LimitExceeded,
		EditRejected, BinaryContent, NoMarkdown, StorageError, Timeout, Internal}
}

// HTTPStatus returns the HTTP status of a code; unknown codes are 500.
func (c Code) HTTPStatus() int {
	if s, ok := statusByCode[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// IsDomain reports whether a code describes the caller's request (a 4xx) rather
// than a failure of the infrastructure (a 5xx). Bedrock answers the first with
// REPROMPT and the second with FAILURE.
func (c Code) IsDomain() bool { return c.HTTPStatus() < 500 }

// Error is a failure a caller may see.
type Error struct {
	Code    Code           `json:"code"`
	Message string         `json:"message"`
	Path    string         `json:"path,omitempty"`
	Details map[string]any `json:"details,omitempty"`
	// cause is kept for logs; it is never serialised.
	cause error
}

// Error implements error with the caller-safe message.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the cause, for errors.Is and for logs.
func (e *Error) Unwrap() error { return e.cause }

// Cause returns the underlying error kept for logs, or nil.
func (e *Error) Cause() error { return e.cause }

// New returns an error with a code and a formatted caller-safe message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithPath sets the logical path and returns e.
func (e *Error) WithPath(path string) *Error { e.Path = path; return e }

// With adds one detail and returns e.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// WithCause records the underlying error for logs and returns e.
func (e *Error) WithCause(err error) *Error { e.cause = err; return e }

// Limit returns a limit_exceeded error naming the limit and its value.
func Limit(name string, value any, format string, args ...any) *Error {
	return New(LimitExceeded, format, args...).With("limit", name).With("value", value)
}

// As returns err as an *Error. Context errors become timeout; anything else
// becomes internal, with the original kept as the cause and the message
// reduced to "internal error".
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var fe *Error
	if errors.As(err, &fe) {
		return fe
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return New(Timeout, "The operation deadline passed.").WithCause(err)
	case errors.Is(err, context.Canceled):
		return New(Timeout, "The operation was canceled.").WithCause(err)
	}
	return New(Internal, "internal error").WithCause(err)
}

// CodeOf returns the code of err as As would give it; nil gives "".
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	return As(err).Code
}

// exitByCode is the one table from code to CLI exit code: 1 is left for
// failures to reach the server, 2 for bad command lines.
var exitByCode = map[Code]int{
	InvalidArgument:    3,
	InvalidPath:        3,
	InvalidPattern:     3,
	RequestTooLarge:    3,
	MethodNotAllowed:   3,
	WriteToolsDisabled: 4,
	Forbidden:          4,
	NotFound:           5,
	UnknownTool:        5,
	AlreadyExists:      6,
	Conflict:           6,
	LimitExceeded:      7,
	EditRejected:       7,
	BinaryContent:      7,
	NoMarkdown:         7,
	Timeout:            8,
	StorageError:       9,
	Internal:           9,
}

// ExitCode returns the CLI exit code of a code; unknown codes are 9.
func (c Code) ExitCode() int {
	if n, ok := exitByCode[c]; ok {
		return n
	}
	return 9
}
