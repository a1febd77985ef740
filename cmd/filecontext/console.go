package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/client"
	"github.com/filecontext-aws/filecontext/pkg/console"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

// routerBackend calls the approval routes of this process's router as
// caller.
func routerBackend(r *transport.Router, caller toolapi.Caller) console.Backend {
	return func(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
		u, err := url.Parse(path)
		if err != nil {
			return 0, nil, err
		}
		query := map[string]string{}
		for k, v := range u.Query() {
			query[k] = v[0]
		}
		res := r.Serve(ctx, transport.Request{Method: method, Path: u.Path, Query: query, Body: body, Caller: caller})
		return res.Status, res.Body, nil
	}
}

// clientBackend calls the approval routes of a server through c; error
// answers come back as answers, only a failure to get one is an error.
// GETs are retried as the client retries idempotent calls.
func clientBackend(c *client.Client) console.Backend {
	return func(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
		status, out, err := c.Do(ctx, method, path, body, method == http.MethodGet)
		var apiErr *client.Error
		if errors.As(err, &apiErr) {
			b, _ := json.Marshal(map[string]any{"error": apiErr})
			return apiErr.Status, b, nil
		}
		return status, out, err
	}
}

// approvalBackend reaches the approval routes the flags name: in this
// process with --root or --bucket (on that root's state folder, as the
// approvals of an MCP stdio server are decided with no server running),
// else on the server at --endpoint. It returns what it serves, a func that
// releases it, and an exit code for an error.
func approvalBackend(ctx context.Context, r *remote, lf *localFlags, log *slog.Logger) (console.Backend, string, func(), int, error) {
	if *lf.root != "" || *lf.bucket != "" {
		h, code, err := openLocal(ctx, lf, log)
		if err != nil {
			return nil, "", nil, code, err
		}
		return routerBackend(h.parts.Router, localOperator), h.what, h.close, 0, nil
	}
	c, err := r.client(ctx)
	if err != nil {
		return nil, "", nil, 2, err
	}
	return clientBackend(c), r.endpoint, func() {}, 0, nil
}

// serveUntilDone serves srv on ln until ctx ends, then shuts it down; it
// returns the exit code.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener, stdout, stderr io.Writer, name string) int {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(stderr, name+":", err)
		return 1
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(stderr, name+": shutdown:", err)
		return 1
	}
	fmt.Fprintln(stdout, "filecontext: stopped")
	return 0
}

// runConsole serves the approval console on loopback until ctx ends.
func runConsole(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("console", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var r remote
	r.flags(fs)
	var lf localFlags
	lf.register(fs)
	addr := fs.String("addr", "127.0.0.1:0", "listen address: loopback only (a free port by default)")
	noOpen := fs.Bool("no-open", false, "print the console's URL without opening a browser")
	if rest, err := parseArgs(fs, args); err != nil || len(rest) > 0 {
		if err == nil {
			fmt.Fprintf(stderr, "filecontext console: unexpected arguments %q\n", rest)
		}
		return 2
	}
	if err := console.CheckAddr(*addr); err != nil {
		fmt.Fprintf(stderr, "filecontext console: --addr %s: %v\n", *addr, err)
		return 2
	}
	backend, serving, done, code, err := approvalBackend(ctx, &r, &lf, slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		fmt.Fprintln(stderr, "filecontext console:", err)
		return code
	}
	defer done()
	// The key keeps other local users out: the console acts with this
	// user's identity (and, with --sigv4, AWS credentials).
	handler := console.New(backend, console.Options{Key: console.NewKey(), Serving: serving})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "filecontext console:", err)
		return 1
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	u := handler.LoginURL("http://" + ln.Addr().String())
	fmt.Fprintf(stdout, "filecontext: approval console for %s on %s\n", serving, u)
	if !*noOpen {
		if err := openBrowser(u); err != nil {
			fmt.Fprintf(stderr, "filecontext console: could not open a browser (%v); open the URL above\n", err)
		}
	}
	return serveUntilDone(ctx, srv, ln, stdout, stderr, "filecontext console")
}

// openBrowser opens u in the user's browser: $BROWSER when set, else the
// system's opener.
func openBrowser(u string) error {
	var cmd *exec.Cmd
	switch {
	case os.Getenv("BROWSER") != "":
		cmd = exec.Command(os.Getenv("BROWSER"), u)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", u)
	case runtime.GOOS == "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
