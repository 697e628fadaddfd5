#!/usr/bin/env bash
# Schemathesis (https://schemathesis.readthedocs.io, from PyPI, pinned) against both OpenAPI
# documents of a real `docqa serve`: every operation of set A and set B gets generated requests,
# valid and invalid, and the run fails on any 5xx, any status or header the document does not
# declare, any response that does not match its schema, and any request the schema refuses but the
# API accepts. Used by .ci/run after `npm test` (it needs the build: packages/cli/dist); run it
# yourself with `npm run test:schemathesis` after `npm run build`.
#
# The server runs on free loopback ports with a throw-away data directory holding two documents,
# BM25 only (no embedding model), the extractive answerer, no rate limit (a fuzzer would spend the
# budget), TRUST_USER_INFO=true (so /predict's generated user names reach the pipeline instead of a
# 403) and /testpredict enabled; a token minted with `docqa token` is sent on every request.
#
# Environment:
#   DOCQA_SCHEMATHESIS_SPEC      pip requirement (default schemathesis==4.32.5, verified)
#   DOCQA_SCHEMATHESIS_EXAMPLES  generated cases per operation and phase (default 100: about 2,200
#                                cases over both sets, 1.5 minutes on a loaded 2-core machine)
#   DOCQA_SCHEMATHESIS_SEED      Hypothesis seed, so a run can be repeated (default 1)
#   DOCQA_SCHEMATHESIS_SETS      endpoint sets to test (default "a b")
#   DOCQA_SCHEMATHESIS_VENV      the virtualenv (default .tools/schemathesis-venv)
#   DOCQA_PYTHON                 Python used to create the virtualenv (default: python3.13, python3.12, a
#                                pyenv-installed 3.12 or later, else python3; with CPython 3.11.7
#                                Hypothesis fails on /api/chat with "AST constructor recursion depth
#                                mismatch", CPython issue 106905)
# Reports (JUnit XML) go to .services/schemathesis/.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/use-node.sh >/dev/null

spec="${DOCQA_SCHEMATHESIS_SPEC:-schemathesis==4.32.5}"
examples="${DOCQA_SCHEMATHESIS_EXAMPLES:-100}"
seed="${DOCQA_SCHEMATHESIS_SEED:-1}"
sets="${DOCQA_SCHEMATHESIS_SETS:-a b}"
venv="${DOCQA_SCHEMATHESIS_VENV:-.tools/schemathesis-venv}"
reports=".services/schemathesis"

# 1. The virtualenv, reinstalled when the requested version changes (the marker holds the spec).
marker="$venv/.docqa-installed"
# The marker records the requirement; a venv made by another Python is remade by removing it.
if [ ! -x "$venv/bin/st" ] || [ "$(cat "$marker" 2>/dev/null || true)" != "$spec" ]; then
  echo "schemathesis: installing $spec into $venv" >&2
  python_bin="${DOCQA_PYTHON:-}"
  if [ -z "$python_bin" ]; then
    # A pyenv shim is on PATH even when that version is not selected: ask each interpreter itself.
    for candidate in python3.13 python3.12 "$(pyenv root 2>/dev/null)"/versions/3.1[2-9]*/bin/python3 python3; do
      if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then
        python_bin="$candidate"
        break
      fi
    done
  fi
  if [ -z "$python_bin" ]; then
    python_bin=python3
    echo "schemathesis: no Python 3.12 or later found; $(python3 --version) may fail on /api/chat (CPython issue 106905)" >&2
  fi
  rm -rf "$venv"
  "$python_bin" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$spec"
  printf '%s' "$spec" >"$marker"
fi

# 2. A server of our own on free ports, with two documents, stopped on exit whatever happens.
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
export DATA_DIR="$work/data" JWT_SECRET="schemathesis-$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
export EMBED_PROVIDER=none RAG_LLM_PROVIDER=extractive USE_RERANKER=false LOG_LEVEL=warn
export RATE_LIMIT_PER_MINUTE=0 RATE_LIMIT_PER_HOUR=0 TRUST_USER_INFO=true ENABLE_TESTPREDICT=true NODE_ENV=development
docqa=(node packages/cli/dist/bin.js)
org="schemathesis-org"
user="ann@example.com"
mkdir -p "$work/documents" "$reports"
printf '# Leave policy\n\nNew employees get 20 vacation days in their first year.\n' >"$work/documents/handbook.md"
printf 'city,travel allowance\nParis,120\nBerlin,100\n' >"$work/documents/travel.csv"
"${docqa[@]}" ingest --org "$org" --owner "$user" --acl '|user:_all_|' "$work/documents" >&2
token="$("${docqa[@]}" token --email "$user" --org "$org" --ttl 7200)"
HOST=127.0.0.1 PORT=0 PORT_B=0 "${docqa[@]}" serve >"$work/serve.log" 2>&1 &
server_pid=$!
url_a="" url_b=""
for _ in $(seq 1 120); do
  url_a="$(sed -n 's/^docqa set A listening on \(http:[^ ]*\).*/\1/p' "$work/serve.log")"
  url_b="$(sed -n 's/^docqa set B listening on \(http:[^ ]*\).*/\1/p' "$work/serve.log")"
  [ -n "$url_a" ] && [ -n "$url_b" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.5
done
if [ -z "$url_a" ] || [ -z "$url_b" ]; then
  cat "$work/serve.log" >&2
  echo "schemathesis: docqa serve did not start" >&2
  exit 1
fi

# 3. Both documents, one after the other; the exit status is the worse of the two.
checks="not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,negative_data_rejection"
status=0
for set in $sets; do
  base="$url_a"
  [ "$set" = b ] && base="$url_b"
  echo "schemathesis: set ${set^^} at $base/openapi.json ($examples cases per operation and phase, seed $seed)" >&2
  "$venv/bin/st" run "$base/openapi.json" \
    --header "Authorization: Bearer $token" \
    --checks "$checks" \
    --phases examples,coverage,fuzzing \
    --max-examples "$examples" \
    --seed "$seed" \
    --workers 2 \
    --request-timeout 30 \
    --suppress-health-check all \
    --report junit --report-junit-path "$reports/set-$set.xml" || status=$?
done
if grep -q "unhandled error\|internal_error" "$work/serve.log"; then
  echo "schemathesis: the server logged an unhandled error:" >&2
  grep -A5 "unhandled error\|internal_error" "$work/serve.log" | head -40 >&2
  status=1
fi
exit "$status"
