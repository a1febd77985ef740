package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/filecontext-aws/filecontext/internal/app"
	"github.com/filecontext-aws/filecontext/pkg/mcpserve"
	"github.com/filecontext-aws/filecontext/pkg/mcpserve/bridge"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
)

// version is the CLI's version as MCP clients see it.
var version = app.Version

// runMCP serves the tools over MCP on stdio: from this process over the
// flags' store (the flags of serve), or, with --endpoint, as a bridge to a
// deployed API, each call signed with SigV4 when --sigv4 is given.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var lf localFlags
	lf.register(fs)
	var r remote
	fs.StringVar(&r.endpoint, "endpoint", "", "a FileContext API to bridge to, instead of --root or --bucket")
	fs.BoolVar(&r.sigv4, "sigv4", false, "sign the bridged calls with SigV4 (service execute-api) using the default AWS credentials")
	fs.StringVar(&r.region, "region", "", "the API's region, for --sigv4 (default AWS_REGION)")
	if rest, err := parseArgs(fs, args); err != nil || len(rest) > 0 {
		if err == nil {
			fmt.Fprintf(stderr, "filecontext mcp: unexpected arguments %q\n", rest)
		}
		return 2
	}
	// stdout carries the protocol: logs go to stderr only.
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	var backend mcpserve.Backend
	if r.endpoint != "" {
		if *lf.root != "" || *lf.bucket != "" {
			fmt.Fprintln(stderr, "filecontext mcp: give --endpoint, or --root/--bucket, not both")
			return 2
		}
		c, err := r.client(ctx)
		if err != nil {
			fmt.Fprintln(stderr, "filecontext mcp:", err)
			return 2
		}
		backend = bridge.Remote(c)
	} else {
		h, code, err := openLocal(ctx, &lf, log)
		if err != nil {
			fmt.Fprintln(stderr, "filecontext:", err)
			return code
		}
		defer h.close()
		if h.parts.Approvals != nil {
			go sweepEvery(ctx, h.parts.Approvals, sweepInterval, h.log)
		}
		backend = mcpserve.Local(h.parts.Tools, localAgent)
		fmt.Fprintf(stderr, "filecontext mcp: serving %s on stdio (state %s; decide approvals with `filecontext approvals list|approve|reject` and the same --root/--bucket and --state)\n", h.what, h.stateDir)
	}
	server, err := mcpserve.NewServer(ctx, backend, version)
	if err != nil {
		fmt.Fprintln(stderr, "filecontext mcp:", err)
		return 1
	}
	if err := server.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}); err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "filecontext mcp:", err)
		return 1
	}
	return 0
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpHTTPHandler serves MCP's streamable HTTP transport at /mcp of the local
// server: stateless, JSON answers, cross-origin requests refused and the
// SDK's DNS-rebinding protection on (a browser page on another site cannot
// drive the local tools).
func mcpHTTPHandler(ctx context.Context, tools *toolapi.Server, caller toolapi.Caller, log *slog.Logger) http.Handler {
	server, err := mcpserve.NewServer(ctx, mcpserve.Local(tools, caller), version)
	if err != nil {
		panic(err) // a local catalog cannot fail to list
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: log})
	return http.NewCrossOriginProtection().Handler(h)
}
