#!/usr/bin/env bash
# Deploys the dev stack into a running LocalStack (localstack/docker-compose.yml)
# with cdklocal, pinned with the CDK CLI it wraps.
#   localstack/deploy.sh [deploy|destroy|synth]
#
# synth needs neither Docker nor a LocalStack token: it synthesizes through
# cdklocal with the same environment a deploy uses (scripts/test runs it).
#
# The environment follows LocalStack's documentation: one endpoint for
# every service, S3 under its s3.localhost.localstack.cloud name, path-style
# S3 (AWS_S3_FORCE_PATH_STYLE for cdklocal's asset uploads, the s3PathStyle
# context for the functions), and AWS_ENVAR_ALLOWLIST so that cdklocal
# (which strips AWS_* settings from the CDK CLI's environment since CDK
# 2.177) keeps the region and the test credentials. The functions are built
# for this machine's architecture, which LocalStack runs them on.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-deploy}
case "$mode" in
  deploy|destroy|synth) ;;
  *) echo "usage: localstack/deploy.sh [deploy|destroy|synth]" >&2; exit 2 ;;
esac
if [ "$mode" != synth ]; then
  : "${LOCALSTACK_AUTH_TOKEN:?LocalStack needs an auth token since 2026: export LOCALSTACK_AUTH_TOKEN}"
  command -v docker >/dev/null || { echo "LocalStack needs Docker; without it, use the emulators of localstack/emulators.sh (the tests do)" >&2; exit 1; }
fi

case "$(uname -m)" in
  aarch64|arm64) arch=arm64 lambda_arch=arm64 assets=dist/lambda ;;
  *) arch=amd64 lambda_arch=x86_64 assets=dist/lambda-amd64 ;;
esac
scripts/build-lambdas.sh "$arch" >/dev/null

export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1
export AWS_ENDPOINT_URL=http://localhost.localstack.cloud:4566
export AWS_ENDPOINT_URL_S3=http://s3.localhost.localstack.cloud:4566
export AWS_S3_FORCE_PATH_STYLE=1
export AWS_ENVAR_ALLOWLIST=AWS_REGION,AWS_DEFAULT_REGION,AWS_ACCESS_KEY_ID,AWS_SECRET_ACCESS_KEY,AWS_ENDPOINT_URL_S3
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20 JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1
cdklocal=(npx --yes --package aws-cdk-local@3.0.4 --package aws-cdk@2.1148.1 cdklocal)
context=(-c env=dev -c assets="$PWD/$assets" -c architecture="$lambda_arch" -c s3PathStyle=true)
cd infra/cdk
case "$mode" in
  synth)
    "${cdklocal[@]}" synth "${context[@]}" --output cdk.out/localstack --quiet
    echo "synthesized infra/cdk/cdk.out/localstack (architecture $lambda_arch)"
    ;;
  destroy)
    "${cdklocal[@]}" destroy "${context[@]}" --force
    ;;
  deploy)
    "${cdklocal[@]}" bootstrap "${context[@]}"
    "${cdklocal[@]}" deploy "${context[@]}" --require-approval never --outputs-file ../../dist/localstack-outputs.json
    echo "outputs: dist/localstack-outputs.json"
    ;;
esac
