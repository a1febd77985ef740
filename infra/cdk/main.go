// Command cdk is the CDK app of FileContext for AWS: one stack per
// environment, chosen by context.
//
//	cdk synth -c env=dev
//	cdk deploy -c env=prod -c bedrock=true
//
// Context: env (dev, staging or prod; default dev), bedrock (true adds a
// Bedrock agent with the catalog as action groups), bedrockModel (the
// agent's foundation model), approval (off applies writes at once; default
// required), assets (the folder of the function zips; default
// ../../dist/lambda, built by scripts/build-lambdas.sh).
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	cfg, err := ConfigFromContext(app)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cdk:", err)
		os.Exit(2)
	}
	NewStack(app, cfg)
	asm := app.Synth(nil)
	// The tool schema a Bedrock AgentCore Gateway Lambda target takes for
	// the tools function, generated from the catalog, beside the template.
	if err := writeAgentCoreSchema(*asm.Directory(), cfg); err != nil {
		fmt.Fprintln(os.Stderr, "cdk:", err)
		os.Exit(1)
	}
}
