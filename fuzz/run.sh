#!/usr/bin/env bash
# Runs wobble's fuzz targets (built by `make fuzz-build` into BUILD, usually build-fuzz/).
#   fuzz/run.sh short BUILD TARGET SECONDS    fuzz one target for SECONDS from its seeds (make test: 20)
#   fuzz/run.sh replay BUILD TARGET           run every input of fuzz/regressions/TARGET/ once
#   fuzz/run.sh campaign BUILD SECONDS [TARGET...]   every (or the named) target for SECONDS each,
#                                             FUZZ_PARALLEL (default 2) at a time, at low priority (make fuzz)
#   FUZZ_CLOCK=cpu fuzz/run.sh campaign ...   SECONDS of CPU time each instead of wall-clock time
#                                             (on a busy machine a niced fuzzer gets little CPU)
# Inputs that fail go to BUILD/findings/TARGET/ (crash-*, timeout-*, oom-*, leak-*); after fixing
# the cause, copy them into fuzz/regressions/TARGET/ so that every later `make test` replays them.
# Limits: FUZZ_TIMEOUT seconds per input (a hang; default 30, 120 with FUZZ_CLOCK=cpu: libFuzzer's
# timer counts wall-clock time, and a niced fuzzer on a busy machine can wait that long for a CPU),
# 2 GiB resident, 512 MiB in one allocation (far above what the read budget lets a seed-sized
# file allocate, include/wobble/read_limits.hpp).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mode="${1:?usage: run.sh short|replay|campaign BUILD ...}"
build="$(cd "${2:?build folder}" && pwd)"
default_timeout=30
[ "${FUZZ_CLOCK:-wall}" = cpu ] && default_timeout=120
limits=(-rss_limit_mb=2048 -malloc_limit_mb=512 -timeout="${FUZZ_TIMEOUT:-$default_timeout}")
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

binary() {
  local target="$1"
  [ -x "$build/fuzz_$target" ] || { echo "run.sh: $build/fuzz_$target is missing: run make fuzz-build" >&2; exit 1; }
  echo "$build/fuzz_$target"
}

# fuzz_for TARGET SECONDS [scratch]: with "scratch" (make test) the fuzzer starts from the seeds and
# regressions alone and keeps what it finds in a temporary folder, so that a short run stays short
# whatever long campaigns have collected in BUILD/corpus/TARGET.
fuzz_for() {
  local target="$1" seconds="$2" fuzzer
  fuzzer="$(binary "$target")"
  local corpus="$build/corpus/$target" findings="$build/findings/$target"
  if [ "${3:-}" = scratch ]; then
    scratch_corpus="$(mktemp -d)"  # global: the EXIT trap runs after this function has returned
    trap 'rm -rf "$scratch_corpus"' EXIT
    corpus="$scratch_corpus"
  fi
  mkdir -p "$corpus" "$findings" "$here/regressions/$target"
  # The first folder collects what the fuzzer finds interesting; seeds and regressions stay as they are.
  local wall="$seconds"
  [ "${FUZZ_CLOCK:-wall}" = cpu ] && wall=$((seconds * 50))
  "$fuzzer" "${limits[@]}" -max_total_time="$wall" -print_final_stats=1 -artifact_prefix="$findings/" \
    "$corpus" "$build/seeds/$target" "$here/regressions/$target" &
  local pid=$!
  if [ "${FUZZ_CLOCK:-wall}" = cpu ]; then
    # Stop it (SIGINT: libFuzzer prints its figures and exits) once it has used SECONDS of CPU.
    local ticks; ticks=$(getconf CLK_TCK)
    while kill -0 "$pid" 2>/dev/null; do
      local used; used=$(awk '{print int(($14 + $15) / '"$ticks"')}' "/proc/$pid/stat" 2>/dev/null || echo 0)
      if [ "$used" -ge "$seconds" ]; then
        echo "run.sh: $target used $used s of CPU: stopping"
        kill -INT "$pid"
        wait "$pid" || [ $? -eq 72 ]  # 72: libFuzzer's exit code when interrupted
        return
      fi
      sleep 5
    done
  fi
  wait "$pid"
}

replay() {
  local target="$1" fuzzer
  fuzzer="$(binary "$target")"
  shopt -s nullglob
  local inputs=("$here/regressions/$target"/*)
  if [ ${#inputs[@]} -eq 0 ]; then
    echo "run.sh: fuzz/regressions/$target/ holds no inputs yet"
    return 0
  fi
  "$fuzzer" "${limits[@]}" "${inputs[@]}"
  echo "run.sh: replayed ${#inputs[@]} regression inputs of $target"
}

case "$mode" in
  short) fuzz_for "${3:?target}" "${4:?seconds}" scratch ;;
  long) fuzz_for "${3:?target}" "${4:?seconds}" ;;  # one target of a campaign: BUILD/corpus/TARGET grows
  replay) replay "${3:?target}" ;;
  campaign)
    seconds="${3:?seconds}"
    shift 3
    targets=("$@")
    [ ${#targets[@]} -gt 0 ] || mapfile -t targets < "$build/targets.txt"
    mkdir -p "$build/logs"
    status=0
    running=0
    for target in "${targets[@]}"; do
      # At most FUZZ_PARALLEL (default 2) at a time: the next starts when one ends.
      if [ "$running" -ge "${FUZZ_PARALLEL:-2}" ]; then
        wait -n || status=1
        running=$((running - 1))
      fi
      echo "run.sh: fuzzing $target for $seconds s (log: $build/logs/$target.log)"
      nice -n 19 "$0" long "$build" "$target" "$seconds" > "$build/logs/$target.log" 2>&1 &
      running=$((running + 1))
    done
    while [ "$running" -gt 0 ]; do
      wait -n || status=1
      running=$((running - 1))
    done
    for target in "${targets[@]}"; do
      echo "$target: $(grep -E '^#[0-9]+' "$build/logs/$target.log" | tail -1)"
    done
    exit $status ;;
  *) echo "run.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
