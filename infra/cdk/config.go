package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/constructs-go/constructs/v10"

	"github.com/filecontext-aws/filecontext/pkg/toolapi"
)

// Config is what a stack is built from.
type Config struct {
	Env          string // dev, staging or prod
	Bedrock      bool
	BedrockModel string // a foundation model id or an inference profile id (us., eu., apac., global. ...)
	// BedrockGroups are the action groups the agent gets: read and graph by
	// default (10 operations), write only when asked for.
	BedrockGroups []string
	// BedrockMaxAPIs is the account's "APIs per agent" quota (11 by default,
	// Amazon Bedrock quotas); more operations than this fail synthesis.
	BedrockMaxAPIs        int
	ApprovalOff           bool
	Assets                string // folder holding tools.zip, approve.zip, graph.zip
	NoncurrentDays        int    // days old versions of data objects are kept (default 30)
	ApprovalRetentionDays int    // days decided approval records are kept (default 90)
	Tracing               bool   // X-Ray tracing of the functions and the API stage
	GraphConcurrency      int    // reserved concurrency of the graph function; 0 reserves none
	Architecture          string // arm64 (default) or x86_64: what the function zips were built for
	S3PathStyle           bool   // path-style S3 addressing in the functions (LocalStack)
	ApprovalEmail         string // an address the approval topic e-mails (it must confirm the subscription)
}

// DefaultBedrockModel is the agent's model unless bedrockModel says
// otherwise: a cross-region inference profile of a current Claude model.
const DefaultBedrockModel = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

// Prod reports whether data must outlive the stack.
func (c Config) Prod() bool { return c.Env == "prod" }

// Name prefixes every named resource.
func (c Config) Name(s string) string { return "filecontext-" + c.Env + "-" + s }

// ConfigFromContext reads and checks the context of a synth.
func ConfigFromContext(scope constructs.Construct) (Config, error) {
	node := scope.Node()
	get := func(key, def string) string {
		if v, ok := node.TryGetContext(&key).(string); ok && v != "" {
			return v
		}
		return def
	}
	number := func(key string, def, lo int) (int, error) {
		v := get(key, strconv.Itoa(def))
		n, err := strconv.Atoi(v)
		if err != nil || n < lo {
			return 0, fmt.Errorf("context %s must be a whole number of at least %d, got %q", key, lo, v)
		}
		return n, nil
	}
	c := Config{
		Env:           get("env", "dev"),
		Bedrock:       get("bedrock", "false") == "true",
		BedrockModel:  get("bedrockModel", DefaultBedrockModel),
		BedrockGroups: strings.Split(get("bedrockGroups", "read,graph"), ","),
		ApprovalOff:   get("approval", "required") == "off",
		Assets:        get("assets", filepath.Join("..", "..", "dist", "lambda")),
		Tracing:       get("tracing", "false") == "true",
		Architecture:  get("architecture", "arm64"),
		S3PathStyle:   get("s3PathStyle", "false") == "true",
		ApprovalEmail: get("approvalEmail", ""),
	}
	if c.Architecture != "arm64" && c.Architecture != "x86_64" {
		return c, fmt.Errorf("context architecture must be arm64 or x86_64, got %q", c.Architecture)
	}
	var err error
	for _, n := range []struct {
		key     string
		into    *int
		def, lo int
	}{
		{"bedrockMaxApis", &c.BedrockMaxAPIs, 11, 1},
		{"noncurrentDays", &c.NoncurrentDays, 30, 1},
		{"approvalRetentionDays", &c.ApprovalRetentionDays, 90, 1},
		{"graphConcurrency", &c.GraphConcurrency, 0, 0},
	} {
		if *n.into, err = number(n.key, n.def, n.lo); err != nil {
			return c, err
		}
	}
	for _, g := range c.BedrockGroups {
		if !slices.Contains(toolapi.Groups, g) {
			return c, fmt.Errorf("context bedrockGroups names %q; the groups are read, write and graph", g)
		}
	}
	switch c.Env {
	case "dev", "staging", "prod":
	default:
		return c, fmt.Errorf("context env must be dev, staging or prod, got %q", c.Env)
	}
	switch a := get("approval", "required"); a {
	case "required", "off":
	default:
		return c, fmt.Errorf("context approval must be required or off, got %q", a)
	}
	if c.Bedrock {
		if n := NewCatalog(c).Operations(c.BedrockGroups); n > c.BedrockMaxAPIs {
			return c, fmt.Errorf("the agent would have %d APIs (groups %s), over bedrockMaxApis %d, Bedrock's default \"APIs per agent\" quota: "+
				"drop a group from bedrockGroups, or raise the quota in Service Quotas and set bedrockMaxApis", n, strings.Join(c.BedrockGroups, ","), c.BedrockMaxAPIs)
		}
	}
	for _, fn := range []string{"tools", "approve", "graph"} {
		if _, err := os.Stat(filepath.Join(c.Assets, fn+".zip")); err != nil {
			return c, fmt.Errorf("%s/%s.zip is missing: build the functions first (scripts/build-lambdas.sh)", c.Assets, fn)
		}
	}
	return c, nil
}
