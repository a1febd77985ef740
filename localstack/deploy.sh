#!/usr/bin/env bash
# Deploys the dev stack into a running LocalStack (localstack/docker-compose.yml)
# with cdklocal, pinned with the CDK CLI it wraps.
#   localstack/deploy.sh [destroy]
set -euo pipefail
cd "$(dirname "$0")/.."
: "${LOCALSTACK_AUTH_TOKEN:?LocalStack needs an auth token since 2026: export LOCALSTACK_AUTH_TOKEN}"
command -v docker >/dev/null || { echo "LocalStack needs Docker; without it, use the emulators of localstack/emulators.sh (the tests do)" >&2; exit 1; }
scripts/build-lambdas.sh arm64 >/dev/null
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 AWS_ENDPOINT_URL=http://127.0.0.1:4566
cdklocal=(npx --yes --package aws-cdk-local@3.0.4 --package aws-cdk@2.1148.1 cdklocal)
cd infra/cdk
if [ "${1:-}" = destroy ]; then
  "${cdklocal[@]}" destroy -c env=dev -c assets="$PWD/../../dist/lambda" --force
  exit
fi
"${cdklocal[@]}" bootstrap -c env=dev -c assets="$PWD/../../dist/lambda"
"${cdklocal[@]}" deploy -c env=dev -c assets="$PWD/../../dist/lambda" --require-approval never --outputs-file ../../dist/localstack-outputs.json
echo "outputs: dist/localstack-outputs.json"
