// Package app wires the entry points: it turns a configuration and a store
// into the tool server and router every entry point serves. It holds no
// behaviour of its own.
package app

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/filecontext-aws/filecontext/internal/awsenv"
	"github.com/filecontext-aws/filecontext/internal/config"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/s3store"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

// Title names the API in the OpenAPI document.
const Title = "FileContext for AWS"

// Logger returns the JSON logger of the edge at the configured level.
func Logger(level string) *slog.Logger {
	var l slog.Level
	l.UnmarshalText([]byte(level))
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// LambdaS3Client builds the S3 client of a Lambda function from its
// environment (AWS_ENDPOINT_URL_S3 reaches an emulator).
func LambdaS3Client(pathStyle bool) (*s3.Client, error) {
	env, err := awsenv.FromOS()
	if err != nil {
		return nil, fmt.Errorf("AWS settings: %w", err)
	}
	return s3.New(s3.Options{Region: env.Region, Credentials: env.Credentials, BaseEndpoint: env.Endpoint("S3"), UsePathStyle: pathStyle}), nil
}

// Parts are the pieces an entry point serves.
type Parts struct {
	Files  *fileops.Service
	Tools  *toolapi.Server
	Router *transport.Router
}

// Build assembles the file service, tool server and router over a store.
func Build(cfg config.Config, store fileops.Store, parker toolapi.Parker, extra []toolapi.Tool, log *slog.Logger) (*Parts, error) {
	files, err := fileops.New(store, cfg.Root, cfg.Limits)
	if err != nil {
		return nil, err
	}
	tools := toolapi.New(toolapi.Options{Files: files, WriteTools: cfg.WriteTools, ApprovalOff: cfg.ApprovalOff, Parker: parker, Extra: extra})
	router := &transport.Router{Tools: tools, Title: Title, MaxRequestBytes: cfg.MaxRequestBytes, Log: log,
		Budget: transport.Budget{OperationTimeout: cfg.OperationTimeout, ResponseMargin: cfg.ResponseMargin}}
	return &Parts{Files: files, Tools: tools, Router: router}, nil
}

// S3Store returns the data store of a configuration.
func S3Store(client *s3.Client, cfg config.Config) fileops.Store {
	return s3store.New(client, cfg.Bucket)
}
