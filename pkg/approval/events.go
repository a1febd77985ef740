package approval

import (
	"context"
	"time"
)

// Event is one transition of an approval record, as hosts announce it:
// on AWS an EventBridge event (source "filecontext", detail-type
// DetailType(), detail the View); locally a log line or a command.
type Event struct {
	Transition string    `json:"transition"` // requested, applied, conflict, failed, rejected, expired
	At         time.Time `json:"at"`
	Approval   View      `json:"approval"` // the record without staged content; the preview may be cut
}

// DetailType is the event's EventBridge detail-type, e.g. "Approval Requested".
func (e Event) DetailType() string {
	t := e.Transition
	if t != "" {
		t = string(t[0]-'a'+'A') + t[1:]
	}
	return "Approval " + t
}

// Events publishes transitions. Publishing is best effort: a failure never
// fails the call that made the transition, so implementations report
// nothing back.
type Events interface {
	Publish(ctx context.Context, e Event)
}

// maxEventPreview bounds the diff carried by an event (EventBridge takes at
// most 256 KiB per entry; an approver opens the record for the whole diff).
const maxEventPreview = 8 << 10

// announce publishes one transition of r, when the service has an event
// port.
func (s *Service) announce(ctx context.Context, transition string, r *Record) {
	if s.o.Events == nil {
		return
	}
	v := r.ViewAt(s.now())
	if len(v.Preview.Diff) > maxEventPreview {
		cut := maxEventPreview
		for cut > 0 && v.Preview.Diff[cut]&0xC0 == 0x80 { // not inside a UTF-8 character
			cut--
		}
		v.Preview.Diff, v.Preview.Truncated = v.Preview.Diff[:cut], true
	}
	s.o.Events.Publish(context.WithoutCancel(ctx), Event{Transition: transition, At: s.now(), Approval: v})
}
