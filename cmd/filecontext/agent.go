package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/filecontext-aws/filecontext/pkg/agent"
)

// runAgent is the example agent: one prompt, answered by any
// OpenAI-compatible model using the API's tools.
func runAgent(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var r remote
	r.flags(fs)
	modelURL := fs.String("model-endpoint", os.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible API base URL (default OPENAI_BASE_URL, else OpenAI)")
	model := fs.String("model", "gpt-4.1-mini", "model name")
	concurrent := fs.Bool("concurrent", false, "run the tool calls of a turn at once")
	conversation := fs.String("conversation", "", "a JSON file: the conversation is read from it when it exists, and saved to it after the answer")
	steps := fs.Int("max-steps", 10, "model turns before giving up")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) == 0 {
		fmt.Fprintln(stderr, `filecontext agent: give a prompt, e.g. filecontext agent "What do the guides say about approvals?"`)
		return 2
	}
	tools, err := r.client(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "filecontext agent:", err)
		return 2
	}
	opts := []option.RequestOption{}
	if *modelURL != "" {
		opts = append(opts, option.WithBaseURL(*modelURL))
	}
	a := &agent.Agent{Model: openai.NewClient(opts...), ModelName: *model, Tools: tools, Concurrent: *concurrent, MaxSteps: *steps}
	conv := &agent.Conversation{}
	if *conversation != "" {
		if b, err := os.ReadFile(*conversation); err == nil {
			if err := json.Unmarshal(b, conv); err != nil {
				fmt.Fprintln(stderr, "filecontext agent: the conversation file:", err)
				return 2
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintln(stderr, "filecontext agent:", err)
			return 1
		}
	}
	answer, err := a.Run(ctx, conv, strings.Join(rest, " "))
	if err != nil {
		fmt.Fprintln(stderr, "filecontext agent:", err)
		return 1
	}
	fmt.Fprintln(stdout, answer)
	if *conversation != "" {
		b, _ := json.MarshalIndent(conv, "", "  ")
		if err := os.WriteFile(*conversation, b, 0o600); err != nil {
			fmt.Fprintln(stderr, "filecontext agent:", err)
			return 1
		}
	}
	return 0
}
