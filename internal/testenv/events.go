package testenv

import (
	"encoding/json"
	"strings"
	"testing"
)

// APIGatewayEvent returns a REST (payload 1.0) proxy event as API Gateway
// sends it with AWS_IAM authorization: the caller's ARN in the identity.
func APIGatewayEvent(method, path, body, callerArn string, query map[string]string) []byte {
	return APIGatewayEventWithHeaders(method, path, body, callerArn, query, nil)
}

// APIGatewayEventWithHeaders is APIGatewayEvent with request headers (a
// Content-Type of application/json unless they name one).
func APIGatewayEventWithHeaders(method, path, body, callerArn string, query, headers map[string]string) []byte {
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range headers {
		h[k] = v
	}
	e := map[string]any{
		"resource": path, "path": path, "httpMethod": method, "headers": h,
		"queryStringParameters": query, "body": body, "isBase64Encoded": false,
		"requestContext": map[string]any{"requestId": "e2e", "stage": "dev", "httpMethod": method, "resourcePath": path,
			"identity": map[string]any{"userArn": callerArn, "caller": callerArn}},
	}
	b, _ := json.Marshal(e)
	return b
}

// GatewayAnswer decodes an API Gateway proxy response into its status and
// JSON body.
func GatewayAnswer(t testing.TB, out []byte) (int, map[string]any) {
	t.Helper()
	var r struct {
		StatusCode int    `json:"statusCode"`
		Body       string `json:"body"`
	}
	if err := json.Unmarshal(out, &r); err != nil || r.StatusCode == 0 {
		t.Fatalf("not an API Gateway answer: %s", out)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Body), &m); err != nil {
		t.Fatalf("body is not JSON: %s", r.Body)
	}
	return r.StatusCode, m
}

// Answer reads the status and body out of a function's answer: an API
// Gateway proxy response, or a Bedrock response of either style (a
// function-style answer has no status; its state stands for one: none 200,
// REPROMPT 400 or 404 for an unknown tool, FAILURE 500).
func Answer(t testing.TB, out []byte) (int, string) {
	t.Helper()
	var gw struct {
		StatusCode int    `json:"statusCode"`
		Body       string `json:"body"`
	}
	var br struct {
		Response struct {
			HTTPStatusCode   int                              `json:"httpStatusCode"`
			ResponseBody     map[string]struct{ Body string } `json:"responseBody"`
			FunctionResponse *struct {
				ResponseState string                           `json:"responseState"`
				ResponseBody  map[string]struct{ Body string } `json:"responseBody"`
			} `json:"functionResponse"`
		} `json:"response"`
	}
	if json.Unmarshal(out, &gw) == nil && gw.StatusCode != 0 {
		return gw.StatusCode, gw.Body
	}
	if err := json.Unmarshal(out, &br); err != nil {
		t.Fatalf("answer is neither envelope: %s", out)
	}
	if fr := br.Response.FunctionResponse; fr != nil {
		body := fr.ResponseBody["TEXT"].Body
		switch {
		case fr.ResponseState == "":
			return 200, body
		case strings.Contains(body, `"unknown_tool"`):
			return 404, body
		case fr.ResponseState == "REPROMPT":
			return 400, body
		}
		return 500, body
	}
	return br.Response.HTTPStatusCode, br.Response.ResponseBody["application/json"].Body
}
