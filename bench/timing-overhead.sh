#!/usr/bin/env bash
# Host-time cost of the GPU timing models (issue [TIMING], budget 5 %): the compute-heavy job of gpu-interp.sh
# (64 threads x WORKGROUPS, an FMA-chain loop of ITERATIONS per thread) with the models off and on, alternating,
# RUNS times each on one host thread (one thread keeps the comparison free of scheduling noise between threads).
# Prints the median wall seconds and the median process CPU seconds (wall x CPUs the run got; steadier on a
# loaded host) of each, and the overhead of the models in percent of the medians without them.
set -euo pipefail
build=${1:-build}
groups=${GPU_BENCH_WORKGROUPS:-64}
iterations=${GPU_BENCH_ITERATIONS:-2000}
runs=${TIMING_BENCH_RUNS:-7}
threads=${TIMING_BENCH_THREADS:-1}
run=$build/bench/gpu-interp
[ -x "$run" ] || { echo "timing-overhead: $run not built (run make build)" >&2; exit 2; }
echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at start; job: $groups workgroups x 64 threads, $iterations iterations, $threads host thread(s), $runs runs each"
off=() on=() off_cpu=() on_cpu=() estimate=
for i in $(seq "$runs"); do
  out=$("$run" "$threads" "$groups" "$iterations")
  off+=("$(awk '{print $8}' <<<"$out")")
  off_cpu+=("$(awk '{printf "%.3f", $8 * $12}' <<<"$out")")
  out=$("$run" "$threads" "$groups" "$iterations" timing 2>/dev/null)
  on+=("$(awk '{print $8}' <<<"$out")")
  on_cpu+=("$(awk '{printf "%.3f", $8 * $12}' <<<"$out")")
  estimate=$(awk '{print $14}' <<<"$out")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
m_off=$(median "${off[@]}") m_on=$(median "${on[@]}")
c_off=$(median "${off_cpu[@]}") c_on=$(median "${on_cpu[@]}")
echo "models off: wall ${off[*]} s (median $m_off); CPU ${off_cpu[*]} s (median $c_off)"
echo "models on:  wall ${on[*]} s (median $m_on); CPU ${on_cpu[*]} s (median $c_on)"
echo "the job's estimate: $estimate GPU cycles"
awk -v a="$m_off" -v b="$m_on" -v c="$c_off" -v d="$c_on" 'BEGIN { printf "overhead of the timing models: wall %+.1f%%, CPU %+.1f%% (budget 5%%)\n", 100 * (b - a) / a, 100 * (d - c) / c }'
