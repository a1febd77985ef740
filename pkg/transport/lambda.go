package transport

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/filecontext-aws/filecontext/pkg/toolapi"
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
		if tool, caller, ok := agentCoreTool(ctx); ok {
			return r.ServeAgentCore(ctx, tool, caller, raw), nil
		}
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

// agentCoreTool reads a Bedrock AgentCore Gateway Lambda-target invocation:
// the gateway names the tool in the client context's custom field
// bedrockAgentCoreToolName as "<target>___<tool>" and sends the tool's
// arguments as the event ("Add a Lambda target", Amazon Bedrock AgentCore
// developer guide).
func agentCoreTool(ctx context.Context) (tool string, caller toolapi.Caller, ok bool) {
	lc, found := lambdacontext.FromContext(ctx)
	if !found {
		return "", caller, false
	}
	name := lc.ClientContext.Custom["bedrockAgentCoreToolName"]
	if name == "" {
		return "", caller, false
	}
	if i := strings.LastIndex(name, "___"); i >= 0 {
		name = name[i+3:]
	}
	id := "agentcore"
	if g := lc.ClientContext.Custom["bedrockAgentCoreGatewayId"]; g != "" {
		id += ":" + g
	}
	return name, toolapi.Caller{ID: id}, true
}

// ServeAgentCore answers an AgentCore Gateway Lambda-target invocation: the
// event is the tool's arguments, the answer is the contract JSON of the
// result or of the error (the gateway hands it to the agent as the tool's
// content).
func (r *Router) ServeAgentCore(ctx context.Context, tool string, caller toolapi.Caller, args json.RawMessage) json.RawMessage {
	res := r.Serve(ctx, Request{Method: "POST", Path: "/tools/" + tool, Body: args, Caller: caller})
	return json.RawMessage(res.Body)
}
