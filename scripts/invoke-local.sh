#!/usr/bin/env bash
# Runs one function under aws-lambda-rie against the local emulators and
# sends it one event file; prints the answer. The data bucket is filled
# with examples/ under the prefix the sample events use.
#   scripts/invoke-local.sh tools events/apigw/file_access_read.json
set -euo pipefail
cd "$(dirname "$0")/.."
fn=${1:?usage: scripts/invoke-local.sh tools|approve|graph EVENT.json}
event=${2:?usage: scripts/invoke-local.sh tools|approve|graph EVENT.json}
localstack/emulators.sh install
trap '[ -n "${FILECONTEXT_EMULATOR_DIR:-}" ] && localstack/emulators.sh stop "$FILECONTEXT_EMULATOR_DIR"; [ -n "${rie_pid:-}" ] && kill "$rie_pid" 2>/dev/null || true' EXIT
# shellcheck disable=SC1090
source "$(localstack/emulators.sh start)"
export AWS_ACCESS_KEY_ID=$FILECONTEXT_TEST_VERSITYGW_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$FILECONTEXT_TEST_VERSITYGW_SECRET_KEY AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1
aws="aws --endpoint-url $FILECONTEXT_TEST_VERSITYGW_URL"
$aws s3 mb s3://local-data >/dev/null
$aws s3 mb s3://local-system >/dev/null
$aws s3 cp --recursive --quiet examples s3://local-data/tenant-e2e-91c4/
AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test aws --endpoint-url "$FILECONTEXT_TEST_MOTO_URL" dynamodb create-table --table-name local-approvals \
  --attribute-definitions AttributeName=approvalId,AttributeType=S AttributeName=status,AttributeType=S AttributeName=requestedKey,AttributeType=S \
  --key-schema AttributeName=approvalId,KeyType=HASH --billing-mode PAY_PER_REQUEST \
  --global-secondary-indexes 'IndexName=byStatus,KeySchema=[{AttributeName=status,KeyType=HASH},{AttributeName=requestedKey,KeyType=RANGE}],Projection={ProjectionType=ALL}' >/dev/null
bin=$(mktemp -d)
CGO_ENABLED=0 go build -tags lambda.norpc -trimpath -ldflags "-s -w" -o "$bin/bootstrap" "./functions/$fn"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
api=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
env AWS_ENDPOINT_URL_S3="$FILECONTEXT_TEST_VERSITYGW_URL" AWS_ENDPOINT_URL_DYNAMODB="$FILECONTEXT_TEST_MOTO_URL" \
  FILECONTEXT_S3_PATH_STYLE=true FILECONTEXT_BUCKET=local-data FILECONTEXT_SYSTEM_BUCKET=local-system \
  FILECONTEXT_APPROVALS_TABLE=local-approvals FILECONTEXT_ROOT_PREFIX=tenant-e2e-91c4/ FILECONTEXT_WRITE_TOOLS=enabled \
  "$FILECONTEXT_TEST_RIE" --runtime-interface-emulator-address "127.0.0.1:$port" --runtime-api-address "127.0.0.1:$api" "$bin/bootstrap" \
  >"$bin/rie.log" 2>&1 &
rie_pid=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
curl -s -X POST "http://127.0.0.1:$port/2015-03-31/functions/function/invocations" --data-binary "@$event"
echo
