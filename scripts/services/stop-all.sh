#!/usr/bin/env bash
# Stop every integration-test server started by start-all.sh (or by the single start scripts, such as
# start-llama-server.sh) for the
# state dir ${DOCQA_SERVICES_DIR:-$PWD/.services}. Servers are stopped by pidfile only; missing ones
# are fine. Stops them in parallel (OpenSearch and Milvus each take a few seconds to shut down) and
# fails if any of them could not be stopped.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=stop-all

DOCQA_SERVICES_DIR="$(docqa_services_dir)"
export DOCQA_SERVICES_DIR
services=(opensearch milvus redis llama-server)
# Elasticsearch is optional (see start-elasticsearch.sh); stop it too when its script exists. The
# three-node cluster (start-opensearch-cluster.sh) and the Milvus server (start-milvus-server.sh) are
# started only for their own tests; stopping them when absent is a no-op.
[ -x "$script_dir/stop-elasticsearch.sh" ] && services+=(elasticsearch)
services+=(opensearch-cluster milvus-server)

declare -A pids
for service in "${services[@]}"; do
  "$script_dir/stop-$service.sh" &
  pids[$service]=$!
done
failed=()
for service in "${services[@]}"; do
  wait "${pids[$service]}" || failed+=("$service")
done
if [ "${#failed[@]}" -gt 0 ]; then
  docqa_log "FAILED to stop: ${failed[*]}"
  exit 1
fi
