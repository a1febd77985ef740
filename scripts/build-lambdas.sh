#!/usr/bin/env bash
# Builds every Lambda function as Lambda runs it (provided.al2023, static,
# stripped, with aws-lambda-go's documented lambda.norpc tag: provided.al2023
# speaks the Runtime API only, so the net/rpc path is dead weight) and zips
# each as dist/lambda/<function>.zip with its bootstrap.
#   scripts/build-lambdas.sh [arm64|amd64]   (default arm64)
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-arm64}
out=dist/lambda
[ "$arch" = arm64 ] || out=dist/lambda-$arch
mkdir -p "$out"
for fn in tools approve graph; do
  tmp=$(mktemp -d)
  CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -tags lambda.norpc -trimpath -ldflags "-s -w" -o "$tmp/bootstrap" "./functions/$fn"
  # A fixed timestamp keeps the zip, and so the asset hash, the same for the same binary.
  touch -d "2026-01-01T00:00:00Z" "$tmp/bootstrap"
  rm -f "$out/$fn.zip"
  scripts/zip-bootstrap.py "$tmp/bootstrap" "$out/$fn.zip"
  rm -rf "$tmp"
  echo "$out/$fn.zip $(stat -c %s "$out/$fn.zip") bytes"
done
