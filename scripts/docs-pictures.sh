#!/usr/bin/env bash
# Renders the pictures of docs/ from their checked-in sources with Graphviz
# (Debian's graphviz, installed by scripts/system-packages.sh).
#   scripts/docs-pictures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/system-packages.sh
dot -Tpng -Gdpi=110 docs/architecture.dot -o docs/architecture.png
echo "docs/architecture.png"
