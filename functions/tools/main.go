// Command bootstrap is the tools Lambda function: the file tools behind API
// Gateway and Bedrock action groups. Writes park in the approvals table
// unless the environment turned approval off. It reads its configuration,
// builds the SDK clients once, and starts.
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/filecontext-aws/filecontext/internal/app"
	"github.com/filecontext-aws/filecontext/internal/config"
	"github.com/filecontext-aws/filecontext/internal/lambdaevents"
	"github.com/filecontext-aws/filecontext/pkg/approval/dynamostore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/s3store"
	"github.com/filecontext-aws/filecontext/pkg/mcpserve"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

func main() {
	if err := start(); err != nil {
		fmt.Fprintln(os.Stderr, "tools:", err)
		os.Exit(1)
	}
}

func start() error {
	cfg, err := config.Load(os.Getenv, config.NeedBucket)
	if err != nil {
		return err
	}
	clients, err := app.NewLambdaClients(cfg)
	if err != nil {
		return err
	}
	st := app.Stores{Files: s3store.New(clients.S3, cfg.Bucket)}
	if cfg.ApprovalsTable != "" {
		st.Approvals = dynamostore.New(clients.Dynamo, cfg.ApprovalsTable)
		if cfg.SystemBucket != "" {
			st.Staging = s3store.New(clients.S3, cfg.SystemBucket)
		}
	}
	log := app.Logger(cfg.LogLevel)
	if st.Events, err = lambdaevents.New(cfg, log); err != nil {
		return err
	}
	parts, err := app.Build(cfg, st, app.Serve{Tools: true}, log)
	if err != nil {
		return err
	}
	// MCP's streamable HTTP at POST /mcp: only this function links the MCP
	// SDK, so the approve and graph functions stay small.
	parts.Router.Extra = append(parts.Router.Extra, &mcpserve.Route{Tools: parts.Tools, Version: app.Version})
	lambda.StartWithOptions(transport.LambdaHandler(parts.Router, cfg.BedrockResponseBytes),
		// Bodies travel as JSON strings: HTML escaping would grow them past the
		// Bedrock response budget, which is measured without it.
		lambda.WithSetEscapeHTML(false))
	return nil
}
