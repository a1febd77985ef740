package transport

import (
	"context"
	"encoding/base64"
	"net/http"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
)

// CallerFromAPIGateway is the IAM principal API Gateway authenticated
// (AWS_IAM authorization), never a value from the body.
func CallerFromAPIGateway(e *events.APIGatewayProxyRequest) toolapi.Caller {
	id := e.RequestContext.Identity
	switch {
	case id.UserArn != "":
		return toolapi.Caller{ID: id.UserArn}
	case id.Caller != "":
		return toolapi.Caller{ID: id.Caller}
	}
	return toolapi.Caller{ID: "anonymous"}
}

// ServeAPIGateway answers an API Gateway REST (payload 1.0) proxy event.
func (r *Router) ServeAPIGateway(ctx context.Context, e *events.APIGatewayProxyRequest) events.APIGatewayProxyResponse {
	header := make(map[string]string, len(e.Headers))
	for k, v := range e.Headers {
		header[http.CanonicalHeaderKey(k)] = v
	}
	req := Request{Method: e.HTTPMethod, Path: e.Path, Query: e.QueryStringParameters, Header: header, Caller: CallerFromAPIGateway(e),
		RequestID: e.RequestContext.RequestID}
	var res Response
	if e.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(e.Body)
		if err != nil {
			res = r.Respond(req, toolapi.ErrorResult(fault.New(fault.InvalidArgument, "The request body is not valid base64.")), time.Now())
			return apigwResponse(res)
		}
		req.Body = b
	} else {
		req.Body = []byte(e.Body)
	}
	return apigwResponse(r.Serve(ctx, req))
}

func apigwResponse(res Response) events.APIGatewayProxyResponse {
	h := map[string]string{"Content-Type": "application/json"}
	if res.Allow != "" {
		h["Allow"] = res.Allow
	}
	return events.APIGatewayProxyResponse{StatusCode: res.Status, Headers: h, Body: string(res.Body)}
}
