package testenv

import (
	"encoding/json"
	"testing"
)

// APIGatewayEvent returns a REST (payload 1.0) proxy event as API Gateway
// sends it with AWS_IAM authorization: the caller's ARN in the identity.
func APIGatewayEvent(method, path, body, callerArn string, query map[string]string) []byte {
	e := map[string]any{
		"resource": path, "path": path, "httpMethod": method, "headers": map[string]string{"Content-Type": "application/json"},
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
