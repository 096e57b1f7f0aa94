#!/usr/bin/env bash
# Alternates `./mage bench model` and decode_eager.py (the same decode loop in eager PyTorch) on the 10M model, PAIRS
# times, each run giving every batch's median over ROUNDS runs; prints both programs' product and median lines, then
# per batch the ratio mage / eager of each pair's medians. Run by hand, never by the tests; it needs Debian's
# python3-torch and a BLAS for it (see decode_eager.py).
#
#   examples/bench/python/compare_decode.sh [PAIRS=3] [ROUNDS=5] [BATCHES=1,8,64] [NEW=64]
#
# EAGER overrides the eager command (options are appended), for another PyTorch, for example Debian trixie's 2.6 in
# a chroot holding a copy of decode_eager.py (docs/benchmarks.md has the recipe):
#   EAGER="chroot /opt/trixie env MKL_THREADING_LAYER=SEQUENTIAL python3 /bench/decode_eager.py" compare_decode.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
pairs="${1:-3}"
rounds="${2:-5}"
batches="${3:-1,8,64}"
new="${4:-64}"
if (( rounds < 2 )); then
  echo "compare_decode.sh: ROUNDS must be at least 2 (each run reports its medians), got $rounds" >&2
  exit 2
fi
cd "$here"
ratios=""
for ((i = 1; i <= pairs; i++)); do
  echo "== pair $i of $pairs: mage"
  mage_out=$(MAGE_JAVA_OPTS=-Dai.djl.pytorch.num_threads=1 ./mage bench model sizes=10m "batches=$batches" "new=$new" \
    nocache10m= ceiling=false "rounds=$rounds" | grep -E "product|median")
  echo "$mage_out"
  echo "== pair $i of $pairs: eager PyTorch"
  # shellcheck disable=SC2086 # EAGER is a command line
  eager_out=$(MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 ${EAGER:-/usr/bin/python3 examples/bench/python/decode_eager.py} \
    --batches "$batches" --new "$new" --rounds "$rounds" | grep -E "PyTorch|BLAS|product|median")
  echo "$eager_out"
  # "... batch  8, median of 5 rounds:    399.9 tokens/s ..." -> "8 399.9"
  medians() { sed -nE 's/.*batch +([0-9]+), median of [0-9]+ rounds: +([0-9.]+) tokens\/s.*/\1 \2/p'; }
  ratios+=$(join <(echo "$mage_out" | medians | sort) <(echo "$eager_out" | medians | sort) \
    | awk -v pair="$i" '{ printf "%s %d %.2f\n", $1, pair, $2 / $3 }')$'\n'
done
echo "== mage / eager PyTorch, the ratio of the medians in each pair"
echo "$ratios" | sort -n -k1,1 -k2,2 | awk 'NF == 3 {
  if ($1 != batch) { if (batch != "") print line; batch = $1; line = "batch " $1 ":" }
  line = line " " $3 } END { if (batch != "") print line }'
