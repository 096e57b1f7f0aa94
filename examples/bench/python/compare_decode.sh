#!/usr/bin/env bash
# Alternates `./mage bench model` and decode_eager.py (the same decode loop in eager PyTorch) on the 10M model, PAIRS
# times, each run giving every batch's median over ROUNDS runs, and prints the median lines of both side by side.
# Run by hand, never by the tests; it needs Debian's python3-torch and a BLAS for it (see decode_eager.py).
#
#   examples/bench/python/compare_decode.sh [PAIRS=3] [ROUNDS=5] [BATCHES=1,8,64] [NEW=64]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
pairs="${1:-3}"
rounds="${2:-5}"
batches="${3:-1,8,64}"
new="${4:-64}"
cd "$here"
for ((i = 1; i <= pairs; i++)); do
  echo "== pair $i of $pairs: mage"
  MAGE_JAVA_OPTS=-Dai.djl.pytorch.num_threads=1 ./mage bench model sizes=10m "batches=$batches" "new=$new" \
    nocache10m= ceiling=false "rounds=$rounds" | grep -E "product|median"
  echo "== pair $i of $pairs: eager PyTorch"
  MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 examples/bench/python/decode_eager.py \
    --batches "$batches" --new "$new" --rounds "$rounds" | grep -E "BLAS|product|median"
done
