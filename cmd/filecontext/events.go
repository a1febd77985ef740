package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/approval"
)

// localEvents announces approval transitions on the local server: one JSON
// log line each, and, with --on-approval-event CMD, the command run with
// the event's JSON on its standard input and FILECONTEXT_EVENT_TYPE set to
// its detail-type ("Approval Requested", ...). The command runs in the
// background, at most a minute; its failure is logged, never the call's.
type localEvents struct {
	log *slog.Logger
	cmd string
}

func (l localEvents) Publish(ctx context.Context, e approval.Event) {
	l.log.Info("approval event", "detailType", e.DetailType(), "approvalId", e.Approval.ApprovalID,
		"status", string(e.Approval.Status), "tool", e.Approval.Tool, "path", e.Approval.Path)
	if l.cmd == "" {
		return
	}
	body, _ := json.Marshal(e)
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		c := exec.CommandContext(ctx, "sh", "-c", l.cmd)
		c.Stdin = bytes.NewReader(body)
		c.Env = append(os.Environ(), "FILECONTEXT_EVENT_TYPE="+e.DetailType())
		if out, err := c.CombinedOutput(); err != nil {
			l.log.Warn("approval event command failed", "detailType", e.DetailType(), "error", err.Error(), "output", string(out))
		}
	}()
}
