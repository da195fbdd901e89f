#!/usr/bin/env bash
# tools/scripts/run_programs.sh — the chapter programs' runs behind `make run` and the book's
# section logs (the Makefile's comment above `run` says what runs, in which order and why).
#
#   run_programs.sh one NAME [ARGS...]          one program, its output kept for the pages
#   run_programs.sh all JOBS -- ALONE... -- POOLED...
#       each ALONE in turn with the machine to itself, then the POOLED, JOBS at a time, each
#       one's output printed whole when it ends; a program is one word "NAME ARGS..."
#
# Environment (set by the Makefile): BUILD (the programs are $BUILD/chapters/NAME), BOOK_RUN
# (where the logs go), TIER, BOOK_SAVE (the names that also --save their trained model), and
# $BOOK_RUN/args, the make ARGS as NUL-separated words that follow every program's own ARGS.
# A program's output goes to $BOOK_RUN/NAME.log (renamed into place only when it succeeds),
# the source lines of its banners and figures to NAME.trace (D2L_BOOK_TRACE,
# tools/d2l/cli/source_trace.h), and the run's settings to settings.txt.
set -uo pipefail
: "${BUILD:?} ${BOOK_RUN:?} ${TIER:?}"
BOOK_SAVE=" ${BOOK_SAVE:-} "

now_ns() { date +%s%N; }
ms_since() { echo "$(( ($(now_ns) - $1) / 1000000 )) ms"; }
make_args() { tr '\0' ' ' <"$BOOK_RUN/args" | sed 's/ $//'; }

# Written through a temporary file: two pooled programs may finish at once.
write_settings() {
  local a tmp="$BOOK_RUN/settings.txt.$BASHPID"
  a=$(make_args)
  printf '%s\n' "tier: $TIER" "arguments: ${a:-none: every program at its defaults}" "cores: $(nproc)" \
    "OMP_NUM_THREADS: ${OMP_NUM_THREADS:-unset, each program uses its --threads default}" \
    "OMP_WAIT_POLICY: ${OMP_WAIT_POLICY:-unset}" "run finished: $(date -u '+%Y-%m-%d %H:%M UTC')" >"$tmp" &&
    mv "$tmp" "$BOOK_RUN/settings.txt"
}

run_one() {  # NAME ARGS...
  local name=$1 save=()
  shift
  [[ $BOOK_SAVE == *" $name "* ]] && save=(--save "$BOOK_RUN/$name.safetensors")
  rm -f "$BOOK_RUN/$name.trace" "$BOOK_RUN/$name.log"
  D2L_BOOK_TRACE="$BOOK_RUN/$name.trace" xargs -0 -a "$BOOK_RUN/args" "$BUILD/chapters/$name" "$@" "${save[@]}" |
    tee "$BOOK_RUN/$name.log.part" &&
    mv "$BOOK_RUN/$name.log.part" "$BOOK_RUN/$name.log" && write_settings
}

run_timed() {  # "NAME ARGS...": the heading, the output, the milliseconds
  local words t
  read -r -a words <<<"$1"
  echo "== $BUILD/chapters/$1"
  t=$(now_ns)
  run_one "${words[@]}" && echo "[make] ${words[0]}: $(ms_since "$t")"
}

declare -A job=()  # pid -> program, for the pool
failed=
# Waits for the next pooled program to end, prints its output and notes a failure (polled:
# `wait -n` can miss a job that ended before it was called).
reap() {
  local pid rc name
  while :; do
    for pid in "${!job[@]}"; do
      kill -0 "$pid" 2>/dev/null && continue
      wait "$pid"; rc=$?
      name=${job[$pid]}
      cat "$BOOK_RUN/$name.out"; rm -f "$BOOK_RUN/$name.out"
      [ "$rc" -eq 0 ] || failed="$failed $name"
      unset "job[$pid]"
      return
    done
    sleep 0.1
  done
}

case "${1:-}" in
  one)
    shift
    run_one "$@"
    ;;
  all)
    jobs=$2 count=0 start=$(now_ns)
    shift 3  # all JOBS --
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
      run_timed "$1" || exit 1
      count=$((count + 1)); shift
    done
    shift  # --
    for p in "$@"; do
      while [ "${#job[@]}" -ge "$jobs" ]; do reap; done
      name=${p%% *}
      run_timed "$p" >"$BOOK_RUN/$name.out" 2>&1 </dev/null &
      job[$!]=$name
      count=$((count + 1))
    done
    while [ "${#job[@]}" -gt 0 ]; do reap; done
    if [ -n "$failed" ]; then echo "[make] failed:$failed" >&2; exit 1; fi
    a=$(make_args)
    echo "[make] run: $(ms_since "$start") for $count programs${a:+, with $a}"
    ;;
  *)
    echo "usage: $0 one NAME [ARGS...] | all JOBS -- ALONE... -- POOLED..." >&2
    exit 2
    ;;
esac
