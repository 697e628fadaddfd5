#!/usr/bin/env bash
# Start a Redis server on 127.0.0.1:${DOCQA_REDIS_PORT} (default: a free port) for integration tests.
#
# Installs Debian's redis-server package when redis-server is not on PATH, then runs redis-server in
# the foreground (--daemonize no) as a detached background process whose pid we record ourselves,
# with its log and append-only file under ${DOCQA_SERVICES_DIR:-$PWD/.services}/redis/.
# Idempotent: exits 0 at once if our server already answers. On success writes
# ${DOCQA_SERVICES_DIR}/redis.ready containing the URL.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=redis

state_dir="$(docqa_services_dir)/redis"
pidfile="$state_dir/redis.pid"
logfile="$state_dir/redis.log"
data_dir="$state_dir/data"
# redis rewrites its process title to "redis-server 127.0.0.1:PORT"; used to validate the pidfile
# (a stale pidfile whose pid now belongs to another program must not count as "running").
pattern="redis-server"
started_at="$(docqa_now)"
mkdir -p "$state_dir"
# DOCQA_REDIS_PORT, else the port of this state dir's running server, else a free port (lib.sh).
port="$(docqa_service_port "${DOCQA_REDIS_PORT:-}" "$pidfile" "$pattern")"
url="redis://127.0.0.1:${port}"

# 1. Install redis-server (and redis-cli, from the redis-tools dependency) if missing.
#    With docqa_apt_install (lib.sh): `apt-get update` only when the plain install fails, waiting for
#    the dpkg lock that .ci/run's Chromium install may hold.
#    In containers policy-rc.d stops the package from starting a system redis; on a host where it does
#    start one on 6379, step 3 below refuses to reuse it silently only if it is not Redis.
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  docqa_log "redis-server not found; installing Debian package redis-server"
  docqa_apt_install redis-server
fi

# Health check: PING must answer PONG.
redis_ready() {
  [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = "PONG" ]
}

# A server of this state dir that serves another port is a usage error (see lib.sh).
docqa_refuse_other_port "$pidfile" "$pattern" "$port" || exit 1

# 2. Already started by us and answering: nothing to do.
if docqa_pidfile_alive "$pidfile" "$pattern" && redis_ready; then
  docqa_log "already running on 127.0.0.1:${port} (pid $(docqa_pid_from_file "$pidfile"))"
  docqa_record_port "$pidfile" "$port"
  docqa_mark_ready redis "$url"
  exit 0
fi

# 3. Something else already listens on the port. A Redis (e.g. a developer's system redis) is reused,
#    because tests only need a Redis there; anything else is an error the user has to resolve.
if ! docqa_pidfile_alive "$pidfile" "$pattern" && docqa_port_open "$port"; then
  if redis_ready; then
    docqa_log "a Redis not started by this script already answers on 127.0.0.1:${port}; using it"
    docqa_mark_ready redis "$url"
    exit 0
  fi
  docqa_log "port ${port} is in use by something that is not Redis; set DOCQA_REDIS_PORT"
  exit 1
fi

# 4. Start redis-server unless a process of ours is still starting up. Options:
#    --bind 127.0.0.1       loopback only (with protected mode on, as by default);
#    --save ''              no RDB snapshots (they fork, which is slow and pointless for tests);
#    --appendonly yes       durability through the AOF instead, so a SIGTERM/SIGKILL + restart (the
#                           fault tests) keeps the data, like a production Redis would;
#    --dir                  AOF directory inside the state dir;
#    --daemonize no         stay in the foreground: docqa_start_background detaches it and records its
#                           pid, and the log goes to stdout, i.e. into $logfile.
if ! docqa_pidfile_alive "$pidfile" "$pattern"; then
  mkdir -p "$data_dir"
  docqa_log "starting redis $(redis-server --version | awk '{print $3}' | sed 's/^v=//') on 127.0.0.1:${port}"
  docqa_start_background "$pidfile" "$logfile" \
    redis-server \
    --bind 127.0.0.1 \
    --port "$port" \
    --protected-mode yes \
    --save '' \
    --appendonly yes \
    --dir "$data_dir" \
    --daemonize no
  docqa_record_port "$pidfile" "$port"
fi

# 5. Wait (max 30 s) for PONG; on failure show the log, stop what we started, and fail.
if ! docqa_wait_until 30 "$pidfile" "$pattern" redis_ready; then
  docqa_fail_with_log "$logfile" "Redis did not answer PONG on 127.0.0.1:${port}" || true
  docqa_stop_pidfile "$pidfile" "$pattern" TERM || true
  exit 1
fi
docqa_mark_ready redis "$url"
docqa_log "ready on ${url} (pid $(docqa_pid_from_file "$pidfile"), $(($(docqa_now) - started_at)) s)"
