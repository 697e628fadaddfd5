#!/usr/bin/env bash
# Stop the Redis server started by start-redis.sh (by pidfile only; a missing pidfile/process is fine).
# Honours DOCQA_SERVICES_DIR like the start script, so it stops the instance of that state dir.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=redis

state_dir="$(docqa_services_dir)/redis"

# Remove the readiness marker first so nobody starts using a server that is going away.
docqa_unmark_ready redis
# On SIGTERM redis flushes the append-only file and exits; lib.sh escalates to SIGKILL after 20 s.
docqa_stop_pidfile "$state_dir/redis.pid" "redis-server" TERM
