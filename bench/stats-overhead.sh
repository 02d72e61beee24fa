#!/usr/bin/env bash
# Cost of the shader statistics (informative; target <= 5 %): the compute job of bench/gpu-interp.sh (64 threads x
# WORKGROUPS, an FMA-chain loop of ITERATIONS per thread: a 6-tuple loop clause, so one counter update per 48 thread
# instructions) run with and without statistics, on 1 and 2 host threads. Runs alternate (off, on, off, on, ...) so that load changes on a
# shared host hit both sides alike; prints the median host seconds of RUNS runs each and the overhead of the medians.
set -euo pipefail
build=${1:-build}
groups=${GPU_BENCH_WORKGROUPS:-64}
iterations=${GPU_BENCH_ITERATIONS:-2000}
runs=${STATS_BENCH_RUNS:-5}
run=$build/bench/gpu-interp
[ -x "$run" ] || { echo "stats-overhead: $run not built (run make build)" >&2; exit 2; }
echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at start; job: $groups workgroups x 64 threads, $iterations iterations; $runs runs each"
printf '%-8s %14s %14s %10s\n' threads 'off median s' 'on median s' overhead
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for n in 1 2; do
  off=() on=()
  for ((i = 0; i < runs; i++)); do
    off+=("$("$run" "$n" "$groups" "$iterations" | awk '{print $8}')")
    out=$("$run" "$n" "$groups" "$iterations" stats)
    on+=("$(awk '{print $8}' <<<"$out")")
    clauses=$(awk '{print $14}' <<<"$out")
  done
  a=$(printf '%s\n' "${off[@]}" | median)
  b=$(printf '%s\n' "${on[@]}" | median)
  awk -v n="$n" -v a="$a" -v b="$b" 'BEGIN { printf "%-8s %14.3f %14.3f %9.1f%%\n", n, a, b, 100 * (b - a) / a }'
done
echo "(statistics counted $clauses warp clause executions per job)"
