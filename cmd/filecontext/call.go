package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"

	"github.com/filecontext-aws/filecontext/pkg/client"
	"github.com/filecontext-aws/filecontext/pkg/fault"
)

func defaultEndpoint() string {
	if v := os.Getenv("FILECONTEXT_ENDPOINT"); v != "" {
		return v
	}
	return "http://127.0.0.1:8080"
}

// parseArgs parses fs by the standard flag package's rules, except that
// flags may stand anywhere among the positional arguments (after the tool
// name and its key=value pairs, say). A boolean flag never takes the next
// word ("--sigv4 --region R" is two flags); other flags take the next word
// unless written --name=value; "--" ends the flags. It returns the
// positional arguments in order.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if f := fs.Lookup(name); f != nil && !hasValue && !isBoolFlag(f) && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return rest, fs.Parse(flags)
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// remote holds the flags every command that talks to a server shares.
type remote struct {
	endpoint string
	sigv4    bool
	region   string
}

func (r *remote) flags(fs *flag.FlagSet) {
	fs.StringVar(&r.endpoint, "endpoint", defaultEndpoint(), "server or API stage URL")
	fs.BoolVar(&r.sigv4, "sigv4", false, "sign requests with SigV4 (service execute-api) using the default AWS credentials")
	fs.StringVar(&r.region, "region", os.Getenv("AWS_REGION"), "the API's region, for --sigv4")
}

// client returns an API client for the flags.
func (r *remote) client(ctx context.Context) (*client.Client, error) {
	if !r.sigv4 {
		return client.New(r.endpoint), nil
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion(r.region))
	if err != nil {
		return nil, fmt.Errorf("AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, errors.New("--sigv4 needs --region (or AWS_REGION)")
	}
	return client.New(r.endpoint, client.WithSigner(&client.Signer{Credentials: cfg.Credentials, Region: cfg.Region})), nil
}

// answer prints a result or an error answer and returns the exit code.
func answer(stdout, stderr io.Writer, out []byte, err error) int {
	var apiErr *client.Error
	switch {
	case errors.As(err, &apiErr):
		b, _ := json.Marshal(map[string]any{"error": apiErr})
		printJSON(stdout, b)
		return apiErr.Code.ExitCode()
	case err != nil:
		fmt.Fprintln(stderr, "filecontext:", err)
		return 1
	}
	printJSON(stdout, out)
	return 0
}

func call(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var r remote
	r.flags(fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) == 0 {
		fmt.Fprintln(stderr, "filecontext call: name a tool, e.g. filecontext call file_access_read fileName=notes.md")
		return 2
	}
	c, err := r.client(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "filecontext call:", err)
		return 2
	}
	tool, pairs := rest[0], rest[1:]
	cat, err := c.Catalog(ctx)
	if err != nil {
		return answer(stdout, stderr, nil, err)
	}
	types := map[string]string{}
	for _, t := range cat.Tools {
		if t.Name == tool {
			props, _ := t.InputSchema["properties"].(map[string]any)
			for k, p := range props {
				types[k], _ = p.(map[string]any)["type"].(string)
			}
		}
	}
	body, err := buildArgs(pairs, types)
	if err != nil {
		// A value that does not fit the tool's schema is bad input, like
		// the server's invalid_argument.
		fmt.Fprintln(stderr, "filecontext call:", err)
		return fault.InvalidArgument.ExitCode()
	}
	out, _, err := c.Call(ctx, tool, json.RawMessage(body))
	return answer(stdout, stderr, out, err)
}

// buildArgs turns key=value (typed by the tool's schema) and key:=json pairs
// into a JSON object.
func buildArgs(pairs []string, types map[string]string) ([]byte, error) {
	obj := map[string]any{}
	for _, p := range pairs {
		if k, v, ok := strings.Cut(p, ":="); ok && !strings.Contains(k, "=") {
			var j any
			if err := json.Unmarshal([]byte(v), &j); err != nil {
				return nil, fmt.Errorf("%s:= is not JSON: %v", k, err)
			}
			obj[k] = j
			continue
		}
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return nil, fmt.Errorf("argument %q is not key=value or key:=json", p)
		}
		switch types[k] {
		case "integer":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s must be an integer, got %q", k, v)
			}
			obj[k] = n
		case "boolean":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("%s must be true or false, got %q", k, v)
			}
			obj[k] = b
		case "array", "object":
			var j any
			if err := json.Unmarshal([]byte(v), &j); err != nil {
				return nil, fmt.Errorf("%s must be JSON, got %q", k, v)
			}
			obj[k] = j
		default:
			obj[k] = v
		}
	}
	return json.Marshal(obj)
}

func listTools(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var r remote
	r.flags(fs)
	if rest, err := parseArgs(fs, args); err != nil || len(rest) > 0 {
		if err == nil {
			fmt.Fprintf(stderr, "filecontext tools: unexpected arguments %q\n", rest)
		}
		return 2
	}
	c, err := r.client(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "filecontext tools:", err)
		return 2
	}
	_, out, err := c.Do(ctx, http.MethodGet, "/tools", nil, true)
	return answer(stdout, stderr, out, err)
}

func printJSON(w io.Writer, b []byte) {
	var buf bytes.Buffer
	if json.Indent(&buf, b, "", "  ") != nil {
		w.Write(b)
		fmt.Fprintln(w)
		return
	}
	buf.WriteByte('\n')
	w.Write(buf.Bytes())
}
