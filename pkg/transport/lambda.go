package transport

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/aws/aws-lambda-go/events"
)

// EventHandler handles an event kind the Router does not (an S3
// notification, say); it reports ok=false for events that are not its own.
type EventHandler func(ctx context.Context, raw json.RawMessage) (any, bool, error)

// LambdaHandler returns the Lambda entry point: it tells Bedrock
// action-group events from API Gateway proxy events by their fields and
// answers each in its own envelope. A returned error is a function error,
// kept for events no route knows; tool failures are responses.
func LambdaHandler(r *Router, bedrockResponseBytes int, others ...EventHandler) func(context.Context, json.RawMessage) (any, error) {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		if IsBedrockEvent(raw) {
			var e BedrockEvent
			if err := json.Unmarshal(raw, &e); err != nil {
				return nil, errors.New("malformed Bedrock event")
			}
			return r.ServeBedrock(ctx, &e, bedrockResponseBytes), nil
		}
		var probe struct {
			HTTPMethod     *string          `json:"httpMethod"`
			RequestContext *json.RawMessage `json:"requestContext"`
		}
		if json.Unmarshal(raw, &probe) == nil && probe.HTTPMethod != nil && probe.RequestContext != nil {
			var e events.APIGatewayProxyRequest
			if err := json.Unmarshal(raw, &e); err != nil {
				return nil, errors.New("malformed API Gateway event")
			}
			return r.ServeAPIGateway(ctx, &e), nil
		}
		for _, h := range others {
			if out, ok, err := h(ctx, raw); ok {
				return out, err
			}
		}
		return nil, errors.New("unsupported event: expected an API Gateway REST proxy event or a Bedrock action-group event")
	}
}
