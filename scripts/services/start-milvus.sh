#!/usr/bin/env bash
# Start a Milvus Lite gRPC server on 127.0.0.1:${DOCQA_MILVUS_PORT} (default: a free port) for integration tests.
#
# milvus-lite 3.x (PyPI) is a pure-Python reimplementation of Milvus (WAL + Parquet segments, FAISS
# indexes, own filter parser and BM25) with a Milvus-protocol gRPC adapter; its server mode is
# `milvus-lite server --data-dir DIR --host H --port P`. That gRPC adapter imports pymilvus' generated
# stubs, but pymilvus is not a declared dependency of milvus-lite, so both packages are installed
# into a private virtualenv. State under ${DOCQA_SERVICES_DIR:-$PWD/.services}/milvus/:
#   venv/  the virtualenv (reinstalled when the requested versions change);
#   data/  the database (survives restarts and SIGKILL thanks to the write-ahead log; as with real
#          Milvus, collections come back released: clients must call loadCollection again);
#   milvus.pid, milvus.port, milvus.log.
#
# Environment:
#   DOCQA_MILVUS_PORT        gRPC port (default: the running server's, else a free port)
#   DOCQA_MILVUS_LITE_SPEC   pip requirement for milvus-lite (default milvus-lite==3.2.2, verified)
#   DOCQA_PYMILVUS_SPEC      pip requirement for pymilvus (default pymilvus==3.0.2, verified)
#   DOCQA_MILVUS_VENV        use this virtualenv instead of the state dir's one; it is only created
#                            when missing, never upgraded, so a second instance (e.g. a fault test on
#                            another port and state dir) can reuse the main one and start in ~2 s:
#                            DOCQA_MILVUS_VENV="$PWD/.services/milvus/venv"
#   DOCQA_PYTHON             Python used to create the virtualenv (default python3, needs >= 3.10)
# Idempotent: exits 0 at once if our server already answers. On success writes
# ${DOCQA_SERVICES_DIR}/milvus.ready containing the URL.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=milvus

lite_spec="${DOCQA_MILVUS_LITE_SPEC:-milvus-lite==3.2.2}"
pymilvus_spec="${DOCQA_PYMILVUS_SPEC:-pymilvus==3.0.2}"
python_bin="${DOCQA_PYTHON:-python3}"

state_dir="$(docqa_services_dir)/milvus"
venv="${DOCQA_MILVUS_VENV:-$state_dir/venv}"
data_dir="$state_dir/data"
pidfile="$state_dir/milvus.pid"
logfile="$state_dir/milvus.log"
# Python code that runs the `milvus-lite` console script; its text ("milvus_lite.cmdline") is also
# what identifies our server in /proc/PID/cmdline when validating the pidfile.
launcher='import signal, sys; from milvus_lite.cmdline import main; signal.signal(signal.SIGTERM, signal.default_int_handler); signal.signal(signal.SIGINT, signal.default_int_handler); sys.exit(main(sys.argv[1:]))'
pattern="milvus_lite.cmdline"
# DOCQA_MILVUS_PORT, else the port of this state dir's running server, else a free port (lib.sh).
port="$(docqa_service_port "${DOCQA_MILVUS_PORT:-}" "$pidfile" "$pattern")"
url="http://127.0.0.1:${port}"
started_at="$(docqa_now)"
mkdir -p "$state_dir"

# Health check: the port accepts connections and a real client call (GetVersion + ListCollections)
# through pymilvus succeeds. Needs the venv; without one nothing of ours can be running anyway.
milvus_ready() {
  docqa_port_open "$port" || return 1
  [ -x "$venv/bin/python" ] || return 1
  "$venv/bin/python" - "$port" <<'PY'
import sys
from pymilvus import MilvusClient

client = MilvusClient(uri=f"http://127.0.0.1:{sys.argv[1]}", timeout=5)
client.get_server_version()
client.list_collections()
client.close()
PY
}

# A server of this state dir that serves another port is a usage error (see lib.sh).
docqa_refuse_other_port "$pidfile" "$pattern" "$port" || exit 1

# 1. Already started by us and answering: nothing to do.
if docqa_pidfile_alive "$pidfile" "$pattern" && milvus_ready; then
  docqa_log "already running on 127.0.0.1:${port} (pid $(docqa_pid_from_file "$pidfile"))"
  docqa_record_port "$pidfile" "$port"
  docqa_mark_ready milvus "$url"
  exit 0
fi

# 2. Something else listens on the port. A Milvus-compatible server is reused (tests only need one
#    there); anything else is an error the user has to resolve.
if ! docqa_pidfile_alive "$pidfile" "$pattern" && docqa_port_open "$port"; then
  if milvus_ready; then
    docqa_log "a Milvus server not started by this script already answers on 127.0.0.1:${port}; using it"
    docqa_mark_ready milvus "$url"
    exit 0
  fi
  docqa_log "port ${port} is in use by something that does not speak the Milvus protocol (or has no venv yet); set DOCQA_MILVUS_PORT"
  exit 1
fi

# 3. Create the virtualenv and install milvus-lite + pymilvus, unless the recorded install spec
#    matches (the marker file makes a version change trigger a reinstall). Skipped while a server of
#    ours is still starting from this venv, and for a borrowed venv (DOCQA_MILVUS_VENV) that already
#    has milvus-lite. The marker is written only after a successful install, so an interrupted
#    install is redone.
marker="$venv/.docqa-installed"
wanted="$lite_spec $pymilvus_spec"
if docqa_pidfile_alive "$pidfile" "$pattern"; then
  : # starting up; step 5 waits for it
elif [ -n "${DOCQA_MILVUS_VENV:-}" ] && [ -x "$venv/bin/milvus-lite" ]; then
  : # borrowed venv: use as is
elif [ ! -x "$venv/bin/milvus-lite" ] || [ "$(cat "$marker" 2>/dev/null || true)" != "$wanted" ]; then
  docqa_log "installing $wanted into $venv (first install downloads ~100 MB from PyPI)"
  install_started="$(docqa_now)"
  "$python_bin" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "$lite_spec" "$pymilvus_spec"
  printf '%s' "$wanted" >"$marker"
  docqa_log "installed in $(($(docqa_now) - install_started)) s"
fi

# 4. Start the server unless a process of ours is still starting up.
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
  docqa_record_port "$pidfile" "$port"
fi

# 5. Wait (max 60 s) until a client call works; on failure show the log, stop the process, fail.
if ! docqa_wait_until 60 "$pidfile" "$pattern" milvus_ready; then
  docqa_fail_with_log "$logfile" "Milvus Lite did not become ready on 127.0.0.1:${port}" || true
  docqa_stop_pidfile "$pidfile" "$pattern" TERM || true
  exit 1
fi
docqa_mark_ready milvus "$url"
docqa_log "ready on ${url} (pid $(docqa_pid_from_file "$pidfile"), $(($(docqa_now) - started_at)) s)"
