// Command bootstrap is the tools Lambda function: the file tools behind API
// Gateway and Bedrock action groups. It reads its configuration, builds the
// SDK clients once, and starts.
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/filecontext-aws/filecontext/internal/app"
	"github.com/filecontext-aws/filecontext/internal/config"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

func main() {
	cfg, err := config.Load(os.Getenv, config.NeedBucket)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tools:", err)
		os.Exit(1)
	}
	client, err := app.LambdaS3Client(cfg.S3PathStyle)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tools:", err)
		os.Exit(1)
	}
	parts, err := app.Build(cfg, app.S3Store(client, cfg), nil, nil, app.Logger(cfg.LogLevel))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tools:", err)
		os.Exit(1)
	}
	lambda.Start(transport.LambdaHandler(parts.Router, cfg.BedrockBodyBytes))
}
