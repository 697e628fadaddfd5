#!/usr/bin/env bash
# Builds node-llama-cpp's native addon for this machine's CPU from the llama.cpp source that the
# node-llama-cpp package ships (node_modules/node-llama-cpp/llama/gitRelease.bundle, which
# `node-llama-cpp source download` clones instead of GitHub: no network),
# so that the in-process model (RAG_LLM_PROVIDER=llama-cpp) runs llama.cpp compiled for this CPU
# instead of the generic prebuilt binary of @node-llama-cpp/<platform>. docqa's `getLlama({ gpu:
# false, build: "never" })` loads a local build of the same options before the prebuilt one, and
# never builds at run time.
#
#   scripts/models/build-llama-addon.sh        # about 8 minutes of 2 cores the first time, under nice
#
# The build is cached per machine, keyed by the node-llama-cpp version, the CPU's feature flags and
# docqa's compiler flags (scripts/models/llama-cpu-options.sh: no AMX),
# under ${DOCQA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/docqa}/node-llama-cpp/, and copied into
# node_modules after each `npm ci`; a second run takes a second. Idempotent. If the build fails
# (no cmake or C++ compiler), it says so and exits 0: the prebuilt binary still serves.
#
# Caution (2026-11-28): on an AVX-512 Xeon (avx512_fp16, avx512_bf16, amx listed), the addon built
# here from node-llama-cpp 3.21.1's llama.cpp wrote wrong text (random tokens, most visibly with two
# sequences at once): 5 of the 10 in-process real-model tests failed, and all 10 passed with the
# prebuilt binary. `.ci/run` therefore does not run this script. Check a build with
# `npm run test:llm` before relying on it; delete node_modules/node-llama-cpp/llama/localBuilds to go
# back to the prebuilt binary.
#
# Environment:
#   DOCQA_CACHE_DIR   cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/docqa)
set -euo pipefail
cd "$(dirname "$0")/../.."

package=node_modules/node-llama-cpp
if [ ! -f "$package/package.json" ]; then
  echo "[llama-addon] node-llama-cpp is not installed (run npm ci first)" >&2
  exit 1
fi
version=$(node -e 'process.stdout.write(JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")).version)' "$package/package.json")
# Compiler flags for this CPU (AMX left out: scripts/models/llama-cpu-options.sh says why). They go
# into CC and CXX, which CMake reads as the compiler followed by arguments given to every compile:
# cmake-js sets CMAKE_CXX_FLAGS itself, so CXXFLAGS from the environment would be lost.
cpu_flags=$(scripts/models/llama-cpu-options.sh)
if [ -n "$cpu_flags" ]; then
  export CC="${CC:-gcc} $cpu_flags" CXX="${CXX:-g++} $cpu_flags"
fi
flags=$( (grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || echo unknown; echo "${CC:-} ${CXX:-}") | sha256sum | cut -c1-12)
cache_root="${DOCQA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/docqa}"
cache="$cache_root/node-llama-cpp/$version-$(uname -m)-$flags"
local_builds="$package/llama/localBuilds"

if [ -d "$cache/localBuilds" ] && [ -n "$(ls -A "$cache/localBuilds" 2>/dev/null)" ]; then
  mkdir -p "$local_builds"
  cp -a "$cache/localBuilds/." "$local_builds/"
  echo "[llama-addon] node-llama-cpp $version: the build for this CPU, from the cache ($cache)"
  exit 0
fi

for tool in cmake g++ git; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "[llama-addon] $tool is missing: the prebuilt node-llama-cpp binary will serve" >&2
    exit 0
  fi
done

echo "[llama-addon] building node-llama-cpp $version's llama.cpp for this CPU from its bundled source (about 8 minutes of 2 cores)"
started=$(date +%s)
if ! nice -n 10 npx --no-install node-llama-cpp source download --gpu false --noUsageExample; then
  echo "[llama-addon] the build failed: the prebuilt node-llama-cpp binary will serve" >&2
  exit 0
fi
mkdir -p "$cache"
rm -rf "$cache/localBuilds.partial"
cp -a "$local_builds" "$cache/localBuilds.partial"
mv "$cache/localBuilds.partial" "$cache/localBuilds"
echo "[llama-addon] built in $(($(date +%s) - started)) s; cached under $cache"
