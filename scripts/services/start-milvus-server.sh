#!/usr/bin/env bash
# Start a real Milvus server (not milvus-lite) on 127.0.0.1:${DOCQA_MILVUS_SERVER_PORT} (default: a
# free port) for the cluster tests (`npm run test:cluster`).
#
# The only Milvus server any registry reachable here serves is PyPI's `milvus` package (2.3.5, the
# last release with a manylinux wheel): the Milvus standalone binary of that release (Go
# coordinators and proxy, the C++ segcore and knowhere HNSW, embedded etcd, local storage and
# rocksmq), unpacked from the wheel and started by the package's `milvus-server` launcher, which
# picks free ports for the internal services. Milvus 2.3 has no BM25 function, no sparse vectors
# and no hybridSearch (2.4 and 2.5 brought them), so docqa uses it as the vector index beside a
# search engine (its collections without BM25); milvus-lite 3.x (start-milvus.sh) covers BM25 and
# hybridSearch. Neither Milvus 2.4+ nor a distributed Milvus can be installed from PyPI, npm, Maven
# Central, crates.io, the Go proxy or Debian here (see docs/deployment.md).
#
# State under ${DOCQA_SERVICES_DIR:-$PWD/.services}/milvus-server/: venv/ (reinstalled when the
# spec changes), data/ (the server's configs, logs and data; survives restarts), milvus-server.pid
# (the launcher's pid; it stops the server on SIGTERM), milvus-server.port, milvus-server.log.
#
# Environment:
#   DOCQA_MILVUS_SERVER_PORT  gRPC port (default: the running server's, else a free port)
#   DOCQA_MILVUS_SERVER_SPEC  pip requirement (default milvus==2.3.5, verified)
#   DOCQA_PYTHON              Python that creates the virtualenv (default python3)
# Idempotent; on success writes ${DOCQA_SERVICES_DIR}/milvus-server.ready containing the URL.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=milvus-server

spec="${DOCQA_MILVUS_SERVER_SPEC:-milvus==2.3.5}"
python_bin="${DOCQA_PYTHON:-python3}"
state_dir="$(docqa_services_dir)/milvus-server"
venv="$state_dir/venv"
data_dir="$state_dir/data"
pidfile="$state_dir/milvus-server.pid"
logfile="$state_dir/milvus-server.log"
# The launcher: the package's `milvus-server` entry point, with SIGTERM turned into the SIGINT on
# which it stops the server process it started (plain SIGTERM would leave that process behind).
launcher='import signal, sys; from milvus import main; signal.signal(signal.SIGTERM, lambda *_: signal.raise_signal(signal.SIGINT)); sys.exit(main())'
pattern="from milvus import main"
port="$(docqa_service_port "${DOCQA_MILVUS_SERVER_PORT:-}" "$pidfile" "$pattern")"
url="http://127.0.0.1:${port}"
started_at="$(docqa_now)"
mkdir -p "$state_dir"

# Ready when the server's process is up and the proxy answers a client call (GetVersion).
milvus_server_ready() {
  docqa_port_open "$port" || return 1
  "$venv/bin/python" - "$port" <<'PY'
import sys, grpc
channel = grpc.insecure_channel(f"127.0.0.1:{sys.argv[1]}")
grpc.channel_ready_future(channel).result(timeout=5)
PY
}

docqa_refuse_other_port "$pidfile" "$pattern" "$port" || exit 1
if docqa_pidfile_alive "$pidfile" "$pattern" && milvus_server_ready; then
  docqa_log "already running on 127.0.0.1:${port} (pid $(docqa_pid_from_file "$pidfile"))"
  docqa_mark_ready milvus-server "$url"
  exit 0
fi
if ! docqa_pidfile_alive "$pidfile" "$pattern" && docqa_port_open "$port"; then
  docqa_log "port ${port} is in use; set DOCQA_MILVUS_SERVER_PORT"
  exit 1
fi

# Install (pip caches the 58 MB wheel in its own cache; the marker records the installed spec).
marker="$venv/.docqa-installed"
if ! docqa_pidfile_alive "$pidfile" "$pattern" && { [ ! -x "$venv/bin/milvus-server" ] || [ "$(cat "$marker" 2>/dev/null || true)" != "$spec" ]; }; then
  docqa_log "installing $spec (and grpcio, for the readiness check) into $venv"
  "$python_bin" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$spec" grpcio
  printf '%s' "$spec" >"$marker"
fi

if ! docqa_pidfile_alive "$pidfile" "$pattern"; then
  mkdir -p "$data_dir"
  docqa_log "starting the Milvus server of $spec on 127.0.0.1:${port}"
  docqa_start_background "$pidfile" "$logfile" "$venv/bin/python" -u -c "$launcher" --data "$data_dir" --proxy-port "$port"
  docqa_record_port "$pidfile" "$port"
fi

# A cold start unpacks the binaries (lzma) and starts etcd and every coordinator: up to 2 minutes.
if ! docqa_wait_until 240 "$pidfile" "$pattern" milvus_server_ready; then
  docqa_fail_with_log "$logfile" "the Milvus server did not answer on 127.0.0.1:${port}" || true
  docqa_stop_pidfile "$pidfile" "$pattern" TERM || true
  exit 1
fi
docqa_mark_ready milvus-server "$url"
docqa_log "ready on ${url} (pid $(docqa_pid_from_file "$pidfile"), $(($(docqa_now) - started_at)) s)"
