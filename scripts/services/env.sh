# shellcheck shell=bash
# Source this file (do not execute it) after scripts/services/start-all.sh to point the integration
# tests at the servers:
#   source scripts/services/env.sh
# Exports DOCQA_TEST_REDIS_URL, DOCQA_TEST_MILVUS_URI, DOCQA_TEST_OPENSEARCH_URL (from the same port
# variables the start scripts use) and DOCQA_TEST_ELASTICSEARCH_URL when an Elasticsearch was started
# (marker file elasticsearch.ready in the state dir). Values already set in the environment win, so a
# caller can point tests elsewhere. No `set -e` here: this runs inside the caller's shell.

export DOCQA_TEST_REDIS_URL="${DOCQA_TEST_REDIS_URL:-redis://127.0.0.1:${DOCQA_REDIS_PORT:-6379}}"
export DOCQA_TEST_MILVUS_URI="${DOCQA_TEST_MILVUS_URI:-http://127.0.0.1:${DOCQA_MILVUS_PORT:-19530}}"
export DOCQA_TEST_OPENSEARCH_URL="${DOCQA_TEST_OPENSEARCH_URL:-http://127.0.0.1:${DOCQA_OPENSEARCH_PORT:-9200}}"
if [ -z "${DOCQA_TEST_ELASTICSEARCH_URL:-}" ] &&
  [ -f "${DOCQA_SERVICES_DIR:-$PWD/.services}/elasticsearch.ready" ]; then
  DOCQA_TEST_ELASTICSEARCH_URL="$(cat "${DOCQA_SERVICES_DIR:-$PWD/.services}/elasticsearch.ready")"
  export DOCQA_TEST_ELASTICSEARCH_URL
fi
