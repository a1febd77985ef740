#!/usr/bin/env bash
# Synthesizes the CDK app for an environment into infra/cdk/cdk.out/<env>
# without the cdk CLI (the Go app writes the cloud assembly itself), then
# checks every template with cfn-lint.
#   scripts/synth.sh dev|staging|prod [key=value ...]   (extra context)
set -euo pipefail
cd "$(dirname "$0")/.."
env=${1:?usage: scripts/synth.sh dev|staging|prod [key=value ...]}
shift
[ -f dist/lambda/graph.zip ] || scripts/build-lambdas.sh >/dev/null
# The context is cdk.json's (its feature flags, as `cdk deploy` reads them)
# with the environment and the extra keys on top.
ctx=$(python3 -c '
import json, sys
c = json.load(open("infra/cdk/cdk.json"))["context"]
c.update({"env": sys.argv[1], "assets": sys.argv[2]})
for kv in sys.argv[3:]:
    k, v = kv.split("=", 1)
    c[k] = v
print(json.dumps(c))' "$env" "$PWD/dist/lambda" "$@")
out=infra/cdk/cdk.out/$env
rm -rf "$out"
mkdir -p "$out"
# The machine's Node.js is 20, end-of-life for jsii since 2026-04-30 but still
# working for synthesis; say so once here instead of in a banner per run.
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20 JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 22 ] || echo "synth: Node.js $node_major is past its end of life for jsii; synthesis still works" >&2
(cd infra/cdk && CDK_OUTDIR="$PWD/cdk.out/$env" CDK_CONTEXT_JSON="$ctx" go run .)
if ! command -v cfn-lint >/dev/null; then
  python3 -m pip install --quiet "cfn-lint==1.51.0"
fi
# W3005: CDK writes a DependsOn that a GetAtt already implies; harmless.
cfn-lint --ignore-checks W3005 -- "$out"/*.template.json
echo "synthesized $out: $(ls "$out"/*.template.json | xargs -n1 basename | paste -sd' ') (cfn-lint clean)"
