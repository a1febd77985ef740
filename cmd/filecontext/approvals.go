package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"github.com/filecontext-aws/filecontext/pkg/client"
)

// approvals drives the approval routes of a server.
func approvals(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("approvals", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var r remote
	r.flags(fs)
	// With --root or --bucket the approvals are decided in this process
	// (approvalBackend).
	var lf localFlags
	lf.register(fs)
	status := fs.String("status", "pending", "list: the status to list")
	limit := fs.Int("limit", 0, "list: page size (1-100)")
	next := fs.String("next-token", "", "list: the nextToken of the previous page")
	reason := fs.String("reason", "", "reject: why")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) == 0 {
		fmt.Fprint(stderr, "filecontext approvals: say list, show ID, approve ID or reject ID\n")
		return 2
	}
	backend, _, done, code, err := approvalBackend(ctx, &r, &lf, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		fmt.Fprintln(stderr, "filecontext approvals:", err)
		return code
	}
	defer done()
	do := func(method, path string, body []byte) ([]byte, error) {
		status, out, err := backend(ctx, method, path, body)
		if err != nil {
			return nil, err
		}
		return out, client.ErrorOf(status, out)
	}
	var out []byte
	switch {
	case rest[0] == "list" && len(rest) == 1:
		q := url.Values{"status": {*status}}
		if *limit > 0 {
			q.Set("limit", strconv.Itoa(*limit))
		}
		if *next != "" {
			q.Set("nextToken", *next)
		}
		out, err = do(http.MethodGet, "/approvals?"+q.Encode(), nil)
	case rest[0] == "show" && len(rest) == 2:
		out, err = do(http.MethodGet, "/approvals/"+url.PathEscape(rest[1]), nil)
	case rest[0] == "approve" && len(rest) == 2:
		out, err = do(http.MethodPost, "/approvals/"+url.PathEscape(rest[1])+"/approve", nil)
	case rest[0] == "reject" && len(rest) == 2:
		body, _ := json.Marshal(map[string]string{"reason": *reason})
		out, err = do(http.MethodPost, "/approvals/"+url.PathEscape(rest[1])+"/reject", body)
	default:
		fmt.Fprintf(stderr, "filecontext approvals: unknown form %q\n", rest)
		return 2
	}
	return answer(stdout, stderr, out, err)
}
