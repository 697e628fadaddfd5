# Source this file (`source scripts/use-node.sh`) to put Node.js >= 22.13 on PATH (the first
# release with node:sqlite built in without a flag; the packages' engines field says the same).
# Uses the node already on PATH when it is recent enough; otherwise installs Node 24 from the npm
# registry (the `node@24` package, which ships the official binary) into .tools/node and puts it
# first on PATH. Works offline once installed.
docqa_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
# Major * 1000 + minor, e.g. 22013 for 22.13.x; 0 without a node.
docqa_node_major="$(node -p 'const [major, minor] = process.versions.node.split(".").map(Number); major * 1000 + minor' 2>/dev/null || echo 0)"
if [ "$docqa_node_major" -lt 22013 ]; then
  docqa_node_bin="$docqa_root/.tools/node/node_modules/node/bin"
  if [ ! -x "$docqa_node_bin/node" ]; then
    echo "docqa: Node $(node -v 2>/dev/null || echo 'not found') is older than 22.13; installing node@24 from the npm registry into .tools/node" >&2
    mkdir -p "$docqa_root/.tools/node"
    (cd "$docqa_root/.tools/node" && npm install --no-save --no-package-lock --no-audit --no-fund --prefix . node@24 >&2)
  fi
  export PATH="$docqa_node_bin:$PATH"
fi
unset docqa_node_major docqa_node_bin
echo "docqa: using node $(node -v) at $(command -v node)" >&2
