#!/usr/bin/env bash
# Puts Prometheus's `promtool` (Debian package `prometheus`) under .tools/prometheus/ for the
# metrics test (`promtool check metrics`), and prints its path.
#
# Uses promtool from PATH when there is one. Otherwise downloads the Debian package with
# `apt-get download` and unpacks it with `dpkg-deb -x`: nothing is installed system-wide and no
# Prometheus server is started (installing the package would start one where systemd runs).
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v promtool >/dev/null 2>&1; then
  command -v promtool
  exit 0
fi
target=".tools/prometheus"
binary="$target/usr/bin/promtool"
if [ ! -x "$binary" ]; then
  download="$(mktemp -d)"
  trap 'rm -rf "$download"' EXIT
  if ! (cd "$download" && apt-get download prometheus >&2); then
    echo "apt-get download failed; running apt-get update and retrying" >&2
    if [ "$(id -u)" -eq 0 ]; then apt-get update -q >&2; else sudo apt-get update -q >&2; fi
    (cd "$download" && apt-get download prometheus >&2)
  fi
  mkdir -p "$target"
  dpkg-deb -x "$download"/prometheus_*.deb "$target"
fi
"$binary" --version >&2
echo "$PWD/$binary"
