#!/usr/bin/env bash
# Bifrost shader-core interpreter speed (informative): one compute-heavy job (64 threads x WORKGROUPS, an
# FMA-chain loop of ITERATIONS per thread) on 1 and on 2 host threads (--gpu-threads). Prints, per thread count,
# the median of 3 runs of thread instructions per host second per host thread, and the scaling from 1 to 2 host
# threads (total throughput with 2 / total throughput with 1; 2.00 is perfect).
set -euo pipefail
build=${1:-build}
groups=${GPU_BENCH_WORKGROUPS:-64}
iterations=${GPU_BENCH_ITERATIONS:-2000}
run=$build/bench/gpu-interp
[ -x "$run" ] || { echo "gpu-interp: $run not built (run make build)" >&2; exit 2; }
echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at start; job: $groups workgroups x 64 threads, $iterations iterations"
printf '%-8s %16s %12s %24s %10s\n' threads instructions 'median s' 'instr/s per host thread' 'CPUs got'
declare -A rate
for n in 1 2; do
  rates=() secs=() cpus=()
  instr=0
  for i in 1 2 3; do
    out=$("$run" "$n" "$groups" "$iterations")
    instr=$(awk '{print $6}' <<<"$out")
    secs+=("$(awk '{print $8}' <<<"$out")")
    rates+=("$(awk '{print $10}' <<<"$out")")
    cpus+=("$(awk '{print $12}' <<<"$out")")
  done
  r=$(printf '%s\n' "${rates[@]}" | sort -g | sed -n 2p)
  s=$(printf '%s\n' "${secs[@]}" | sort -g | sed -n 2p)
  c=$(printf '%s\n' "${cpus[@]}" | sort -g | sed -n 2p)
  rate[$n]=$r
  printf '%-8s %16s %12s %24.0f %10s\n' "$n" "$instr" "$s" "$r" "$c"
done
awk -v a="${rate[1]}" -v b="${rate[2]}" 'BEGIN { printf "scaling 1 -> 2 host threads: %.2fx total throughput (%.0f%% per-thread efficiency)\n", 2 * b / a, 100 * b / a }'
