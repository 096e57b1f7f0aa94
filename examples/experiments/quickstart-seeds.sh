#!/usr/bin/env bash
# The quick start over several seeds, two at a time, and its table with mean and sample sd: the commands behind the
# quick-start rows of docs/results.md and README.md. Run from the repository root after
# `mvn -B -q package -DskipTests`:
#   examples/experiments/quickstart-seeds.sh DIR [SEEDS] [QUICKSTART OPTIONS...]
# SEEDS is a comma-separated list (default 1,2,3,4,5); the options go to every `./mage quickstart` (for example
# --env mage-kuhn-poker, --iterations N, --set KEY=VALUE). Each seed writes DIR/seedS (its run directory),
# DIR/seedS.json (the --json table) and DIR/seedS.time (wall-clock seconds). The summary is printed by
# examples/experiments/quickstart-table.py, which reads nothing but those JSON files.
# Each seed is a training seed (--seed S) from the shipped warm start, evaluated on the same meta-episodes; with
# WARM_START_SEEDS=1 it is also the warm start's seed (--warm-start-seed S: each seed its own model, warm start and
# evaluation sets, the quick start's --seed before 2026-11-27's last session).
set -euo pipefail
dir=${1:?usage: quickstart-seeds.sh DIR [SEEDS] [QUICKSTART OPTIONS...]}
seeds=${2:-1,2,3,4,5}
shift $(( $# < 2 ? $# : 2 ))
mkdir -p "$dir"
run() {
  local s=$1
  shift
  local start end
  start=$(date +%s)
  local warm=()
  if [[ "${WARM_START_SEEDS:-0}" == 1 ]]; then
    warm=(--warm-start-seed "$s")
  fi
  ./mage quickstart --seed "$s" "${warm[@]}" --work-dir "$dir/seed$s" --json "$@" > "$dir/seed$s.json" \
    2> "$dir/seed$s.err"
  end=$(date +%s)
  echo $((end - start)) > "$dir/seed$s.time"
}
IFS=',' read -r -a list <<< "$seeds"
running=0
for s in "${list[@]}"; do
  run "$s" "$@" &
  running=$((running + 1))
  if (( running == 2 )); then
    wait -n
    running=$((running - 1))
  fi
done
wait
python3 "$(dirname "$0")/quickstart-table.py" "$dir" "${list[@]}"
