#!/usr/bin/env bash
# vplat's command line: help and version succeed; every usage error is one line on stderr and exit status 2.
set -u
vplat=$1
pass=0 fail=0
check() { # name expected-status expected-stderr-lines args...
  local name=$1 want=$2 lines=$3
  shift 3
  local err rc
  err=$("$vplat" "$@" 2>&1 >/dev/null)
  rc=$?
  local n
  n=$(printf '%s' "$err" | grep -c '')
  if [ "$rc" -eq "$want" ] && { [ "$lines" = any ] || [ "$n" -eq "$lines" ]; }; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: exit $rc (want $want), stderr lines $n (want $lines): $err"
  fi
}
check help 0 0 --help
check version 0 0 --version
check unknown-option 2 1 --frobnicate
check missing-value 2 1 --kernel
check smp-zero 2 1 --smp 0
check smp-seven 2 1 --smp 7
check smp-text 2 1 --smp two
check memory-bad 2 1 --memory 12Q
check memory-small 2 1 --memory 1M
check platform-unknown 2 1 --platform vexpress
check gdb-port-bad 2 1 --gdb 70000
check gdb-wait-alone 2 1 --gdb-wait
check trace-unknown 2 1 --trace bogus
check trace-file-missing-value 2 1 --trace-file
check trace-two-files 2 1 --trace gpu-regs=/tmp/a --trace-file /tmp/b
check trace-empty-file 2 1 --trace gpu-regs=
check gpu-cores-zero 2 1 --gpu-cores 0
check gpu-cores-33 2 1 --gpu-cores 33
check gpu-cores-text 2 1 --gpu-cores eight
check gpu-cores-missing 2 1 --gpu-cores
check gpu-cores-and-no-gpu 2 1 --no-gpu --gpu-cores 4
check no-gpu-with-value 2 1 --no-gpu=yes
check gpu-threads-zero 2 1 --gpu-threads 0
check gpu-threads-65 2 1 --gpu-threads 65
check gpu-threads-text 2 1 --gpu-threads two
check gpu-threads-and-no-gpu 2 1 --no-gpu --gpu-threads 2
check gpu-timing-bad 2 1 --gpu-timing always
check gpu-timing-missing 2 1 --gpu-timing
check gpu-clock-zero 2 1 --gpu-clock 0
check cpu-mips-zero 2 1 --cpu-mips 0
check cpu-mips-not-multiple 2 1 --cpu-mips 1010
check cpu-mips-too-fast 2 1 --cpu-mips 2550
check cpu-mips-text 2 1 --cpu-mips fast
check gpu-clock-text 2 1 --gpu-clock fast
check gpu-timing-and-no-gpu 2 1 --no-gpu --gpu-timing on
check rng-seed-word 2 1 --rng-seed sometimes
check rng-seed-negative 2 1 --rng-seed -1
check rng-seed-65-bits 2 1 --rng-seed 18446744073709551616
check rng-seed-bare-hex 2 1 --rng-seed 0x
check rng-seed-missing 2 1 --rng-seed
check help-mentions-flags 0 0 --help
"$vplat" --help | grep -q -- '--platform' && "$vplat" --help | grep -q -- '--smp' &&
  "$vplat" --help | grep -q -- '--gpu-cores N' && "$vplat" --help | grep -q -- '--gpu-threads N' && "$vplat" --help | grep -q -- '--no-gpu' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL help text lacks flags"; }
"$vplat" --version | grep -qE '^vplat [0-9]+\.[0-9]+\.[0-9]+$' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL version format"; }
# --dump-dtb writes a blob that dtc (an independent parser) accepts without warnings.
dtb=$(mktemp)
if "$vplat" --smp 6 --memory 4G --append "console=ttyAMA0" --dump-dtb "$dtb" && [ -z "$(dtc -I dtb -O dts -o /dev/null "$dtb" 2>&1)" ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL dump-dtb: dtc rejected or warned about the generated tree"
fi
# The GPU node is there by default (its binding's compatible last) and gone with --no-gpu. dtc prints a
# string list as "a\0b" or "a", "b" depending on its version; both are accepted.
dts=$(mktemp)
if "$vplat" --gpu-cores 32 --dump-dtb "$dtb" && dtc -I dtb -O dts -o "$dts" "$dtb" 2>/dev/null &&
   grep -q 'gpu@2d000000 {' "$dts" && grep -qE 'compatible = "arm,juno-mali(\\0|", ")arm,mali-bifrost";' "$dts" &&
   grep -qE 'interrupt-names = "job(\\0|", ")mmu(\\0|", ")gpu";' "$dts"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL dump-dtb: no GPU node by default"
fi
if "$vplat" --no-gpu --dump-dtb "$dtb" && dtc -I dtb -O dts -o "$dts" "$dtb" 2>/dev/null &&
   ! grep -q 'gpu@' "$dts" && ! grep -q 'mali' "$dts"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL dump-dtb: --no-gpu left a GPU node"
fi
# /chosen/rng-seed: the same 32 bytes for the same number, other bytes for another number or for the host's
# entropy, none with --rng-seed none.
seed_of() { "$vplat" "$@" --dump-dtb "$dtb" && dtc -I dtb -O dts -o - "$dtb" 2>/dev/null | grep 'rng-seed = '; }
s0=$(seed_of) s0x=$(seed_of --rng-seed 0x0) s7=$(seed_of --rng-seed=7) sr=$(seed_of --rng-seed random)
if [ -n "$s0" ] && [ "$s0" = "$s0x" ] && [ "$(printf '%s' "$s0" | grep -o '0x' | wc -l)" -eq 8 ] &&
   [ -n "$s7" ] && [ "$s7" != "$s0" ] && [ -n "$sr" ] && [ "$sr" != "$s0" ] && [ -z "$(seed_of --rng-seed none)" ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL rng-seed in the dumped tree: '$s0' '$s0x' '$s7' '$sr'"
fi
rm -f "$dtb" "$dts"
check dump-dtb-unwritable 2 1 --dump-dtb /nonexistent/dir/x.dtb
check console-log-no-file 2 1 --console-log
check console-log-empty 2 1 --console-log=
check dump-shaders-no-dir 2 1 --dump-shaders
check stats-host-time-value 2 1 --stats-host-time=1
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
