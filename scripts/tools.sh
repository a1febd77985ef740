#!/usr/bin/env bash
# Installs the pinned Go tools the checks use into the cache, outside the
# repository, and prints the directory to put on PATH. Reused when present.
set -euo pipefail

STATICCHECK_VERSION=v0.8.2 # staticcheck 2026.2.2
ACTIONLINT_VERSION=v1.7.12

CACHE=${FILECONTEXT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/filecontext}
BIN=$CACHE/bin/tools
mkdir -p "$BIN"

install_go_tool() { # name module version
  local stamp=$BIN/.$1-$3
  if [ ! -x "$BIN/$1" ] || [ ! -e "$stamp" ]; then
    echo "tools: installing $1 $3" >&2
    (cd "$(mktemp -d)" && GOBIN="$BIN" go install "$2@$3") >&2
    rm -f "$BIN"/.$1-*
    touch "$stamp"
  fi
}

install_go_tool staticcheck honnef.co/go/tools/cmd/staticcheck "$STATICCHECK_VERSION"
install_go_tool actionlint github.com/rhysd/actionlint/cmd/actionlint "$ACTIONLINT_VERSION"
echo "$BIN"
