# shellcheck shell=bash
# Source this file (do not execute it) after scripts/services/start-all.sh to point the integration
# tests at the servers of this run:
#   source scripts/services/env.sh
# The start scripts pick free ports unless DOCQA_REDIS_PORT, DOCQA_MILVUS_PORT or
# DOCQA_OPENSEARCH_PORT is set, and write each server's URL to its ready file in the state dir
# (${DOCQA_SERVICES_DIR:-$PWD/.services}/<service>.ready). This file exports DOCQA_TEST_REDIS_URL,
# DOCQA_TEST_MILVUS_URI, DOCQA_TEST_OPENSEARCH_URL and, when they were started,
# DOCQA_TEST_ELASTICSEARCH_URL (start-elasticsearch.sh), DOCQA_TEST_LLAMA_SERVER_URL (start-llama-server.sh; the
# OpenAI-compatible API is under /v1), DOCQA_TEST_OPENSEARCH_CLUSTER_URLS (the three-node cluster of
# start-opensearch-cluster.sh: three URLs, comma-separated) and DOCQA_TEST_MILVUS_SERVER_URI (the Milvus server of
# start-milvus-server.sh) from those files. Values already set in the environment win, so a
# caller can point tests elsewhere; a service without a ready file is left unset, and its tests
# skip with a message saying so (they never fall back to a server someone else runs on 6379,
# 19530 or 9200). No `set -e` here: this runs inside the caller's shell.

docqa_env_state_dir="${DOCQA_SERVICES_DIR:-$PWD/.services}"
docqa_env_export() {
  # docqa_env_export VARIABLE SERVICE: export VARIABLE from SERVICE's ready file unless it is set.
  if [ -z "${!1:-}" ] && [ -f "$docqa_env_state_dir/$2.ready" ]; then
    export "$1=$(cat "$docqa_env_state_dir/$2.ready")"
  fi
}
docqa_env_export DOCQA_TEST_REDIS_URL redis
docqa_env_export DOCQA_TEST_MILVUS_URI milvus
docqa_env_export DOCQA_TEST_OPENSEARCH_URL opensearch
docqa_env_export DOCQA_TEST_ELASTICSEARCH_URL elasticsearch
docqa_env_export DOCQA_TEST_LLAMA_SERVER_URL llama-server
docqa_env_export DOCQA_TEST_OPENSEARCH_CLUSTER_URLS opensearch-cluster
docqa_env_export DOCQA_TEST_MILVUS_SERVER_URI milvus-server
unset -f docqa_env_export
unset docqa_env_state_dir
