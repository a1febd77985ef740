#!/usr/bin/env bash
# Installs, starts and stops the local AWS emulators the tests use (moto
# server for S3 and DynamoDB, versitygw for S3, dynalite for DynamoDB, and
# aws-lambda-rie, which the tests start per function), each
# pinned to a version, each on a free loopback port, each waited for until
# healthy. No Docker needed.
#
#   localstack/emulators.sh install        build/fetch pinned tools into the cache
#   localstack/emulators.sh start          start them in a new state folder; prints
#                                          the env file path (FILECONTEXT_EMULATOR_DIR
#                                          in it names the folder)
#   localstack/emulators.sh stop [DIR]     stop the emulators of one state folder
#   localstack/emulators.sh env [DIR]      print its env file (export lines)
#
# Cache:  $FILECONTEXT_CACHE (default ~/.cache/filecontext), outside the repo.
# State:  DIR, else $FILECONTEXT_EMULATOR_DIR, else (for start) a new folder
#         $TMPDIR/filecontext-emulators.XXXXXX. Every run gets its own folder,
#         so a start or stop never touches emulators another run started.
set -euo pipefail

VERSITYGW_VERSION=v1.8.0
RIE_VERSION=v0.0.0-20261030222936-bef5c4ba774d
MOTO_VERSION=5.2.1
DYNALITE_VERSION=4.0.0

CACHE=${FILECONTEXT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/filecontext}
STATE=${2:-${FILECONTEXT_EMULATOR_DIR:-}}
BIN=$CACHE/bin

log() { echo "emulators: $*" >&2; }
die() { log "$*"; exit 1; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# go_tool NAME MODULE VERSION: builds a Go command once into the cache as
# NAME-VERSION and prints its path.
go_tool() {
  local exe=$BIN/$1-$3
  if [ ! -x "$exe" ]; then
    log "building $1 $3 (once; versitygw takes a few minutes)"
    mkdir -p "$BIN"
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && GOBIN="$tmp" GOFLAGS=-mod=mod go install "$2@$3") || die "could not build $1 $3"
    mv "$tmp/$1" "$exe"
    rm -rf "$tmp"
  fi
  echo "$exe"
}

install_versitygw() { go_tool versitygw github.com/versity/versitygw/cmd/versitygw "$VERSITYGW_VERSION"; }
install_rie() { go_tool aws-lambda-rie github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie "$RIE_VERSION"; }

install_dynalite() {
  local dir=$CACHE/dynalite-$DYNALITE_VERSION
  if [ ! -f "$dir/node_modules/dynalite/cli.js" ]; then
    log "installing dynalite $DYNALITE_VERSION"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "dynalite@$DYNALITE_VERSION" >&2 \
      || die "could not install dynalite@$DYNALITE_VERSION"
  fi
  echo "$dir/node_modules/dynalite/cli.js"
}

start_dynalite() {
  local cli port
  cli=$(install_dynalite)
  port=$(free_port)
  node "$cli" --port "$port" >"$STATE/dynalite.log" 2>&1 &
  echo $! >"$STATE/dynalite.pid"
  wait_http dynalite "http://127.0.0.1:$port/" "$(cat "$STATE/dynalite.pid")"
  echo "export FILECONTEXT_TEST_DYNALITE_URL=http://127.0.0.1:$port" >>"$ENV_FILE"
  log "dynalite $DYNALITE_VERSION on 127.0.0.1:$port"
}

install_moto() {
  if python3 -c "import moto, sys; sys.exit(0 if moto.__version__ == '$MOTO_VERSION' else 1)" 2>/dev/null \
     && python3 -c "import flask, flask_cors" 2>/dev/null; then
    return
  fi
  log "installing moto[server]==$MOTO_VERSION"
  python3 -m pip install --quiet "moto[server]==$MOTO_VERSION" || die "could not install moto[server]==$MOTO_VERSION"
}

cmd_install() {
  install_moto
  install_versitygw >/dev/null
  install_rie >/dev/null
  install_dynalite >/dev/null
}

wait_http() { # name url pid
  local i
  for i in $(seq 1 150); do
    if ! kill -0 "$3" 2>/dev/null; then
      die "$1 exited during start-up; see $STATE/$1.log"
    fi
    if curl -s -o /dev/null --max-time 1 "$2"; then
      return 0
    fi
    sleep 0.1
  done
  die "$1 did not answer at $2 within 15 s; see $STATE/$1.log"
}

start_moto() {
  local port
  port=$(free_port)
  python3 -m moto.server -H 127.0.0.1 -p "$port" >"$STATE/moto.log" 2>&1 &
  echo $! >"$STATE/moto.pid"
  wait_http moto "http://127.0.0.1:$port/moto-api/" "$(cat "$STATE/moto.pid")"
  echo "export FILECONTEXT_TEST_MOTO_URL=http://127.0.0.1:$port" >>"$ENV_FILE"
  log "moto server $MOTO_VERSION on 127.0.0.1:$port"
}

start_versitygw() {
  local exe port
  exe=$(install_versitygw)
  port=$(free_port)
  mkdir -p "$STATE/versitygw-data"
  ROOT_ACCESS_KEY_ID=filecontext ROOT_SECRET_ACCESS_KEY=filecontext-secret \
    "$exe" --port "127.0.0.1:$port" --keep-alive --quiet posix "$STATE/versitygw-data" >"$STATE/versitygw.log" 2>&1 &
  echo $! >"$STATE/versitygw.pid"
  wait_http versitygw "http://127.0.0.1:$port/" "$(cat "$STATE/versitygw.pid")"
  {
    echo "export FILECONTEXT_TEST_VERSITYGW_URL=http://127.0.0.1:$port"
    echo "export FILECONTEXT_TEST_VERSITYGW_ACCESS_KEY=filecontext"
    echo "export FILECONTEXT_TEST_VERSITYGW_SECRET_KEY=filecontext-secret"
    echo "export FILECONTEXT_TEST_VERSITYGW_DATA=$STATE/versitygw-data"
  } >>"$ENV_FILE"
  log "versitygw $VERSITYGW_VERSION on 127.0.0.1:$port"
}

need_state() {
  [ -n "$STATE" ] || die "say which emulators: $0 $1 DIR (the folder start made), or set FILECONTEXT_EMULATOR_DIR"
  [ -d "$STATE" ] || die "$STATE is not a folder of emulators"
  ENV_FILE=$STATE/env
}

cmd_stop() {
  local f
  for f in "$STATE"/*.pid; do
    [ -e "$f" ] || continue
    kill "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
  done
}

cmd_start() {
  if [ -n "$STATE" ]; then
    # A folder named by the caller: its earlier emulators are the caller's.
    mkdir -p "$STATE"
    cmd_stop
    rm -rf "${STATE:?}"/*
  else
    STATE=$(mktemp -d "${TMPDIR:-/tmp}/filecontext-emulators.XXXXXX")
  fi
  ENV_FILE=$STATE/env
  # A start that fails part way stops what it started.
  trap 'status=$?; [ "$status" = 0 ] || cmd_stop' EXIT
  echo "export FILECONTEXT_EMULATOR_DIR=$STATE" >"$ENV_FILE"
  install_moto
  start_moto
  start_versitygw
  start_dynalite
  # aws-lambda-rie is started per function by the tests; they find it here.
  echo "export FILECONTEXT_TEST_RIE=$(install_rie)" >>"$ENV_FILE"
  echo "$ENV_FILE"
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) need_state stop && cmd_stop ;;
  env) need_state env && cat "$ENV_FILE" ;;
  *) die "usage: $0 install | start | stop [DIR] | env [DIR]" ;;
esac
