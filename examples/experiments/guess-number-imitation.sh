#!/usr/bin/env bash
# Diagnostic, not a recipe (it teaches the adaptation itself): can the tiny model play binary search on Guess the
# Number when it imitates the `bisect` player? Run after guess-number.sh, whose DIR/t0/tiny-model it starts from:
#   examples/experiments/guess-number-imitation.sh DIR [SEED]
set -euo pipefail
dir=${1:?usage: guess-number-imitation.sh DIR [SEED]}
seed=${2:-1}
export MAGE_JAVA_OPTS="${MAGE_JAVA_OPTS:--Dai.djl.pytorch.num_threads=1}"
./mage transcripts --env mage-guess-number --policy bisect --context-mode history_only --prompt-style compact \
  --meta-episodes 800 --no-early-stop --out "$dir/bisect.jsonl" --seed "$seed" > "$dir/bisect-transcripts.log"
./mage sft --model "$dir/t0/tiny-model" --data "$dir/bisect.jsonl" --out "$dir/imitate" --epochs 4 --lr 1e-3 \
  --batch-size 32 --no-thinking > "$dir/imitate-sft.log"
for context in history_only none; do
  ./mage play --env mage-guess-number --model "$dir/imitate" --no-thinking --meta-episodes 128 \
    --context-mode "$context" --prompt-style compact --max-new-tokens 16 --seed 99 --json > "$dir/imitate-$context.json"
done
echo "done: $dir/imitate-history_only.json and $dir/imitate-none.json"
