// Command filecontext is the local server and CLI.
//
//	filecontext serve --root DIR [--addr 127.0.0.1:8080] [--write-tools enabled|disabled]
//	                  [--approval required|off] [--state DIR] [--bucket NAME [--prefix P]]
//	filecontext call TOOL [key=value ...] [key:=json ...] [--endpoint URL]
//	filecontext tools [--endpoint URL]
//	filecontext mcp --root DIR | --endpoint URL [--sigv4 --region R]
//	filecontext approvals list|show|approve|reject ...
//	filecontext console [--endpoint URL [--sigv4 --region R] | --root DIR] [--addr 127.0.0.1:0] [--no-open]
//	filecontext agent [--model-endpoint URL] [--model NAME] PROMPT
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  filecontext serve --root DIR [--addr 127.0.0.1:8080] [--write-tools enabled|disabled]
                    [--approval required|off] [--state DIR] [--bucket NAME [--prefix P]]
  filecontext call TOOL [key=value ...] [key:=json ...] [--endpoint URL] [--sigv4 --region R]
  filecontext tools [--endpoint URL] [--sigv4 --region R]
  filecontext mcp --root DIR [--write-tools enabled] [--approval required|off] [--state DIR] [--bucket NAME [--prefix P]]
  filecontext mcp --endpoint URL [--sigv4 --region R]
  filecontext approvals list [--status pending] [--limit N] [--next-token T] [--endpoint URL | --root DIR [--state DIR]]
  filecontext approvals show|approve ID [--endpoint URL | --root DIR [--state DIR]]
  filecontext approvals reject ID [--reason TEXT] [--endpoint URL | --root DIR [--state DIR]]
  filecontext console [--endpoint URL [--sigv4 --region R] | --root DIR [--state DIR]] [--addr 127.0.0.1:0] [--no-open]
  filecontext agent [--model-endpoint URL] [--model NAME] [--conversation FILE] [--concurrent] [--endpoint URL] PROMPT
`

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stdout, stderr)
	case "call":
		return call(ctx, args[1:], stdout, stderr)
	case "tools":
		return listTools(ctx, args[1:], stdout, stderr)
	case "approvals":
		return approvals(ctx, args[1:], stdout, stderr)
	case "console":
		return runConsole(ctx, args[1:], stdout, stderr)
	case "agent":
		return runAgent(ctx, args[1:], stdout, stderr)
	case "mcp":
		return runMCP(ctx, args[1:], os.Stdin, stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "filecontext: unknown command %q\n%s", args[0], usage)
	return 2
}
