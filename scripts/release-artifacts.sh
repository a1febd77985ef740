#!/usr/bin/env bash
# Builds what a release publishes into dist/release: the three Lambda zips
# for arm64 and amd64, and the filecontext CLI for linux and darwin on
# amd64 and arm64, with a SHA256SUMS file.
#   scripts/release-artifacts.sh v1.0.0
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:?usage: scripts/release-artifacts.sh TAG}
out=dist/release
rm -rf "$out"
mkdir -p "$out"
for arch in arm64 amd64; do
  scripts/build-lambdas.sh "$arch" >/dev/null
  src=dist/lambda
  [ "$arch" = arm64 ] || src=dist/lambda-$arch
  for fn in tools approve graph; do
    cp "$src/$fn.zip" "$out/filecontext-$fn-$tag-linux-$arch.zip"
  done
done
for os in linux darwin; do
  for arch in amd64 arm64; do
    name=filecontext-$tag-$os-$arch
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w" -o "$out/$name" ./cmd/filecontext
  done
done
(cd "$out" && sha256sum ./* > SHA256SUMS)
ls -l "$out"
