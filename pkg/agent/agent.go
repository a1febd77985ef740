// Package agent is an example agent: a chat loop with the official OpenAI Go
// SDK against any OpenAI-compatible endpoint, advertising the FileContext
// catalog as functions and running the model's tool calls through the API
// client. It is small on purpose; it shows what an agent host does with
// the API: put the instructions in the system prompt, offer the tools, run
// each call, and return every result with its call id.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/filecontext-aws/filecontext/pkg/client"
)

// Agent runs conversations.
type Agent struct {
	Model      openai.Client
	ModelName  string
	Tools      *client.Client
	Concurrent bool // run the tool calls of one turn at once
	MaxSteps   int  // model turns per Run (default 10)
}

// Conversation is the message history; it marshals to JSON, so it can be
// saved after a turn and restored.
type Conversation struct {
	Messages []openai.ChatCompletionMessageParamUnion `json:"messages"`
}

// ErrTooManySteps ends a run whose model keeps calling tools.
var ErrTooManySteps = errors.New("agent: the model did not answer within the step limit")

// Run adds the user's prompt and loops until the model answers with text.
func (a *Agent) Run(ctx context.Context, conv *Conversation, prompt string) (string, error) {
	cat, err := a.Tools.Catalog(ctx)
	if err != nil {
		return "", fmt.Errorf("agent: the catalog: %w", err)
	}
	if len(conv.Messages) == 0 {
		conv.Messages = append(conv.Messages, openai.SystemMessage(cat.Instructions))
	}
	conv.Messages = append(conv.Messages, openai.UserMessage(prompt))
	tools := make([]openai.ChatCompletionToolUnionParam, 0, len(cat.Tools))
	for _, t := range cat.Tools {
		tools = append(tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: shared.FunctionParameters(t.InputSchema),
		}))
	}
	steps := a.MaxSteps
	if steps <= 0 {
		steps = 10
	}
	for range steps {
		resp, err := a.Model.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: a.ModelName, Messages: conv.Messages, Tools: tools,
		})
		if err != nil {
			return "", fmt.Errorf("agent: the model: %w", err)
		}
		if len(resp.Choices) == 0 {
			return "", errors.New("agent: the model answered no choice")
		}
		msg := resp.Choices[0].Message
		conv.Messages = append(conv.Messages, msg.ToParam())
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		results := a.runCalls(ctx, msg.ToolCalls)
		for i, call := range msg.ToolCalls {
			conv.Messages = append(conv.Messages, openai.ToolMessage(results[i], call.ID))
		}
	}
	return "", ErrTooManySteps
}

// runCalls runs one turn's tool calls and returns their results in order.
// A failed call's result is its error object, so the model can recover.
func (a *Agent) runCalls(ctx context.Context, calls []openai.ChatCompletionMessageToolCallUnion) []string {
	results := make([]string, len(calls))
	run := func(i int) { results[i] = a.runCall(ctx, calls[i]) }
	if !a.Concurrent {
		for i := range calls {
			run(i)
		}
		return results
	}
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() { defer wg.Done(); run(i) }()
	}
	wg.Wait()
	return results
}

func (a *Agent) runCall(ctx context.Context, call openai.ChatCompletionMessageToolCallUnion) string {
	args := json.RawMessage(call.Function.Arguments)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return errorJSON("invalid_argument", "The arguments are not valid JSON.")
	}
	out, _, err := a.Tools.Call(ctx, call.Function.Name, args)
	if err != nil {
		var apiErr *client.Error
		if errors.As(err, &apiErr) {
			b, _ := json.Marshal(map[string]any{"error": apiErr})
			return string(b)
		}
		return errorJSON("unavailable", "The tool could not be reached: "+err.Error())
	}
	return string(out)
}

func errorJSON(code, message string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": message}})
	return string(b)
}
