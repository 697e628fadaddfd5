#!/usr/bin/env bash
# Stop nodes of the cluster started by start-opensearch-cluster.sh (by pidfile only; absence is fine).
#   scripts/services/stop-opensearch-cluster.sh        stop every node
#   scripts/services/stop-opensearch-cluster.sh 2      stop node 2 only (SIGTERM: a clean shutdown)
# Honours DOCQA_SERVICES_DIR like the start script. Once no node runs, the recorded ports are
# forgotten (the next start picks free ones); data directories stay.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=opensearch-cluster

state_dir="$(docqa_services_dir)/opensearch-cluster"
wanted=("$@")
[ "${#wanted[@]}" -gt 0 ] || wanted=(1 2 3)

# Remove the readiness marker first so nobody starts using a cluster that is going away.
docqa_unmark_ready opensearch-cluster
declare -A pids
for node in "${wanted[@]}"; do
  docqa_stop_pidfile "$state_dir/node-$node/node.pid" "docqa.opensearch.nodeName=docqa-node-$node" TERM &
  pids[$node]=$!
done
failed=()
for node in "${wanted[@]}"; do
  wait "${pids[$node]}" || failed+=("$node")
done
alive=false
for node in 1 2 3; do
  docqa_pidfile_alive "$state_dir/node-$node/node.pid" "docqa.opensearch.nodeName=docqa-node-$node" && alive=true
done
[ "$alive" = true ] || rm -f "$state_dir/ports"
if [ "${#failed[@]}" -gt 0 ]; then
  docqa_log "FAILED to stop node(s) ${failed[*]}"
  exit 1
fi
