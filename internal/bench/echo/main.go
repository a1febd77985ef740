// Command echo is a Lambda function that answers its event unchanged. The
// invoke benchmark runs it under aws-lambda-rie to measure what the emulator
// itself adds to a round trip, apart from any handler.
package main

import (
	"context"
	"encoding/json"

	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(_ context.Context, e json.RawMessage) (json.RawMessage, error) { return e, nil })
}
