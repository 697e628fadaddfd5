#!/usr/bin/env bash
# Start a Redis server on 127.0.0.1:${DOCQA_REDIS_PORT:-6379} for integration tests.
#
# Installs Debian's redis-server package when redis-server is not on PATH, then runs
# redis-server daemonized (no systemd) with its pidfile, log and working directory under
# ${DOCQA_SERVICES_DIR:-$PWD/.services}/redis/. Idempotent: exits 0 at once if it already answers.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=redis

port="${DOCQA_REDIS_PORT:-6379}"
state_dir="$(docqa_services_dir)/redis"
pidfile="$state_dir/redis.pid"
logfile="$state_dir/redis.log"
data_dir="$state_dir/data"
# redis rewrites its process title to "redis-server 127.0.0.1:PORT"; used to validate the pidfile.
pattern="redis-server"
started_at="$(docqa_now)"

# 1. Install redis-server (and redis-cli, from the redis-tools dependency) if missing.
#    Plain `apt-get install` first (fast when the package lists are already there);
#    `apt-get update` only when that fails. Note: on a host where systemd runs, the package's
#    postinst may itself start a system redis on 6379; step 3 then reuses it instead of failing.
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  docqa_log "redis-server not found; installing Debian package redis-server"
  if ! docqa_as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends redis-server; then
    docqa_log "apt-get install failed; running apt-get update and retrying"
    docqa_as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    docqa_as_root env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y --no-install-recommends redis-server
  fi
fi

# Health check: PING must answer PONG.
redis_ready() {
  [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = "PONG" ]
}

# 2. Already started by us and answering: nothing to do.
if docqa_pidfile_alive "$pidfile" "$pattern" && redis_ready; then
  docqa_log "already running on 127.0.0.1:${port} (pid $(docqa_pid_from_file "$pidfile"))"
  exit 0
fi

# 3. Something else (e.g. a system redis) already answers on the port: use it, do not start another.
if redis_ready; then
  docqa_log "a Redis not started by this script already answers on 127.0.0.1:${port}; using it"
  exit 0
fi
if docqa_port_open "$port"; then
  docqa_log "port ${port} is in use by something that is not Redis; set DOCQA_REDIS_PORT"
  exit 1
fi

# 4. Start redis-server daemonized, loopback only, with pidfile/log/dump directory in the state dir.
#    Persistence settings are left at redis' built-in defaults (RDB snapshots into $data_dir).
mkdir -p "$data_dir"
rm -f "$pidfile"
docqa_log "starting $(redis-server --version | awk '{print $3}') on 127.0.0.1:${port}"
redis-server \
  --bind 127.0.0.1 \
  --port "$port" \
  --protected-mode yes \
  --daemonize yes \
  --pidfile "$pidfile" \
  --logfile "$logfile" \
  --dir "$data_dir"

# 5. Wait (max 30 s) for PONG; on failure show the log and fail.
if ! docqa_wait_until 30 "" "" redis_ready; then
  docqa_fail_with_log "$logfile" "Redis did not answer PONG on 127.0.0.1:${port}"
  exit 1
fi
docqa_log "ready on redis://127.0.0.1:${port} (pid $(docqa_pid_from_file "$pidfile"), $(($(docqa_now) - started_at)) s)"
