#!/usr/bin/env bash
# Cost of the shader statistics (informative; target <= 5 %), on the compute job of bench/gpu-interp.sh (64-thread
# workgroups running an FMA-chain loop: a 6-tuple loop clause, one counter update per 48 thread instructions) and on
# its `short` variant (a 2-tuple counting loop: one counter update, and a branch, per 16 thread instructions; the
# worst case for the counters), with and without statistics.
#  1. Host instructions executed (valgrind's callgrind, when installed): deterministic, so the figure does not
#     depend on the load of a shared host. One host thread, a small job (16 workgroups, 300 iterations).
#  2. Host CPU seconds (process CPU time, less disturbed by load than wall time), on 1 and 2 host threads: runs
#     alternate (off, on, off, on, ...) so load changes hit both sides alike; medians of RUNS runs each.
set -euo pipefail
build=${1:-build}
groups=${GPU_BENCH_WORKGROUPS:-64}
iterations=${GPU_BENCH_ITERATIONS:-1000}
runs=${STATS_BENCH_RUNS:-5}
run=$build/bench/gpu-interp
[ -x "$run" ] || { echo "stats-overhead: $run not built (run make build)" >&2; exit 2; }
echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at start"

if command -v valgrind >/dev/null; then
  echo "host instructions (callgrind; 1 host thread, 16 workgroups x 64 threads, 300 iterations):"
  printf '  %-8s %16s %16s %10s\n' kernel 'stats off' 'stats on' overhead
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  irefs() { valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$run" 1 16 300 "$@" 2>&1 >/dev/null |
              awk '/Collected/ { print $NF }'; }
  for kernel in fma short; do
    opt=; [ $kernel = short ] && opt=short
    a=$(irefs $opt)
    b=$(irefs "stats${opt:+,$opt}")
    awk -v k=$kernel -v a="$a" -v b="$b" 'BEGIN { printf "  %-8s %16d %16d %9.2f%%\n", k, a, b, 100 * (b - a) / a }'
  done
else
  echo "(valgrind not installed: no host instruction counts)"
fi

echo "host CPU seconds ($groups workgroups x 64 threads, $iterations iterations; median of $runs runs each):"
printf '  %-8s %-8s %16s %16s %10s\n' kernel threads 'stats off' 'stats on' overhead
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for kernel in fma short; do
  opt=; [ $kernel = short ] && opt=short
  for n in 1 2; do
    off=() on=()
    for ((i = 0; i < runs; i++)); do
      # CPU seconds = wall seconds x CPUs the run got.
      off+=("$("$run" "$n" "$groups" "$iterations" $opt | awk '{print $8 * $12}')")
      on+=("$("$run" "$n" "$groups" "$iterations" "stats${opt:+,$opt}" | awk '{print $8 * $12}')")
    done
    a=$(printf '%s\n' "${off[@]}" | median)
    b=$(printf '%s\n' "${on[@]}" | median)
    awk -v k=$kernel -v n="$n" -v a="$a" -v b="$b" 'BEGIN { printf "  %-8s %-8s %16.3f %16.3f %9.1f%%\n", k, n, a, b, 100 * (b - a) / a }'
  done
done
