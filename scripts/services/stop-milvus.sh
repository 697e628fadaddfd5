#!/usr/bin/env bash
# Stop the Milvus Lite server started by start-milvus.sh (by pidfile only; absence is fine).
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=milvus

state_dir="$(docqa_services_dir)/milvus"

# Remove the readiness marker first so nobody starts using a server that is going away.
docqa_unmark_ready milvus
# start-milvus.sh maps SIGTERM to KeyboardInterrupt, on which the server shuts down gracefully
# (drains in-flight requests for up to 5 s, closes the database); lib.sh escalates to SIGKILL after 20 s.
docqa_stop_pidfile "$state_dir/milvus.pid" "milvus_lite.cmdline" TERM
