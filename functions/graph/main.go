// Command bootstrap is the graph Lambda function: the Markdown knowledge
// graph tools behind API Gateway and Bedrock action groups, and the S3
// notification handler that refreshes snapshots when .md keys change. It
// reads the data bucket and writes only the system bucket. It reads its
// configuration, builds the SDK clients once, and starts.
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/filecontext-aws/filecontext/internal/app"
	"github.com/filecontext-aws/filecontext/internal/config"
	"github.com/filecontext-aws/filecontext/pkg/fileops/s3store"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
	"github.com/filecontext-aws/filecontext/pkg/toolapi/graphtools"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

func main() {
	if err := start(); err != nil {
		fmt.Fprintln(os.Stderr, "graph:", err)
		os.Exit(1)
	}
}

func start() error {
	cfg, err := config.Load(os.Getenv, config.NeedBucket|config.NeedSystemBucket)
	if err != nil {
		return err
	}
	clients, err := app.NewLambdaClients(cfg)
	if err != nil {
		return err
	}
	data := s3store.New(clients.S3, cfg.Bucket)
	graph := mdkb.New(data, cfg.Root, s3store.New(clients.S3, cfg.SystemBucket), cfg.GraphLimits)
	log := app.Logger(cfg.LogLevel)
	parts, err := app.Build(cfg, app.Stores{Files: data}, app.Serve{Extra: graphtools.Tools(graph)}, log)
	if err != nil {
		return err
	}
	lambda.StartWithOptions(transport.LambdaHandler(parts.Router, cfg.BedrockResponseBytes, transport.S3EventHandler(graph, log)),
		// Bodies travel as JSON strings: HTML escaping would grow them past the
		// Bedrock response budget, which is measured without it.
		lambda.WithSetEscapeHTML(false))
	return nil
}
