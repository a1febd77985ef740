// Package app wires the entry points: it turns a configuration and stores
// into the services and router every entry point serves. It holds no
// behaviour of its own.
package app

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/filecontext-aws/filecontext/internal/awsenv"
	"github.com/filecontext-aws/filecontext/internal/config"
	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/s3store"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

// Title names the API in the OpenAPI document.
const Title = "FileContext for AWS"

// Version is the release (the VERSION file; a test keeps them equal), as
// MCP clients see it.
const Version = "1.0.0"

// Logger returns the JSON logger of the edge at the configured level.
func Logger(level string) *slog.Logger {
	var l slog.Level
	l.UnmarshalText([]byte(level))
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// LambdaClients are the SDK clients of a Lambda function, built once from
// its environment (AWS_ENDPOINT_URL_S3 / _DYNAMODB reach emulators).
type LambdaClients struct {
	S3     *s3.Client
	Dynamo *dynamodb.Client
}

// NewLambdaClients builds the clients.
func NewLambdaClients(cfg config.Config) (*LambdaClients, error) {
	env, err := awsenv.FromOS()
	if err != nil {
		return nil, fmt.Errorf("AWS settings: %w", err)
	}
	return &LambdaClients{
		S3: s3.New(s3.Options{Region: env.Region, Credentials: env.Credentials, BaseEndpoint: env.Endpoint("S3"), UsePathStyle: cfg.S3PathStyle,
			HTTPClient: s3store.NewHTTPClient()}),
		Dynamo: dynamodb.New(dynamodb.Options{Region: env.Region, Credentials: env.Credentials, BaseEndpoint: env.Endpoint("DYNAMODB")}),
	}, nil
}

// Stores are what an entry point serves from.
type Stores struct {
	Files     fileops.Store   // the data store
	Approvals approval.Store  // nil: no approvals on this host
	Staging   fileops.Store   // the system store for staged content
	Events    approval.Events // where approval transitions are announced; nil: nowhere
}

// Parts are the pieces an entry point serves.
type Parts struct {
	Files     *fileops.Service
	Approvals *approval.Service // nil without an approval store
	Tools     *toolapi.Server
	Router    *transport.Router
}

// Serve says which route families a host answers.
type Serve struct {
	Tools          bool // the file tools
	ApprovalRoutes bool
	Extra          []toolapi.Tool // tools beyond the file tools (the graph tools)
	// AfterWrite is the approval test hook (see approval.Options).
	AfterWrite func(*approval.Record) error
}

// Build assembles the services and the router.
func Build(cfg config.Config, st Stores, serve Serve, log *slog.Logger) (*Parts, error) {
	files, err := fileops.New(st.Files, cfg.Root, cfg.Limits)
	if err != nil {
		return nil, err
	}
	p := &Parts{Files: files}
	if st.Approvals != nil {
		if st.Staging == nil {
			return nil, errors.New("configuration: an approval store needs a system store for staged content (FILECONTEXT_SYSTEM_BUCKET)")
		}
		p.Approvals, err = approval.New(approval.Options{Store: st.Approvals, Files: files, Staging: st.Staging, Events: st.Events,
			TTL: cfg.ApprovalTTL, Retention: cfg.ApprovalRetention, Lease: cfg.ApprovalLease, AllowSelfApprove: cfg.AllowSelfApprove, AfterWrite: serve.AfterWrite})
		if err != nil {
			return nil, err
		}
	} else if serve.Tools && cfg.WriteTools && !cfg.ApprovalOff {
		return nil, errors.New("configuration: write tools that need approval need FILECONTEXT_APPROVALS_TABLE and FILECONTEXT_SYSTEM_BUCKET (or FILECONTEXT_APPROVAL=off)")
	}
	p.Router = &transport.Router{Title: Title, MaxRequestBytes: cfg.MaxRequestBytes, Log: log,
		Budget: transport.Budget{OperationTimeout: cfg.OperationTimeout, ResponseMargin: cfg.ResponseMargin}}
	if serve.Tools || len(serve.Extra) > 0 {
		opts := toolapi.Options{WriteTools: cfg.WriteTools, ApprovalOff: cfg.ApprovalOff, Extra: serve.Extra}
		if serve.Tools {
			opts.Files = files
			if p.Approvals != nil {
				opts.Approvals = p.Approvals
			}
		}
		p.Tools = toolapi.New(opts)
		p.Router.Tools = p.Tools
	}
	if serve.ApprovalRoutes {
		if p.Approvals == nil {
			return nil, errors.New("configuration: the approval routes need FILECONTEXT_APPROVALS_TABLE")
		}
		p.Router.Extra = append(p.Router.Extra, &transport.ApprovalRoutes{Service: p.Approvals})
	}
	return p, nil
}

// CrashAfterWriteForTests returns the approval hook that ends the process
// right after a file write, before the outcome is recorded, when
// FILECONTEXT_TEST_CRASH_AFTER_WRITE=1. The end-to-end tests use it to prove
// that the next approve finishes the change; it is never set in a deployment.
func CrashAfterWriteForTests() func(*approval.Record) error {
	if os.Getenv("FILECONTEXT_TEST_CRASH_AFTER_WRITE") != "1" {
		return nil
	}
	return func(*approval.Record) error {
		fmt.Fprintln(os.Stderr, "FILECONTEXT_TEST_CRASH_AFTER_WRITE: exiting after the write")
		os.Exit(70)
		return nil
	}
}
