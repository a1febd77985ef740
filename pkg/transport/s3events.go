package transport

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// Refresher rebuilds what a changed key affects.
type Refresher interface {
	Refresh(ctx context.Context, key string) (int, error)
}

// S3EventHandler handles S3 notifications: every created or removed key
// ending in .md refreshes the snapshots that cover it. Other events are not
// its own. A failure is a function error, so the event is retried.
func S3EventHandler(r Refresher, log *slog.Logger) EventHandler {
	return func(ctx context.Context, raw json.RawMessage) (any, bool, error) {
		var e events.S3Event
		if err := json.Unmarshal(raw, &e); err != nil || len(e.Records) == 0 || e.Records[0].EventSource != "aws:s3" {
			return nil, false, nil
		}
		var errs []error
		refreshed := 0
		for _, rec := range e.Records {
			if !strings.HasPrefix(rec.EventName, "ObjectCreated") && !strings.HasPrefix(rec.EventName, "ObjectRemoved") {
				continue
			}
			key := rec.S3.Object.URLDecodedKey // keys arrive URL-encoded, spaces as '+'
			n, err := r.Refresh(ctx, key)
			refreshed += n
			if err != nil {
				errs = append(errs, err)
			}
			if log != nil {
				log.Info("s3 event", "event", rec.EventName, "markdown", strings.HasSuffix(strings.ToLower(key), ".md"), "refreshed", n, "error", errString(err))
			}
		}
		return map[string]any{"refreshed": refreshed}, true, errors.Join(errs...)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
