#!/usr/bin/env bash
# Stop the llama-server started by start-llama-server.sh (by pidfile only; a missing pidfile/process is
# fine). Honours DOCQA_SERVICES_DIR like the start script. The cached binaries stay.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
DOCQA_SERVICE=llama-server

state_dir="$(docqa_services_dir)/llama-server"

# Remove the readiness marker first so nobody starts using a server that is going away.
docqa_unmark_ready llama-server
docqa_stop_pidfile "$state_dir/llama-server.pid" "llama-server" TERM
