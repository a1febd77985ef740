// Package eventbridge publishes approval transitions to Amazon EventBridge:
// one PutEvents entry per transition on the account's default bus (or a
// named one), source "filecontext", detail-type "Approval <Transition>",
// detail the record without staged content. Publishing is best effort: a
// failure is counted and reported to the optional OnError, never returned.
package eventbridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge/types"

	"github.com/filecontext-aws/filecontext/pkg/approval"
)

// Source is the events' source, what rules match on.
const Source = "filecontext"

// Publisher is an approval.Events over EventBridge.
type Publisher struct {
	client *eventbridge.Client
	bus    string // "" for the default bus
	// OnError, when set, hears of a failed publish (the host logs it).
	OnError func(err error)
}

var _ approval.Events = (*Publisher)(nil)

// New returns a publisher to bus ("" for the default bus).
func New(client *eventbridge.Client, bus string) *Publisher {
	return &Publisher{client: client, bus: bus}
}

// Publish implements approval.Events.
func (p *Publisher) Publish(ctx context.Context, e approval.Event) {
	detail, err := json.Marshal(e)
	if err == nil {
		entry := types.PutEventsRequestEntry{Source: aws.String(Source), DetailType: aws.String(e.DetailType()), Detail: aws.String(string(detail)),
			Time: aws.Time(e.At)}
		if p.bus != "" {
			entry.EventBusName = aws.String(p.bus)
		}
		var out *eventbridge.PutEventsOutput
		out, err = p.client.PutEvents(ctx, &eventbridge.PutEventsInput{Entries: []types.PutEventsRequestEntry{entry}})
		if err == nil && out.FailedEntryCount > 0 {
			err = fmt.Errorf("EventBridge refused the event: %s", aws.ToString(out.Entries[0].ErrorCode))
		}
	}
	if err != nil && p.OnError != nil {
		p.OnError(err)
	}
}
