#!/usr/bin/env bash
# Stop the OpenSearch node started by start-opensearch.sh (by pidfile only; absence is fine).
# Honours DOCQA_SERVICES_DIR like the start script, so it stops the instance of that state dir.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=opensearch

state_dir="$(docqa_services_dir)/opensearch"

# Remove the readiness marker first so nobody starts using a server that is going away.
docqa_unmark_ready opensearch
# SIGTERM runs the JVM shutdown hook, which closes the node (flushes shards, releases the node lock);
# lib.sh escalates to SIGKILL after 20 s.
docqa_stop_pidfile "$state_dir/opensearch.pid" "docqa-opensearch-runner.jar" TERM
