#!/usr/bin/env bash
# Installs the Debian packages the tests and benchmarks run: rapper
# (raptor2-utils) and dot (graphviz) validate the graph exports, rg
# (ripgrep) is the grep benchmark's baseline, chromium runs the approval
# console's browser tests (driven by chromedp over the DevTools pipe; no
# chromedriver). Versions are Debian 12's.
set -euo pipefail

packages=(raptor2-utils=2.0.15-4+deb12u1 graphviz=2.42.2-7+deb12u1 ripgrep=13.0.0-4+b2 chromium=148.0.7778.167-1~deb12u1)
need=()
command -v rapper >/dev/null || need+=("${packages[0]}")
command -v dot >/dev/null || need+=("${packages[1]}")
command -v rg >/dev/null || need+=("${packages[2]}")
[ -x /usr/bin/chromium ] || need+=("${packages[3]}")
[ ${#need[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
echo "system packages: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1; then
  $sudo apt-get update -q >/dev/null
  # The pinned version may have been superseded by a security update: take
  # the current one of the same package rather than fail.
  $sudo apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 \
    || $sudo apt-get install -y -q --no-install-recommends "${need[@]%%=*}" >/dev/null
fi
