#!/usr/bin/env bash
# Runs the bare-metal tests under an emulator: tests/baremetal/run.sh qemu|vplat OUTDIR
#   qemu:  the qemu-virt build (OUTDIR from `build.sh qemu-virt OUTDIR`) under qemu-system-aarch64 ($QEMU)
#   vplat: the juno build (OUTDIR from `build.sh juno OUTDIR`) under vplat ($VPLAT, default build/vplat)
# Each test runs with a timeout and passes when its output has a `DONE <n> passed 0 failed` line with
# n > 0 and no FAIL line. Logs: OUTDIR/<test>-smp<N>.log.
# Exit status: 0 all passed, 1 a test failed, 77 the emulator is not installed (ctest SKIP_RETURN_CODE).
set -uo pipefail

if [ $# -ne 2 ] || { [ "$1" != qemu ] && [ "$1" != vplat ]; }; then
  echo "usage: $0 qemu|vplat OUTDIR" >&2
  exit 2
fi
emulator=$1
out=$2
qemu=${QEMU:-qemu-system-aarch64}
vplat=${VPLAT:-build/vplat}
timeout_s=${BAREMETAL_TIMEOUT:-60}
if [ "$emulator" = qemu ] && ! command -v "$qemu" >/dev/null; then
  echo "run.sh: $qemu not found (apt-get install qemu-system-arm); skipping" >&2
  exit 77
fi
if [ "$emulator" = vplat ] && [ ! -x "$vplat" ]; then
  echo "run.sh: $vplat not found (build vplat first)" >&2
  exit 2
fi

# test:cpus pairs. The SMP test needs secondaries; 4 CPUs also exercises the broadcast SGI filter.
runs=(exceptions:1 mmu:1 timer:1 smp:2 smp:4)
failed=0
for r in "${runs[@]}"; do
  t=${r%%:*}
  n=${r##*:}
  bin="$out/$t.bin"
  log="$out/$t-smp$n.log"
  if [ ! -f "$bin" ]; then
    echo "FAIL $t (-smp $n): $bin missing (run build.sh qemu-virt $out)"
    failed=1
    continue
  fi
  if [ "$emulator" = qemu ]; then
    # -nic none: no default NIC (its option ROM is not needed). virt without virtualization/secure starts
    # the kernel at EL1 and answers PSCI on HVC.
    timeout "$timeout_s" "$qemu" -M virt,gic-version=2 -cpu cortex-a57 -m 256M -smp "$n" -nographic -nic none \
      -no-reboot -kernel "$bin" </dev/null >"$log" 2>&1
  else
    timeout "$timeout_s" "$vplat" --platform juno --smp "$n" --memory 256M --kernel "$bin" </dev/null >"$log" 2>&1
  fi
  rc=$?
  tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"
  done_line=$(grep -E '^DONE [0-9]+ passed [0-9]+ failed$' "$log" | tail -n 1)
  if [ $rc -eq 124 ]; then
    echo "FAIL $t (-smp $n): timed out after ${timeout_s}s; last line: $(grep -v "^qemu-system" "$log" | tail -n 1)"
    failed=1
  elif grep -q '^FAIL' "$log" || ! [[ "$done_line" =~ ^DONE\ ([1-9][0-9]*)\ passed\ 0\ failed$ ]]; then
    echo "FAIL $t (-smp $n): $emulator status $rc, ${done_line:-no DONE line}"
    grep '^FAIL' "$log" | sed 's/^/    /'
    failed=1
  else
    echo "ok   $t (-smp $n): $done_line"
  fi
done
exit $failed
