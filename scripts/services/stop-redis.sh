#!/usr/bin/env bash
# Stop the Redis server started by start-redis.sh (by pidfile only; a missing pidfile/process is fine).
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=redis

state_dir="$(docqa_services_dir)/redis"

# SIGTERM makes redis shut down cleanly (it saves its RDB snapshot per its defaults and removes the
# pidfile); lib.sh escalates to SIGKILL after 20 s.
docqa_stop_pidfile "$state_dir/redis.pid" "redis-server" TERM
