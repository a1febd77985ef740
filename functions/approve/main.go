// Command bootstrap is the approve Lambda function: the approval routes of
// CONTRACT §6 behind API Gateway. It is the only function that writes the
// data bucket. It reads its configuration, builds the SDK clients once, and
// starts.
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
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

func main() {
	if err := start(); err != nil {
		fmt.Fprintln(os.Stderr, "approve:", err)
		os.Exit(1)
	}
}

func start() error {
	cfg, err := config.Load(os.Getenv, config.NeedBucket|config.NeedSystemBucket|config.NeedApprovalsTable)
	if err != nil {
		return err
	}
	clients, err := app.NewLambdaClients(cfg)
	if err != nil {
		return err
	}
	log := app.Logger(cfg.LogLevel)
	st := app.Stores{
		Files:     s3store.New(clients.S3, cfg.Bucket),
		Approvals: dynamostore.New(clients.Dynamo, cfg.ApprovalsTable),
		Staging:   s3store.New(clients.S3, cfg.SystemBucket),
	}
	if st.Events, err = lambdaevents.New(cfg, log); err != nil {
		return err
	}
	parts, err := app.Build(cfg, st, app.Serve{ApprovalRoutes: true, AfterWrite: app.CrashAfterWriteForTests()}, log)
	if err != nil {
		return err
	}
	// A scheduled rule invokes the function to expire the requests nobody
	// decided (and announce them).
	lambda.StartWithOptions(transport.LambdaHandler(parts.Router, cfg.BedrockResponseBytes, transport.ScheduledSweep(parts.Approvals, log)),
		// Bodies travel as JSON strings: HTML escaping would grow them past the
		// Bedrock response budget, which is measured without it.
		lambda.WithSetEscapeHTML(false))
	return nil
}
