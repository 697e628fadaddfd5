#!/usr/bin/env bash
# Start every integration-test server (Redis, Milvus Lite, OpenSearch) on loopback, in parallel, and
# fail loudly (with the failing server's log tail) if one does not come up in time.
#
# Usage (from the repository root):  scripts/services/start-all.sh && source scripts/services/env.sh
# Ports and the state directory come from the same variables as the single start scripts:
# DOCQA_REDIS_PORT, DOCQA_MILVUS_PORT, DOCQA_OPENSEARCH_PORT (default: free ports, written to the
# ready files env.sh reads), DOCQA_SERVICES_DIR ($PWD/.services). Two runs on one machine need only
# two state dirs: DOCQA_SERVICES_DIR=/tmp/run-2/.services scripts/services/start-all.sh. DOCQA_SERVICES_TIMEOUT bounds the whole start (seconds,
# default 900: enough for cold caches, i.e. apt, pip and Maven downloads; warm starts take ~15 s).
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=start-all

services=(redis milvus opensearch)
timeout_seconds="${DOCQA_SERVICES_TIMEOUT:-900}"
# Resolve the state dir once and pass it down, so all children agree even if one changes directory.
DOCQA_SERVICES_DIR="$(docqa_services_dir)"
export DOCQA_SERVICES_DIR
started_at="$(docqa_now)"

# Run the start scripts in parallel: the slow parts (pip install, Maven download, JVM start-up) are
# mostly network- or single-thread-bound, so overlapping them roughly halves a cold start even on two
# cores. Each script's output goes to its own file, printed afterwards, so logs do not interleave.
# `timeout` bounds each script; a script killed by it may leave a half-started server behind, which
# is stopped below.
declare -A pids
for service in "${services[@]}"; do
  timeout --kill-after=10 "$timeout_seconds" "$script_dir/start-$service.sh" \
    >"$DOCQA_SERVICES_DIR/start-$service.out" 2>&1 &
  pids[$service]=$!
done

failed=()
for service in "${services[@]}"; do
  status=0
  wait "${pids[$service]}" || status=$?
  cat "$DOCQA_SERVICES_DIR/start-$service.out" >&2
  if [ "$status" -ne 0 ]; then
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
      docqa_log "$service: not ready within ${timeout_seconds} s (start script killed)"
      docqa_fail_with_log "$DOCQA_SERVICES_DIR/$service/$service.log" "$service: server log" || true
      "$script_dir/stop-$service.sh" >&2 || true
    else
      docqa_log "$service: start-$service.sh failed with exit status ${status} (see its output above)"
    fi
    failed+=("$service")
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  docqa_log "FAILED: ${failed[*]} did not start ($(($(docqa_now) - started_at)) s); the others are left running, stop them with scripts/services/stop-all.sh"
  exit 1
fi
docqa_log "all services ready in $(($(docqa_now) - started_at)) s: $(cd "$DOCQA_SERVICES_DIR" && for s in "${services[@]}"; do printf '%s ' "$(cat "$s.ready")"; done)"
