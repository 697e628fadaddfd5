#!/usr/bin/env bash
# Stop the Milvus server started by start-milvus-server.sh (by pidfile only; absence is fine). The
# launcher stops the server process it started on SIGTERM; lib.sh escalates to SIGKILL after 20 s.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=milvus-server

state_dir="$(docqa_services_dir)/milvus-server"
docqa_unmark_ready milvus-server
docqa_stop_pidfile "$state_dir/milvus-server.pid" "from milvus import main" TERM
# A server process left by a launcher that was killed outright: the binary under this state dir.
for pid in $(pgrep -f "^$state_dir/data/bin/milvus run standalone" || true); do
  docqa_log "stopping the orphaned server process ${pid}"
  kill -TERM "$pid" 2>/dev/null || true
done
