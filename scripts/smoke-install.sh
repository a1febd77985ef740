#!/usr/bin/env bash
# A clean-install smoke test: a new module outside the repository requires
# the project's packages (by a replace to this checkout), builds a small
# program against pkg/fileops and pkg/client, and `go install
# ./cmd/filecontext` goes into an empty GOBIN; then both run once, the
# program against the installed server.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

mkdir -p "$work/gobin" "$work/app"
GOBIN="$work/gobin" go install ./cmd/filecontext
[ -x "$work/gobin/filecontext" ] || { echo "smoke: go install produced nothing"; exit 1; }

cd "$work/app"
cat > go.mod <<MOD
module example.com/smoke

go 1.26

require github.com/filecontext-aws/filecontext v0.0.0

replace github.com/filecontext-aws/filecontext => $repo
MOD
cat > main.go <<'GO'
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/filecontext-aws/filecontext/pkg/client"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

func main() {
	ctx := context.Background()
	files, err := fileops.New(memstore.New(), pathsafe.Root{}, fileops.DefaultLimits())
	if err != nil {
		panic(err)
	}
	if _, err := files.Write(ctx, fileops.WriteArgs{FileName: "hello.md", Content: "hello\nworld\n"}); err != nil {
		panic(err)
	}
	w, err := files.ReadLines(ctx, fileops.ReadLinesArgs{FileName: "hello.md", StartLine: 2})
	if err != nil || w.Content != "2\tworld\n" {
		fmt.Println("fileops:", w, err)
		os.Exit(1)
	}
	r, err := client.New(os.Args[1]).Read(ctx, "notes/todo.txt")
	if err != nil {
		fmt.Println("client:", err)
		os.Exit(1)
	}
	fmt.Printf("smoke: fileops read line 2 %q; the client read %d bytes of notes/todo.txt\n", w.Content, r.Size)
}
GO
GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1
go build -o smoke .

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$work/gobin/filecontext" serve --root "$repo/examples" --addr "127.0.0.1:$port" --state "$work/state" >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/tools" && break; sleep 0.1; done
./smoke "http://127.0.0.1:$port"
"$work/gobin/filecontext" call file_context_info path=notes --endpoint "http://127.0.0.1:$port" | grep -q '"status": "directory"'
echo "smoke: the installed CLI served and called"
