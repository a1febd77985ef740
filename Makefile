# Tasks of FileContext for AWS. ENV picks the environment (dev, staging, prod).
ENV ?= dev
CDK_VERSION := 2.1148.1
CDK := npx --yes aws-cdk@$(CDK_VERSION)
ASSETS := $(CURDIR)/dist/lambda
CDK_APPROVAL ?= broadening

.PHONY: serve test bench build release-artifacts synth deploy destroy diff bootstrap invoke

serve: ## Serve examples/ on 127.0.0.1:8080
	go run ./cmd/filecontext serve --root examples

test: ## Every test, as CI runs it
	scripts/test

bench: ## The benchmarks of docs/BENCHMARKS.md
	scripts/bench

build: ## Lambda zips (arm64) into dist/lambda
	scripts/build-lambdas.sh arm64

release-artifacts: ## Zips and CLI binaries into dist/release
	scripts/release-artifacts.sh v$$(cat VERSION)

synth: build ## Synthesize the stack of ENV and check it with cfn-lint
	scripts/synth.sh $(ENV)

bootstrap: ## cdk bootstrap the account and region of your AWS credentials
	cd infra/cdk && $(CDK) bootstrap -c env=$(ENV) -c assets=$(ASSETS)

diff: build
	cd infra/cdk && $(CDK) diff -c env=$(ENV) -c assets=$(ASSETS)

deploy: build ## Deploy the stack of ENV (add CONTEXT="-c bedrock=true" for the Bedrock agent)
	cd infra/cdk && $(CDK) deploy -c env=$(ENV) -c assets=$(ASSETS) $(CONTEXT) --require-approval $(CDK_APPROVAL)

destroy: ## Delete the stack of ENV (prod keeps its buckets and table)
	cd infra/cdk && $(CDK) destroy -c env=$(ENV) -c assets=$(ASSETS) --force

invoke: ## Invoke FUNCTION (tools, approve, graph) locally under aws-lambda-rie with EVENT against the emulators
	scripts/invoke-local.sh $(FUNCTION) $(EVENT)
