#!/usr/bin/env bash
# GPU check for a machine with an NVIDIA GPU: builds the tool, then runs on the GPU what the tool can run there today
# and compares it with the CPU. Prints one line per check and a summary; exit code 0 when every check passed.
#
#   examples/gpu/check.sh [MODEL_DIR]
#
# MODEL_DIR (optional): a real Qwen3 checkpoint (config.json, safetensors, tokenizer) for the decode-throughput and
# training checks; without it they run on the quick start's tiny model. What it needs (docs/gpu.md): JDK 17, Maven,
# nvidia-smi, and PyTorch 2.7.1 built for CUDA 12.8 in the `python3` on PATH (its libtorch is what DJL loads).
# Nothing here is part of the build or the tests; it has not been run on a GPU by the project yet (docs/gpu.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
MODEL="${1:-}"
WORK="${GPU_CHECK_WORK:-gpu-check}"
mkdir -p "$WORK"
failures=0
pass() { printf 'PASS  %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; failures=$((failures + 1)); }

# 1. prerequisites
for tool in java mvn nvidia-smi python3; do
  command -v "$tool" >/dev/null || { echo "gpu check: $tool is not on PATH (see docs/gpu.md)" >&2; exit 2; }
done
torch_lib="$(python3 - <<'PY'
import os, sys
try:
    import torch
except ImportError:
    sys.exit("PyTorch is not installed for python3")
if torch.__version__.split("+")[0] != "2.7.1" or not torch.version.cuda:
    sys.exit("PyTorch %s (CUDA %s) found; DJL 0.35.1 needs 2.7.1 built for CUDA 12.x" % (torch.__version__, torch.version.cuda))
if not torch.cuda.is_available():
    sys.exit("torch.cuda.is_available() is False")
print(os.path.join(os.path.dirname(torch.__file__), "lib"))
PY
)" || { echo "gpu check: $torch_lib" >&2; exit 2; }
export PYTORCH_LIBRARY_PATH="$torch_lib" PYTORCH_VERSION=2.7.1 PYTORCH_FLAVOR=cu128 DJL_OFFLINE=true
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | sed 's/^/GPU   /'

# 2. build (the CPU native jar stays on the class path; PYTORCH_LIBRARY_PATH takes precedence over it)
mvn -B -q package -DskipTests

# 3. logits of the test fixture on the GPU against the CPU (float32 and float16)
TINY=mage-impl/llm/src/test/resources/qwen3-tiny
IDS=1,17,42,5,96,0,33,8
./mage logits --model "$TINY" --ids "$IDS" --all --json --device cpu > "$WORK/logits-cpu.json"
for dtype in float32 float16; do
  if ./mage logits --model "$TINY" --ids "$IDS" --all --json --device gpu --dtype "$dtype" > "$WORK/logits-gpu-$dtype.json"; then
    limit=$([[ $dtype == float32 ]] && echo 1e-4 || echo 5e-2)
    diff="$(python3 - "$WORK/logits-cpu.json" "$WORK/logits-gpu-$dtype.json" <<'PY'
import json, sys
def flat(x):
    return [v for row in x for v in (flat(row) if isinstance(row, list) else [row])] if isinstance(x, list) else [x]
a, b = (json.load(open(p)) for p in sys.argv[1:3])
fa, fb = flat(a["logits"]), flat(b["logits"])
assert len(fa) == len(fb), "different shapes"
print(max(abs(x - y) for x, y in zip(fa, fb)))
PY
)"
    if python3 -c "import sys; sys.exit(0 if float('$diff') <= $limit else 1)"; then
      pass "logits on the GPU in $dtype: largest difference from the CPU $diff (limit $limit)"
    else
      fail "logits on the GPU in $dtype: largest difference from the CPU $diff (limit $limit)"
    fi
  else
    fail "mage logits --device gpu --dtype $dtype failed"
  fi
done

# 4. a model with a tokenizer: the given checkpoint, or the quick start's tiny model (written on the CPU)
if [[ -z "$MODEL" ]]; then
  ./mage quickstart --quick --json --work-dir "$WORK/quickstart" > "$WORK/quickstart-cpu.json"
  MODEL="$WORK/quickstart/trained"
fi

# 5. decode throughput, CPU and GPU
for device in cpu gpu; do
  if ./mage generate --model "$MODEL" --prompt "Name three prime numbers." --chat --no-thinking --temperature 0 \
      --max-new-tokens 128 --json --device "$device" > "$WORK/generate-$device.json"; then
    python3 - "$WORK/generate-$device.json" "$device" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
print("INFO  decode on %s: %d tokens in %.0f ms, %.1f tokens/s" % (sys.argv[2], len(o["response_ids"]),
      o["generation_ms"], o["tokens_per_second"]))
PY
    pass "mage generate --device $device"
  else
    fail "mage generate --device $device failed"
  fi
done

# 6. training steps on the GPU: supervised (LoRA) and one MAGE iteration with LoRA
./mage transcripts --env mage-goalkeeper --policy random-plan --meta-episodes 32 --out "$WORK/keeper.jsonl" >/dev/null
if ./mage sft --model "$MODEL" --data "$WORK/keeper.jsonl" --out "$WORK/sft-gpu" --steps 20 --batch-size 8 \
    --lora-rank 8 --device gpu --log-every 5 > "$WORK/sft-gpu.log" 2>&1; then
  pass "mage sft --device gpu: 20 LoRA steps ($(grep -m1 'loss first' "$WORK/sft-gpu.log" || true))"
else
  fail "mage sft --device gpu failed (see $WORK/sft-gpu.log)"
fi
if ./mage lora --model "$MODEL" --env mage-goalkeeper --out "$WORK/lora-gpu" --iterations 1 --tasks 4 \
    --group-size 4 --eval-meta-episodes 8 --device gpu > "$WORK/lora-gpu.log" 2>&1; then
  pass "mage lora --device gpu: one MAGE iteration with LoRA ($(grep -m1 '^  iteration 0' "$WORK/lora-gpu.log" | sed 's/^ *//' || true))"
else
  fail "mage lora --device gpu failed (see $WORK/lora-gpu.log)"
fi

# 7. mage train on the GPU: the mage preset on Goalkeeper with the tiny model, float32 and float16 (loss scaling)
for precision in float32 float16; do
  if ./mage train --preset mage --env mage-goalkeeper --tiny --out "$WORK/train-gpu-$precision" --iterations 2 \
      --tasks 4 --group-size 4 --device gpu --precision "$precision" > "$WORK/train-gpu-$precision.log" 2>&1 \
      && python3 - "$WORK/train-gpu-$precision/metrics.jsonl" <<'PY'
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 2, "expected 2 iterations"
bad = [k for r in rows for k, v in r.items() if isinstance(v, float) and not math.isfinite(v) and k != "grad_norm"]
assert not bad, "non-finite metrics: %s" % bad
print("INFO  train on gpu: %.1f s an iteration" % (sum(r["timing/iteration_s"] for r in rows) / len(rows)))
PY
  then
    pass "mage train --device gpu --precision $precision: 2 iterations with finite metrics"
  else
    fail "mage train --device gpu --precision $precision (see $WORK/train-gpu-$precision.log)"
  fi
done

echo
if [[ $failures -eq 0 ]]; then
  echo "gpu check: every check passed; outputs in $WORK"
else
  echo "gpu check: $failures check(s) failed; outputs in $WORK"
fi
exit $((failures > 0))
