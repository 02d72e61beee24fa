#!/usr/bin/env bash
# Host-time cost of the GPU timing models (issue [TIMING], budget 5 %): the compute-heavy job of gpu-interp.sh
# (64 threads x WORKGROUPS, an FMA-chain loop of ITERATIONS per thread) with the models off and on, alternating,
# RUNS times each on one host thread (one thread keeps the comparison free of scheduling noise between threads).
# Prints the median host seconds of each and the overhead of the models in percent of the median without them.
set -euo pipefail
build=${1:-build}
groups=${GPU_BENCH_WORKGROUPS:-64}
iterations=${GPU_BENCH_ITERATIONS:-2000}
runs=${TIMING_BENCH_RUNS:-7}
threads=${TIMING_BENCH_THREADS:-1}
run=$build/bench/gpu-interp
[ -x "$run" ] || { echo "timing-overhead: $run not built (run make build)" >&2; exit 2; }
echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at start; job: $groups workgroups x 64 threads, $iterations iterations, $threads host thread(s), $runs runs each"
off=() on=() estimate=
for i in $(seq "$runs"); do
  off+=("$("$run" "$threads" "$groups" "$iterations" | awk '{print $8}')")
  out=$("$run" "$threads" "$groups" "$iterations" timing)
  on+=("$(awk '{print $8}' <<<"$out")")
  estimate=$(awk '{print $14}' <<<"$out")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
m_off=$(median "${off[@]}")
m_on=$(median "${on[@]}")
echo "models off: ${off[*]} s (median $m_off)"
echo "models on:  ${on[*]} s (median $m_on); the job's estimate: $estimate GPU cycles"
awk -v a="$m_off" -v b="$m_on" 'BEGIN { printf "overhead of the timing models: %+.1f%% (budget 5%%)\n", 100 * (b - a) / a }'
