# shellcheck shell=bash
# Shared helpers for scripts/services/*.sh. Sourced by those scripts, never executed on its own.
#
# Conventions used by every service script:
#   - all state lives under "$DOCQA_SERVICES_DIR/<service>/" (default: "$PWD/.services/<service>/"):
#     a pidfile, a log file, the data directory and any locally installed tooling;
#   - servers bind to 127.0.0.1 only;
#   - start scripts are idempotent (exit 0 at once when the service already answers) and
#     stop scripts kill by pidfile only and tolerate a missing pidfile or process.

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
# In a non-interactive script a background job is not a process-group leader, so setsid does not
# fork again and $! is the server's own pid.
docqa_start_background() {
  local pidfile="$1" logfile="$2"
  shift 2
  nohup setsid "$@" >>"$logfile" 2>&1 </dev/null &
  echo "$!" >"$pidfile"
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
