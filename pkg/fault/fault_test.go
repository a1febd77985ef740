package fault_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fault"
)

func TestEveryCodeHasAStatusAndAnExitCode(t *testing.T) {
	codes := fault.Codes()
	if len(codes) != 18 {
		t.Fatalf("%d codes", len(codes))
	}
	seen := map[fault.Code]bool{}
	for _, c := range codes {
		if seen[c] {
			t.Errorf("%s listed twice", c)
		}
		seen[c] = true
		st := c.HTTPStatus()
		if st < 400 || st > 599 {
			t.Errorf("%s: status %d", c, st)
		}
		if c.IsDomain() != (st < 500) {
			t.Errorf("%s: IsDomain %v for %d", c, c.IsDomain(), st)
		}
		if e := c.ExitCode(); e < 3 || e > 9 {
			t.Errorf("%s: exit code %d", c, e)
		}
	}
	for c, want := range map[fault.Code]int{fault.InvalidPath: 400, fault.NotFound: 404, fault.Conflict: 409, fault.RequestTooLarge: 413,
		fault.EditRejected: 422, fault.StorageError: 502, fault.Timeout: 504, fault.Internal: 500, fault.WriteToolsDisabled: 403} {
		if c.HTTPStatus() != want {
			t.Errorf("%s: %d, want %d", c, c.HTTPStatus(), want)
		}
	}
	unknown := fault.Code("made_up")
	if unknown.HTTPStatus() != http.StatusInternalServerError || unknown.ExitCode() != 9 {
		t.Error("an unknown code is not internal")
	}
}

func TestAs(t *testing.T) {
	if fault.As(nil) != nil || fault.CodeOf(nil) != "" {
		t.Error("nil is an error")
	}
	fe := fault.New(fault.NotFound, "File %q was not found.", "a.md").WithPath("a.md").With("k", 1)
	wrapped := fmt.Errorf("context: %w", fe)
	if got := fault.As(wrapped); got != fe || got.Path != "a.md" || got.Details["k"] != 1 || got.Error() != `not_found: File "a.md" was not found.` {
		t.Errorf("As = %+v", got)
	}
	if fault.CodeOf(context.DeadlineExceeded) != fault.Timeout || fault.CodeOf(fmt.Errorf("x: %w", context.Canceled)) != fault.Timeout {
		t.Error("context errors are not timeouts")
	}
	cause := errors.New("secret detail: bucket-name")
	in := fault.As(cause)
	if in.Code != fault.Internal || in.Message != "internal error" || in.Cause() != cause || !errors.Is(in, cause) {
		t.Errorf("internal = %+v", in)
	}
	lim := fault.Limit("maximumX", 5, "over %d", 5)
	if lim.Code != fault.LimitExceeded || lim.Details["limit"] != "maximumX" || lim.Details["value"] != 5 {
		t.Errorf("limit = %+v", lim)
	}
}
