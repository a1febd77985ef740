// Package lambdaevents builds the approval event port of the functions that
// make approval transitions (tools and approve), apart from internal/app so
// that the graph function does not link the EventBridge client.
package lambdaevents

import (
	"fmt"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/eventbridge"

	"github.com/filecontext-aws/filecontext/internal/awsenv"
	"github.com/filecontext-aws/filecontext/internal/config"
	"github.com/filecontext-aws/filecontext/pkg/approval"
	ebpub "github.com/filecontext-aws/filecontext/pkg/approval/eventbridge"
)

// New returns the event port the configuration asks for: EventBridge
// (FILECONTEXT_APPROVAL_EVENTS=eventbridge), with a client from the Lambda
// environment (AWS_ENDPOINT_URL_EVENTBRIDGE reaches an emulator), or none.
// Failures to publish are logged.
func New(cfg config.Config, log *slog.Logger) (approval.Events, error) {
	if cfg.ApprovalEvents != "eventbridge" {
		return nil, nil
	}
	env, err := awsenv.FromOS()
	if err != nil {
		return nil, fmt.Errorf("AWS settings: %w", err)
	}
	client := eventbridge.New(eventbridge.Options{Region: env.Region, Credentials: env.Credentials, BaseEndpoint: env.Endpoint("EVENTBRIDGE")})
	p := ebpub.New(client, cfg.EventBus)
	p.OnError = func(err error) { log.Warn("approval event not published", "error", err.Error()) }
	return p, nil
}
