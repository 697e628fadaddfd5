# shellcheck shell=bash
# Shared helpers for scripts/services/*.sh. Sourced by those scripts, never executed on its own.
#
# Conventions used by every service script:
#   - all state lives under "$DOCQA_SERVICES_DIR/<service>/" (default: "$PWD/.services/<service>/"):
#     a pidfile, a log file, the data directory and any locally installed tooling;
#   - servers bind to 127.0.0.1 only;
#   - start scripts are idempotent (exit 0 at once when the service already answers) and
#     stop scripts kill by pidfile only and tolerate a missing pidfile or process;
#   - a start script that succeeds writes "$DOCQA_SERVICES_DIR/<service>.ready" (the server's URL);
#     the stop script removes it first;
#   - run them from the repository root (the default state dir is relative to $PWD), and give a
#     second instance (e.g. a fault test that kills its server) both its own port variable
#     (DOCQA_REDIS_PORT, DOCQA_MILVUS_PORT, DOCQA_OPENSEARCH_PORT) and its own DOCQA_SERVICES_DIR.

# Absolute path of the services state directory (created on demand).
docqa_services_dir() {
  local dir="${DOCQA_SERVICES_DIR:-$PWD/.services}"
  mkdir -p "$dir"
  (cd "$dir" && pwd)
}

# Log to stderr with the service name as prefix ($DOCQA_SERVICE is set by each script).
docqa_log() {
  printf '[%s] %s\n' "${DOCQA_SERVICE:-services}" "$*" >&2
}

# Run a command as root: directly when we are root, through sudo otherwise.
docqa_as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  else
    sudo "$@"
  fi
}

# Install Debian packages as root: `apt-get install` first (fast when the package lists are there),
# `apt-get update` and the install again only when that fails (fresh images often ship without
# package lists). Both wait up to 10 minutes for the dpkg lock (DPkg::Lock::Timeout): .ci/run
# installs Chromium while the services scripts install theirs.
docqa_apt_install() {
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)
  docqa_as_root "${apt[@]}" install -y --no-install-recommends "$@" && return 0
  docqa_log "apt-get install failed; running apt-get update and retrying"
  docqa_as_root "${apt[@]}" update && docqa_as_root "${apt[@]}" install -y --no-install-recommends "$@"
}

# Current Unix time in seconds.
docqa_now() {
  date +%s
}

# docqa_pid_from_file PIDFILE: print the pid stored in PIDFILE (nothing if absent or malformed).
docqa_pid_from_file() {
  local pidfile="$1" pid=""
  if [ -f "$pidfile" ]; then
    pid="$(tr -dc '0-9' <"$pidfile")"
  fi
  printf '%s' "$pid"
}

# docqa_pid_matches PID PATTERN: true when PID is alive and its command line contains PATTERN.
# The command-line check protects against a stale pidfile whose pid was reused by another process.
docqa_pid_matches() {
  local pid="$1" pattern="$2" cmdline
  [ -n "$pid" ] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
  [[ "$cmdline" == *"$pattern"* ]]
}

# docqa_pidfile_alive PIDFILE PATTERN: true when PIDFILE names a live process matching PATTERN.
docqa_pidfile_alive() {
  docqa_pid_matches "$(docqa_pid_from_file "$1")" "$2"
}

# docqa_port_open PORT: true when something accepts TCP connections on 127.0.0.1:PORT.
docqa_port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# docqa_start_background PIDFILE LOGFILE COMMAND...: start COMMAND detached from this shell
# (own session via setsid, stdin from /dev/null, stdout+stderr appended to LOGFILE) and record its pid.
# The pid is written by a tiny bash wrapper that then `exec`s COMMAND, so the recorded pid is the
# server's own pid even when setsid has to fork (it forks when the caller is a process-group leader,
# e.g. when this runs from an interactive shell with job control).
docqa_start_background() {
  local pidfile="$1" logfile="$2"
  shift 2
  rm -f "$pidfile"
  # shellcheck disable=SC2016 # $$ and $@ are expanded by the inner bash, on purpose.
  nohup setsid bash -c 'echo "$$" >"$0.tmp" && mv "$0.tmp" "$0" && exec "$@"' "$pidfile" "$@" \
    >>"$logfile" 2>&1 </dev/null &
  # Wait (max 5 s) for the wrapper to record the pid, so callers can check it right away.
  local i
  for ((i = 0; i < 50; i++)); do
    [ -s "$pidfile" ] && return 0
    sleep 0.1
  done
  docqa_log "background process did not record its pid in $pidfile"
  return 1
}

# docqa_wait_until TIMEOUT_SECONDS PIDFILE PATTERN CHECK_COMMAND...: poll CHECK_COMMAND every second
# until it succeeds. Fails early when the process recorded in PIDFILE dies (pass an empty PIDFILE to
# skip that check), and fails after TIMEOUT_SECONDS.
docqa_wait_until() {
  local timeout="$1" pidfile="$2" pattern="$3" deadline
  shift 3
  deadline=$(($(docqa_now) + timeout))
  while true; do
    if "$@" >/dev/null 2>&1; then
      return 0
    fi
    if [ -n "$pidfile" ] && ! docqa_pidfile_alive "$pidfile" "$pattern"; then
      docqa_log "process from $pidfile exited before becoming ready"
      return 1
    fi
    if [ "$(docqa_now)" -ge "$deadline" ]; then
      docqa_log "not ready after ${timeout} s"
      return 1
    fi
    sleep 1
  done
}

# docqa_stop_pidfile PIDFILE PATTERN [SIGNAL...]: stop the process recorded in PIDFILE.
# Sends each SIGNAL in turn (default: TERM) and waits up to 20 s after each one; finally sends KILL.
# Does nothing (successfully) when the pidfile is missing or stale. Removes the pidfile.
docqa_stop_pidfile() {
  local pidfile="$1" pattern="$2" pid sig i
  shift 2
  local signals=("$@")
  [ "${#signals[@]}" -gt 0 ] || signals=(TERM)
  pid="$(docqa_pid_from_file "$pidfile")"
  if ! docqa_pid_matches "$pid" "$pattern"; then
    docqa_log "not running (no live process for ${pidfile})"
    rm -f "$pidfile"
    return 0
  fi
  for sig in "${signals[@]}" KILL; do
    docqa_log "sending SIG${sig} to pid ${pid}"
    kill -s "$sig" "$pid" 2>/dev/null || true
    for ((i = 0; i < 40; i++)); do
      if ! kill -0 "$pid" 2>/dev/null; then
        docqa_log "stopped (pid ${pid})"
        rm -f "$pidfile"
        return 0
      fi
      sleep 0.5
    done
  done
  docqa_log "pid ${pid} still alive after SIGKILL"
  return 1
}

# docqa_fail_with_log LOGFILE MESSAGE: print MESSAGE and the tail of LOGFILE, then return 1.
docqa_fail_with_log() {
  docqa_log "$2"
  if [ -f "$1" ]; then
    docqa_log "last 80 lines of $1:"
    tail -n 80 "$1" >&2
  fi
  return 1
}

# docqa_mark_ready SERVICE URL: write "$DOCQA_SERVICES_DIR/SERVICE.ready" containing URL, so other
# processes (test runners, other scripts) can wait for a service without knowing how to probe it.
docqa_mark_ready() {
  local file
  file="$(docqa_services_dir)/$1.ready"
  printf '%s\n' "$2" >"$file.tmp"
  mv "$file.tmp" "$file"
}

# docqa_unmark_ready SERVICE: remove the marker written by docqa_mark_ready (stop scripts call it first,
# so nobody starts using a server that is going away).
docqa_unmark_ready() {
  rm -f "$(docqa_services_dir)/$1.ready"
}

# docqa_java_major JAVA_BINARY: print the Java feature version of JAVA_BINARY (8 for "1.8.0_x",
# 17 for "17.0.15", 25 for "25.0.3"); nothing when it cannot be run.
docqa_java_major() {
  local line version
  line="$("$1" -version 2>&1 | grep -m1 -E 'version "' || true)"
  version="${line#*version \"}"
  version="${version%%\"*}"
  [ -n "$version" ] || return 0
  case "$version" in
    1.*) version="${version#1.}" ;;
  esac
  printf '%s' "${version%%[.+-]*}"
}

# docqa_find_jdk MIN_MAJOR: print the home of the newest JDK (java + javac) whose feature version is
# at least MIN_MAJOR, followed by a space and that version ("/usr/lib/jvm/x 25"); fails when none.
# Looks at $DOCQA_JAVA_HOME (used alone when set), $JAVA_HOME, the JDK of `java` on PATH and every
# /usr/lib/jvm/* (Debian packages and vendor tarballs are unpacked there, often off the PATH).
docqa_find_jdk() {
  local min="$1" candidates=() home best="" best_major=0 major java_on_path
  if [ -n "${DOCQA_JAVA_HOME:-}" ]; then
    candidates=("$DOCQA_JAVA_HOME")
  else
    [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
    if java_on_path="$(command -v java 2>/dev/null)"; then
      candidates+=("$(dirname "$(dirname "$(readlink -f "$java_on_path")")")")
    fi
    for home in /usr/lib/jvm/*; do
      [ -d "$home" ] && candidates+=("$home")
    done
  fi
  for home in "${candidates[@]}"; do
    if [ ! -x "$home/bin/java" ] || [ ! -x "$home/bin/javac" ]; then continue; fi
    major="$(docqa_java_major "$home/bin/java")"
    [ -n "$major" ] || continue
    if [ "$major" -ge "$min" ] && [ "$major" -gt "$best_major" ]; then
      best="$(readlink -f "$home")"
      best_major="$major"
    fi
  done
  [ -n "$best" ] || return 1
  printf '%s %s' "$best" "$best_major"
}

# docqa_http_get URL: print the body of GET URL; fails unless the answer is 2xx. Uses curl when present, else
# python3 (always there on our CI images; curl is not part of a minimal Debian).
docqa_http_get() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsS --max-time 5 "$1"
  else
    python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1"
  fi
}

# docqa_record_port PIDFILE PORT: remember which port the process of PIDFILE serves (PIDFILE with
# ".pid" replaced by ".port"), for docqa_refuse_other_port.
docqa_record_port() {
  printf '%s\n' "$2" >"${1%.pid}.port"
}

# docqa_refuse_other_port PIDFILE PATTERN PORT: fail (return 1, with a message) when this state dir's
# server is alive but serves another port than PORT. Without this check a start script called with a
# new port would wait for a server that never answers there, then kill the healthy one.
docqa_refuse_other_port() {
  local pidfile="$1" pattern="$2" port="$3" recorded
  docqa_pidfile_alive "$pidfile" "$pattern" || return 0
  recorded="$({ tr -dc '0-9' <"${pidfile%.pid}.port"; } 2>/dev/null || true)"
  if [ -n "$recorded" ] && [ "$recorded" != "$port" ]; then
    docqa_log "the server of state dir $(dirname "$pidfile") already runs on port ${recorded}, not ${port}; stop it first or use another DOCQA_SERVICES_DIR for a second instance"
    return 1
  fi
}

# docqa_free_port: print a TCP port of 127.0.0.1 that nothing listens on (the kernel's pick for
# bind(0), so it is outside the well-known ports 6379, 19530 and 9200 another run may own). The port
# is free when printed; a server started right after gets it, barring a rare race.
docqa_free_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
    return
  fi
  local port i
  for ((i = 0; i < 100; i++)); do
    port=$((20000 + RANDOM % 40000))
    if ! docqa_port_open "$port"; then
      printf '%s\n' "$port"
      return
    fi
  done
  docqa_log "found no free port"
  return 1
}

# docqa_service_port GIVEN PIDFILE PATTERN: the port a start script uses: GIVEN (its DOCQA_*_PORT
# variable) when set; else the port recorded for this state dir's server when it is alive (so a
# second start is a no-op); else a free port (docqa_free_port). The port chosen is written to the
# service's ready file (docqa_mark_ready), which scripts/services/env.sh reads.
docqa_service_port() {
  local given="$1" pidfile="$2" pattern="$3" recorded
  if [ -n "$given" ]; then
    printf '%s' "$given"
    return
  fi
  if docqa_pidfile_alive "$pidfile" "$pattern"; then
    recorded="$({ tr -dc '0-9' <"${pidfile%.pid}.port"; } 2>/dev/null || true)"
    if [ -n "$recorded" ]; then
      printf '%s' "$recorded"
      return
    fi
  fi
  docqa_free_port
}
