#!/usr/bin/env bash
# tools/bench/compare_training.sh — training speed of a chapter program against its PyTorch
# script (tools/bench/*_torch.py), in one session: the two are run alternately, REPEATS times
# each, with the same data, seed, epochs and thread count, and the medians and their ratio
# are printed. Alternating matters on a shared machine: a burst of load then hits both sides.
#
#   bash tools/bench/compare_training.sh MODEL [REPEATS] [THREADS] [EPOCHS]
#     MODEL    bahdanau | transformer | nli
#     REPEATS  runs of each side (default 3)
#     THREADS  OpenMP threads on both sides (default 2)
#     EPOCHS   per run (default: 30 / 30 / 1). The speed the programs print is the last
#              epoch's (seq2seq, as the book) or the whole run's (NLI, as the book), so a
#              short run measures the same steady-state figure as the book's full run.
#
# Both sides run with the libraries' default OpenMP wait policy; on a busy machine set
# OMP_WAIT_POLICY=PASSIVE in the environment for both (tools/bench/README.md, "Threads"). Run
# from the repository root after `make`; needs python3-torch (tools/scripts/install_deps.sh --bench)
# and the data (data/ from `make data`, or ../shared/data). Prints `bench=compare_training model=.. ours=.. torch=.. ratio=..`.
set -euo pipefail
if [[ ${1:-} == -h || ${1:-} == --help ]]; then  # the header above is the manual
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
cd "$(dirname "$0")/../.."

model=${1:?usage: compare_training.sh bahdanau|transformer|nli [REPEATS] [THREADS] [EPOCHS]}
repeats=${2:-3}
threads=${3:-2}
# The data, as the programs find it: fra-eng from `make data` (data/) or the shared copy;
# SNLI from the shared export (9.8k training pairs), else `make data`'s full SNLI 1.0 (549k
# pairs: one epoch takes hours on each side).
fra=data/fra-eng/fra.txt; [[ -e $fra ]] || fra=../shared/data/fra-eng/fra.txt
snli=../shared/data/snli; [[ -e $snli/validation.tsv ]] || [[ ! -e data/snli_1.0 ]] || snli=data/snli_1.0
case "$model" in
  bahdanau)    ours=build/chapters/bahdanau_attention; torch=tools/bench/bahdanau_torch.py
               data=$fra; epochs=${4:-30}; unit="tokens/sec" ;;
  transformer) ours=build/chapters/transformer; torch=tools/bench/transformer_torch.py
               data=$fra; epochs=${4:-30}; unit="tokens/sec" ;;
  nli)         ours=build/chapters/natural_language_inference_attention; torch=tools/bench/nli_torch.py
               data=$snli; epochs=${4:-1}; unit="examples/sec" ;;
  *) echo "error: unknown model '$model' (bahdanau, transformer or nli)" >&2; exit 2 ;;
esac
[[ -x $ours ]] || { echo "error: $ours not built (run make)" >&2; exit 1; }
[[ -e $data ]] || { echo "skipped: $data not found"; exit 0; }

# The figure before " $unit on cpu" in the program's final line.
speed() { grep -E "[0-9] $unit on cpu" | tail -1 | sed -E "s|^(.* )?([0-9.]+) $unit on cpu.*|\\2|"; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ((r = 1; r <= repeats; ++r)); do
  a=$("$ours" --epochs "$epochs" --threads "$threads" --data "$data" --out "$out/fig" 2>&1 | speed)
  b=$(/usr/bin/python3 "$torch" --epochs "$epochs" --threads "$threads" --data "$data" 2>&1 | speed)
  echo "run $r: ours $a, torch $b $unit"
  echo "$a" >>"$out/ours"
  echo "$b" >>"$out/torch"
done
mo=$(median <"$out/ours")
mt=$(median <"$out/torch")
echo "bench=compare_training model=$model threads=$threads epochs=$epochs repeats=$repeats" \
  "wait_policy=${OMP_WAIT_POLICY:-default}" \
  "ours=$mo torch=$mt ratio=$(awk -v a="$mo" -v b="$mt" 'BEGIN {printf "%.2f", a / b}') ($unit, medians)"
