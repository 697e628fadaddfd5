#!/usr/bin/env bash
# Start a Milvus Lite gRPC server on 127.0.0.1:${DOCQA_MILVUS_PORT:-19530} for integration tests.
#
# milvus-lite 3.x is a pure-Python reimplementation of Milvus (FAISS + Arrow/Parquet storage) with a
# Milvus-protocol gRPC adapter; its server mode is `milvus-lite server --data-dir DIR --host H --port P`.
# Its server mode imports pymilvus' generated gRPC stubs, but pymilvus is not a declared dependency
# of milvus-lite, so both packages are installed into a private virtualenv:
#   ${DOCQA_SERVICES_DIR:-$PWD/.services}/milvus/venv
# Data, pidfile and log live next to it. Idempotent: exits 0 at once if the server already answers.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=milvus

port="${DOCQA_MILVUS_PORT:-19530}"
# Versions verified with these scripts; override (e.g. DOCQA_MILVUS_LITE_SPEC='milvus-lite') to float.
lite_spec="${DOCQA_MILVUS_LITE_SPEC:-milvus-lite==3.2.2}"
pymilvus_spec="${DOCQA_PYMILVUS_SPEC:-pymilvus==3.0.2}"
python_bin="${DOCQA_PYTHON:-python3}"

state_dir="$(docqa_services_dir)/milvus"
venv="$state_dir/venv"
data_dir="$state_dir/data"
pidfile="$state_dir/milvus.pid"
logfile="$state_dir/milvus.log"
# Python code that runs the `milvus-lite` console script; its text ("milvus_lite.cmdline") is also
# what identifies our server in /proc/PID/cmdline when validating the pidfile.
launcher='import signal, sys; from milvus_lite.cmdline import main; signal.signal(signal.SIGTERM, signal.default_int_handler); signal.signal(signal.SIGINT, signal.default_int_handler); sys.exit(main(sys.argv[1:]))'
pattern="milvus_lite.cmdline"
started_at="$(docqa_now)"

# Health check: the port accepts connections and a real client call (GetVersion + ListCollections)
# through pymilvus succeeds.
milvus_ready() {
  docqa_port_open "$port" || return 1
  "$venv/bin/python" - "$port" <<'PY'
import sys
from pymilvus import MilvusClient

client = MilvusClient(uri=f"http://127.0.0.1:{sys.argv[1]}", timeout=5)
client.get_server_version()
client.list_collections()
client.close()
PY
}

# 1. Create the virtualenv and install milvus-lite + pymilvus, unless the recorded install spec
#    matches (the marker file makes a version change trigger a reinstall).
marker="$venv/.docqa-installed"
wanted="$lite_spec $pymilvus_spec"
if [ ! -x "$venv/bin/milvus-lite" ] || [ "$(cat "$marker" 2>/dev/null || true)" != "$wanted" ]; then
  docqa_log "installing $wanted into $venv"
  mkdir -p "$state_dir"
  "$python_bin" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "$lite_spec" "$pymilvus_spec"
  printf '%s' "$wanted" >"$marker"
fi

# 2. Already started by us and answering: nothing to do.
if docqa_pidfile_alive "$pidfile" "$pattern" && milvus_ready; then
  docqa_log "already running on 127.0.0.1:${port} (pid $(docqa_pid_from_file "$pidfile"))"
  exit 0
fi

# 3. Another Milvus-compatible server already answers on the port: use it. Anything else: fail.
if ! docqa_pidfile_alive "$pidfile" "$pattern" && docqa_port_open "$port"; then
  if milvus_ready; then
    docqa_log "a Milvus server not started by this script already answers on 127.0.0.1:${port}; using it"
    exit 0
  fi
  docqa_log "port ${port} is in use by something that does not speak the Milvus protocol; set DOCQA_MILVUS_PORT"
  exit 1
fi

# 4. Start the server in the background unless a process of ours is still starting up.
#    Launched as `python -u -c LAUNCHER server --data-dir ... --host 127.0.0.1 --port ...`, which is the
#    `milvus-lite server` console script plus signal set-up: the server only shuts down gracefully
#    (drains requests, closes the database) on KeyboardInterrupt, and SIGINT is ignored in processes
#    started in the background by a non-interactive shell, so SIGTERM and SIGINT are both mapped to
#    KeyboardInterrupt. -u keeps the "listening" line and any traceback unbuffered in the log.
if ! docqa_pidfile_alive "$pidfile" "$pattern"; then
  mkdir -p "$data_dir"
  docqa_log "starting milvus-lite $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("milvus-lite"))') on 127.0.0.1:${port}"
  docqa_start_background "$pidfile" "$logfile" \
    "$venv/bin/python" -u -c "$launcher" server --data-dir "$data_dir" --host 127.0.0.1 --port "$port"
fi

# 5. Wait (max 60 s) until a client call works; on failure show the log, stop the process, fail.
if ! docqa_wait_until 60 "$pidfile" "$pattern" milvus_ready; then
  docqa_fail_with_log "$logfile" "Milvus Lite did not become ready on 127.0.0.1:${port}" || true
  docqa_stop_pidfile "$pidfile" "$pattern" TERM || true
  exit 1
fi
docqa_log "ready on http://127.0.0.1:${port} (pid $(docqa_pid_from_file "$pidfile"), $(($(docqa_now) - started_at)) s)"
