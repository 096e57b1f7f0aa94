#!/usr/bin/env bash
# MAGE on a sanity game (mage-goalkeeper or mage-guess-number) with the tiny model, from a history-blind warm start:
# the commands behind those games' rows of docs/results.md. Run from the repository root after
# `mvn -B -q package -DskipTests`:
#   examples/experiments/sanity-game.sh ENV DIR [SEED] [ITERATIONS] [TASKS] [GROUP] [--set KEY=VALUE ...]
# It writes a tiny Qwen3 (tokenizer learned from the game's prompts), transcripts of the history-blind players
# `sweep` and `random` (they never read their earlier attempts), a supervised warm start on them, the warm start's
# rates with and without its history, and a `mage train --preset mage` run (TASKS x GROUP meta-episodes per
# iteration, default 8 x 8, compact prompts, validation every 50 iterations on 128 meta-episodes); the --set
# arguments after GROUP go to `mage train`. DIR/run/metrics.jsonl holds the training and validation rates.
set -euo pipefail
env=${1:?usage: sanity-game.sh ENV DIR [SEED] [ITERATIONS] [TASKS] [GROUP] [--set KEY=VALUE ...]}
dir=${2:?usage: sanity-game.sh ENV DIR [SEED] [ITERATIONS] [TASKS] [GROUP] [--set KEY=VALUE ...]}
seed=${3:-1}
iterations=${4:-200}
tasks=${5:-8}
group=${6:-8}
shift $(( $# < 6 ? $# : 6 ))
export MAGE_JAVA_OPTS="${MAGE_JAVA_OPTS:--Dai.djl.pytorch.num_threads=1}"
mkdir -p "$dir"
./mage train --preset mage --env "$env" --tiny --out "$dir/t0" --iterations 1 --seed "$seed" \
  --set rollout.tasks=1 --set rollout.group_size=1 --set validation.every=0 --set checks.max_anchor_drop=0 \
  --set rollout.prompt_style=compact > "$dir/t0.log"
./mage transcripts --env "$env" --policy sweep,random --context-mode history_only --prompt-style compact \
  --meta-episodes 800 --no-early-stop --out "$dir/warm.jsonl" --seed "$seed" > "$dir/transcripts.log"
./mage sft --model "$dir/t0/tiny-model" --data "$dir/warm.jsonl" --out "$dir/sft" --epochs 4 --lr 1e-3 \
  --batch-size 32 --no-thinking > "$dir/sft.log"
for context in history_only none; do
  ./mage play --env "$env" --model "$dir/sft" --no-thinking --meta-episodes 128 --context-mode "$context" \
    --prompt-style compact --max-new-tokens 16 --seed 99 --json > "$dir/warm-$context.json"
done
./mage train --preset mage --env "$env" --model "$dir/sft" --out "$dir/run" --iterations "$iterations" \
  --seed "$seed" --set rollout.tasks="$tasks" --set rollout.group_size="$group" --set rollout.prompt_style=compact \
  --set sampling.max_new_tokens=16 --set validation.every=50 --set validation.meta_episodes=128 --threads 1 \
  --no-progress "$@" > "$dir/train.log"
echo "done: $dir/run/metrics.jsonl"
