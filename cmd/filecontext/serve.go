package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/filecontext-aws/filecontext/internal/app"
	"github.com/filecontext-aws/filecontext/internal/config"
	"github.com/filecontext-aws/filecontext/pkg/approval"
	"github.com/filecontext-aws/filecontext/pkg/approval/boltstore"
	"github.com/filecontext-aws/filecontext/pkg/console"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/dirstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/s3store"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/toolapi/graphtools"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

// The local server has no IAM: calls to /tools act as the agent, calls to
// /approvals as the operator, so a local approval is never a self-approval.
var (
	localAgent    = toolapi.Caller{ID: "local:agent"}
	localOperator = toolapi.Caller{ID: "local:operator"}
)

// localFlags are the flags of every command that hosts the tools in this
// process: serve and mcp.
type localFlags struct {
	root, writeTools, approval, state, bucket, prefix, onEvent *string
}

func (f *localFlags) register(fs *flag.FlagSet) {
	f.root = fs.String("root", "", "directory to serve (the embedded default)")
	f.writeTools = fs.String("write-tools", "disabled", "enabled or disabled")
	f.approval = fs.String("approval", "required", "required or off")
	f.state = fs.String("state", "", "directory for approvals and snapshots, outside --root (default: under the user state directory)")
	f.bucket = fs.String("bucket", "", "serve an S3 bucket instead of a directory (default AWS configuration)")
	f.prefix = fs.String("prefix", "", "root prefix inside --bucket")
	f.onEvent = fs.String("on-approval-event", "", "a shell command run for each approval transition, with the event's JSON on stdin")
}

// localHost is the tool layer of this process over the flags' store, with
// its approvals and graph; close releases it.
type localHost struct {
	parts    *app.Parts
	log      *slog.Logger
	what     string // what is served, for the start line
	stateDir string
	closers  []func()
}

func (h *localHost) close() {
	for i := len(h.closers) - 1; i >= 0; i-- {
		h.closers[i]()
	}
}

// openLocal opens the store, the state and the services the flags name. A
// returned exit code of 2 is a bad command line, 1 a failure to start.
func openLocal(ctx context.Context, f *localFlags, log *slog.Logger) (*localHost, int, error) {
	env := map[string]string{"FILECONTEXT_WRITE_TOOLS": *f.writeTools, "FILECONTEXT_APPROVAL": *f.approval, "FILECONTEXT_ROOT_PREFIX": *f.prefix}
	cfg, err := config.Load(func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}, 0)
	if err != nil {
		return nil, 2, err
	}
	h := &localHost{}
	fail := func(code int, err error) (*localHost, int, error) { h.close(); return nil, code, err }
	var store fileops.Store
	var stateKey string
	root := *f.root
	switch {
	case *f.bucket != "" && root != "":
		return fail(2, errors.New("give --root or --bucket, not both"))
	case *f.bucket != "":
		awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
		if err != nil {
			return fail(1, fmt.Errorf("AWS configuration: %w", err))
		}
		store = s3store.New(s3.NewFromConfig(awsCfg, func(o *s3.Options) { o.UsePathStyle, o.HTTPClient = cfg.S3PathStyle, s3store.NewHTTPClient() }), *f.bucket)
		// The state folder follows the normalized root, so "team" and
		// "team/" park their approvals in the same place.
		stateKey = "s3://" + *f.bucket + "/" + cfg.Root.Prefix()
		h.what = "s3://" + *f.bucket + "/" + *f.prefix
	case root != "":
		abs, err := filepath.Abs(root)
		if err != nil {
			return fail(2, err)
		}
		ds, err := dirstore.Open(abs)
		if err != nil {
			return fail(2, err)
		}
		h.closers = append(h.closers, func() { ds.Close() })
		store, stateKey, root, h.what = ds, abs, abs, abs
		if cfg.Root.Prefix() != "" {
			stateKey += "\x00" + cfg.Root.Prefix()
		}
	default:
		return fail(2, errors.New("--root DIR (or --bucket NAME) is required"))
	}
	if h.stateDir, err = stateDirFor(*f.state, stateKey, root); err != nil {
		return fail(2, err)
	}
	approvals, err := boltstore.Open(filepath.Join(h.stateDir, "approvals.db"))
	if err != nil {
		return fail(1, err)
	}
	h.closers = append(h.closers, func() { approvals.Close() })
	staging, err := stateStore(h.stateDir, "staging")
	if err != nil {
		return fail(1, err)
	}
	h.closers = append(h.closers, func() { staging.Close() })
	snapshots, err := stateStore(h.stateDir, "snapshots")
	if err != nil {
		return fail(1, err)
	}
	h.closers = append(h.closers, func() { snapshots.Close() })
	h.log = log
	if h.log == nil {
		h.log = app.Logger(cfg.LogLevel)
	}
	graph := mdkb.New(store, cfg.Root, snapshots, cfg.GraphLimits)
	h.closers = append(h.closers, graph.Flush)
	h.parts, err = app.Build(cfg, app.Stores{Files: store, Approvals: approvals, Staging: staging, Events: localEvents{log: h.log, cmd: *f.onEvent}},
		app.Serve{Tools: true, Extra: graphtools.Tools(graph), ApprovalRoutes: true}, h.log)
	if err != nil {
		return fail(2, err)
	}
	return h, 0, nil
}

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var lf localFlags
	lf.register(fs)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address; keep it on loopback")
	if rest, err := parseArgs(fs, args); err != nil || len(rest) > 0 {
		if err == nil {
			fmt.Fprintf(stderr, "filecontext serve: unexpected arguments %q\n", rest)
		}
		return 2
	}
	h, code, err := openLocal(ctx, &lf, nil)
	if err != nil {
		fmt.Fprintln(stderr, "filecontext:", err)
		return code
	}
	defer h.close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "filecontext:", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpHTTPHandler(ctx, h.parts.Tools, localAgent, h.log))
	// The approval console decides as the operator, like /approvals.
	approvalConsole := console.New(routerBackend(h.parts.Router, localOperator), console.Options{Serving: h.what})
	mux.Handle("/console", approvalConsole)
	mux.Handle("/console/", approvalConsole)
	mux.Handle("/", &transport.HTTPHandler{Router: h.parts.Router, CallerFor: func(r *http.Request) toolapi.Caller {
		if strings.HasPrefix(r.URL.Path, "/approvals") {
			return localOperator
		}
		return localAgent
	}})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "filecontext: serving %s on http://%s (write tools %s, approval %s, state %s)\n",
		h.what, ln.Addr(), *lf.writeTools, *lf.approval, h.stateDir)
	fmt.Fprintf(stdout, "filecontext: approval console on %s\n", approvalConsole.LoginURL("http://"+ln.Addr().String()))
	if h.parts.Approvals != nil {
		go sweepEvery(ctx, h.parts.Approvals, sweepInterval, h.log)
	}
	return serveUntilDone(ctx, srv, ln, stdout, stderr, "filecontext")
}

// stateDirFor picks the state directory and refuses one inside the served
// directory, where agents could reach staged content.
func stateDirFor(flagValue, key, root string) (string, error) {
	dir := flagValue
	if dir == "" {
		base := os.Getenv("XDG_STATE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", err
			}
			base = filepath.Join(home, ".local", "state")
		}
		sum := sha256.Sum256([]byte(key))
		dir = filepath.Join(base, "filecontext", hex.EncodeToString(sum[:8]))
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if root != "" {
		if rel, err := filepath.Rel(root, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("--state %s is inside --root %s; keep it outside the served directory", dir, root)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// stateStore opens (creating it) a directory store under the state
// directory: staged content, graph snapshots.
func stateStore(stateDir, name string) (*dirstore.Store, error) {
	dir := filepath.Join(stateDir, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return dirstore.Open(dir)
}

// sweepInterval is how often the local server expires requests nobody
// decided and removes their staged content.
const sweepInterval = 15 * time.Minute

// sweepEvery runs the approval sweep now and then every interval until ctx
// ends.
func sweepEvery(ctx context.Context, svc *approval.Service, interval time.Duration, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := svc.Sweep(ctx); err != nil {
			log.Warn("approval sweep", "error", err.Error())
		} else if n > 0 {
			log.Info("approval sweep", "expired", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
