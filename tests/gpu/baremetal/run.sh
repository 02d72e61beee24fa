#!/usr/bin/env bash
# Runs the bare-metal GPU test on vplat twice: tests/gpu/baremetal/run.sh VPLAT OUTDIR
# Passes when both runs print `DONE <n> passed 0 failed` (n > 0) and no FAIL line, and when the two runs'
# console output and --trace gpu-regs traces (virtual timestamps included) are identical: the GPU's job
# manager threads must not make a run depend on host timing. The runs use 1 and 2 GPU host threads and write
# --stats: the statistics must be identical too (apart from the host-thread count they record).
set -uo pipefail
vplat=${1:?usage: run.sh VPLAT OUTDIR}
out=${2:?usage: run.sh VPLAT OUTDIR}
for n in 1 2; do
  timeout 60 "$vplat" --smp 2 --memory 256M --kernel "$out/gpu_jobs.bin" --trace gpu-regs \
    --trace-file "$out/trace$n.txt" --gpu-threads "$n" --stats "$out/stats$n.json" </dev/null >"$out/run$n.log" 2>"$out/err$n.log"
  rc=$?
  tr -d '\r' <"$out/run$n.log" >"$out/run$n.tmp" && mv "$out/run$n.tmp" "$out/run$n.log"
  cat "$out/run$n.log"
  if [ $rc -ne 0 ] || grep -q '^FAIL' "$out/run$n.log" ||
     ! grep -Eq '^DONE [1-9][0-9]* passed 0 failed$' "$out/run$n.log"; then
    echo "gpu_jobs run $n failed (status $rc)"
    exit 1
  fi
done
if ! cmp -s "$out/run1.log" "$out/run2.log"; then
  echo "gpu_jobs: console output differs between two runs"
  diff "$out/run1.log" "$out/run2.log" | head -20
  exit 1
fi
if ! cmp -s "$out/trace1.txt" "$out/trace2.txt"; then
  echo "gpu_jobs: GPU traces differ between two runs"
  diff "$out/trace1.txt" "$out/trace2.txt" | head -20
  exit 1
fi
if ! cmp -s <(grep -v '"host_threads"' "$out/stats1.json") <(grep -v '"host_threads"' "$out/stats2.json"); then
  echo "gpu_jobs: statistics differ between two runs"
  diff "$out/stats1.json" "$out/stats2.json" | head -20
  exit 1
fi
echo "gpu_jobs: two runs, identical output, traces and statistics ($(wc -l <"$out/trace1.txt") trace lines)"
