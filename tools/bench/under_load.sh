#!/usr/bin/env bash
# tools/bench/under_load.sh — does a training program keep its speed when the machine is
# busy? Each chapter program runs with its default settings (no --threads, the environment
# as given) once on the machine as it is ("quiet") and once while BURNERS CPU-bound processes
# (`yes > /dev/null`) compete for the cores ("loaded"), alternately, REPEATS times each; the
# medians and loaded / quiet are printed, with the peak resident set size of the quiet runs.
# With python3-torch present, the matching PyTorch script (tools/bench/*_torch.py, also with
# its defaults) is measured the same way.
#
#   bash tools/bench/under_load.sh [MODELS] [REPEATS] [BURNERS]
#     MODELS   comma-separated: bahdanau,transformer,nli (default all three)
#     REPEATS  runs of each kind (default 3)
#     BURNERS  competing processes (default 2: as many as this machine's 2 cores)
#   EPOCHS_SEQ2SEQ (default 20) and EPOCHS_NLI (default 1) in the environment set the run
#   lengths; the seq2seq figure is the last epoch's tokens/sec, NLI's the run's examples/sec.
#   QUICK_NLI=1 passes --quick to both NLI sides (1024 training pairs: a run in seconds on a
#   busy machine; its peak RSS is then not the full run's).
#   TORCH=0 skips PyTorch. OURS_ARGS adds options to our programs (e.g. "--threads 2" for a
#   setting other than the default).
#
# Prints per run `run R MODEL SIDE quiet|loaded SPEED UNIT rss_mb=..`, then per model and side
#   bench=under_load model=.. side=ours|torch quiet=.. loaded=.. ratio=.. rss_mb=.. burners=..
#   ours_args=.. omp_num_threads=.. omp_wait_policy=.. gomp_spincount=..
# ("default" = the variable is unset). On a machine that other jobs keep busy, "quiet" is
# only as quiet as they leave it: compare ratios from one run of this script.
set -euo pipefail
if [[ ${1:-} == -h || ${1:-} == --help ]]; then  # the header above is the manual
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
cd "$(dirname "$0")/../.."

models=${1:-bahdanau,transformer,nli}
repeats=${2:-3}
burners=${3:-2}
epochs_seq2seq=${EPOCHS_SEQ2SEQ:-20}
epochs_nli=${EPOCHS_NLI:-1}
nli_quick=()
[[ ${QUICK_NLI:-0} == 1 ]] && nli_quick=(--quick)
fra=../shared/data/fra-eng/fra.txt
snli=../shared/data/snli
with_torch=${TORCH:-1}
read -ra ours_args <<<"${OURS_ARGS:-}"
if [[ $with_torch == 1 ]] && ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "note: python3-torch not found; PyTorch skipped"
  with_torch=0
fi

out=$(mktemp -d)
pids=()
stop_burners() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap 'stop_burners; rm -rf "$out"' EXIT
start_burners() {
  local i
  for ((i = 0; i < burners; ++i)) do
    yes >/dev/null &
    pids+=($!)
  done
  sleep 0.5  # let the scheduler spread them before the program starts
}

# The figure before " $unit on cpu" in the program's last such line.
speed() { grep -E "[0-9] $1 on cpu" | tail -1 | sed -E "s|^(.* )?([0-9.]+) $1 on cpu.*|\\2|"; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

# run SIDE MODEL: one run; prints "SPEED RSS_MB".
run() {
  local side=$1 model=$2 cmd unit log=$out/log
  case "$model" in
    bahdanau)    unit=tokens/sec
                 if [[ $side == ours ]]; then cmd=(build/chapters/bahdanau_attention --out "$out/fig" "${ours_args[@]}")
                 else cmd=(/usr/bin/python3 tools/bench/bahdanau_torch.py); fi
                 cmd+=(--epochs "$epochs_seq2seq" --data "$fra") ;;
    transformer) unit=tokens/sec
                 if [[ $side == ours ]]; then cmd=(build/chapters/transformer --out "$out/fig" "${ours_args[@]}")
                 else cmd=(/usr/bin/python3 tools/bench/transformer_torch.py); fi
                 cmd+=(--epochs "$epochs_seq2seq" --data "$fra") ;;
    nli)         unit=examples/sec
                 if [[ $side == ours ]]; then cmd=(build/chapters/natural_language_inference_attention --out "$out/fig" "${ours_args[@]}")
                 else cmd=(/usr/bin/python3 tools/bench/nli_torch.py); fi
                 cmd+=(--epochs "$epochs_nli" --data "$snli" "${nli_quick[@]}") ;;
    *) echo "error: unknown model '$model' (bahdanau, transformer or nli)" >&2; exit 2 ;;
  esac
  /usr/bin/time -f "rss_kb=%M" "${cmd[@]}" >"$log" 2>&1 || { echo "error: ${cmd[*]} failed:" >&2; tail -5 "$log" >&2; exit 1; }
  local s rss
  s=$(speed "$unit" <"$log")
  rss=$(sed -nE 's/^rss_kb=([0-9]+)$/\1/p' "$log" | tail -1)
  echo "$s $((rss / 1024)) $unit"
}

[[ -e $fra && -e $snli ]] || { echo "skipped: $fra or $snli not found"; exit 0; }
sides=(ours)
[[ $with_torch == 1 ]] && sides+=(torch)
IFS=, read -ra model_list <<<"$models"
for model in "${model_list[@]}"; do
  case "$model" in
    bahdanau) bin=build/chapters/bahdanau_attention ;;
    transformer) bin=build/chapters/transformer ;;
    nli) bin=build/chapters/natural_language_inference_attention ;;
    *) echo "error: unknown model '$model' (bahdanau, transformer or nli)" >&2; exit 2 ;;
  esac
  [[ -x $bin ]] || { echo "error: $bin not built (run make)" >&2; exit 1; }
  for ((r = 1; r <= repeats; ++r)); do
    for side in "${sides[@]}"; do
      # Alternate which kind goes first, so a change in the neighbours' load hits both.
      if ((r % 2)); then kinds=(quiet loaded); else kinds=(loaded quiet); fi
      for kind in "${kinds[@]}"; do
        [[ $kind == loaded ]] && start_burners
        read -r s rss unit < <(run "$side" "$model")
        [[ $kind == loaded ]] && stop_burners
        echo "run $r $model $side $kind $s $unit rss_mb=$rss"
        echo "$s" >>"$out/$model.$side.$kind"
        [[ $kind == quiet ]] && echo "$rss" >>"$out/$model.$side.rss"
      done
    done
  done
  for side in "${sides[@]}"; do
    q=$(median <"$out/$model.$side.quiet")
    l=$(median <"$out/$model.$side.loaded")
    m=$(median <"$out/$model.$side.rss")
    echo "bench=under_load model=$model side=$side quiet=$q loaded=$l" \
      "ratio=$(awk -v a="$l" -v b="$q" 'BEGIN {printf "%.2f", a / b}') rss_mb=$m ($unit, medians of $repeats)" \
      "burners=$burners ours_args='${OURS_ARGS:-}' omp_num_threads=${OMP_NUM_THREADS:-default}" \
      "omp_wait_policy=${OMP_WAIT_POLICY:-default} gomp_spincount=${GOMP_SPINCOUNT:-default}"
  done
done
