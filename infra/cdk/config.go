package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/constructs-go/constructs/v10"
)

// Config is what a stack is built from.
type Config struct {
	Env          string // dev, staging or prod
	Bedrock      bool
	BedrockModel string
	ApprovalOff  bool
	Assets       string // folder holding tools.zip, approve.zip, graph.zip
}

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
	c := Config{
		Env:          get("env", "dev"),
		Bedrock:      get("bedrock", "false") == "true",
		BedrockModel: get("bedrockModel", "anthropic.claude-3-5-sonnet-20240620-v1:0"),
		ApprovalOff:  get("approval", "required") == "off",
		Assets:       get("assets", filepath.Join("..", "..", "dist", "lambda")),
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
	for _, fn := range []string{"tools", "approve", "graph"} {
		if _, err := os.Stat(filepath.Join(c.Assets, fn+".zip")); err != nil {
			return c, fmt.Errorf("%s/%s.zip is missing: build the functions first (scripts/build-lambdas.sh)", c.Assets, fn)
		}
	}
	return c, nil
}
