#!/usr/bin/env bash
# Warm code that is too large for the host's caches, as in a boot: a bare A64 kernel of FUNCS small functions
# (three instructions each, 64 bytes apart) called in turn ROUNDS times from one long run of BLs, run by
# `a64-run --engine auto` with LLVM's tiers off (VPLAT_JIT_COMPILE=0), so every block runs pre-decoded (or as
# baseline code, past the first tier's threshold). Prints guest instructions and the median MIPS of 3 runs;
# with CALLGRIND=1 instead, host instructions and cache misses under callgrind's cache model (32 KiB D1, a
# 1 MiB last level: deterministic, for comparing builds) in total and in the run loop's two functions.
#   bench/cold-code.sh [BUILD_DIR]      FUNCS (default 8192), ROUNDS (default 1000; 300 with CALLGRIND=1)
set -euo pipefail
build=${1:-build}
run=$build/bench/a64-run
[ -x "$run" ] || { echo "cold-code: $run not built (run make build)" >&2; exit 2; }
funcs=${FUNCS:-8192}
rounds=${ROUNDS:-$([ "${CALLGRIND:-0}" = 1 ] && echo 300 || echo 1000)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$funcs" "$rounds" >"$tmp/cold.s" <<'EOF'
import sys
funcs, rounds = int(sys.argv[1]), int(sys.argv[2])
print(".text\n_entry:\n mov sp, #0x3f00000\n ldr x20, =%d\nround:" % rounds)
for i in range(funcs):
    print(" bl f%d" % i)
print(" subs x20, x20, #1\n b.ne round\n brk #0\n .ltorg\n .balign 64")
for i in range(funcs):
    print("f%d:\n add x0, x0, #%d\n eor x1, x1, x0\n ret\n .balign 64" % (i, i % 4096))
EOF
llvm-mc-16 -triple=aarch64 -filetype=obj -o "$tmp/cold.o" "$tmp/cold.s"
llvm-objcopy-16 -O binary -j .text "$tmp/cold.o" "$tmp/cold.bin"
export VPLAT_JIT_COMPILE=0
if [ "${CALLGRIND:-0}" = 1 ]; then
  command -v valgrind >/dev/null || { echo "cold-code: valgrind is not installed" >&2; exit 2; }
  valgrind --tool=callgrind --cache-sim=yes --LL=1048576,16,64 --callgrind-out-file="$tmp/cg.out" \
    "$run" --engine auto "$tmp/cold.bin" >/dev/null 2>&1
  printf '%-28s %15s %12s %12s\n' where host-insns D1-read-miss LL-read-miss
  callgrind_annotate --show=Ir,D1mr,DLmr --auto=no "$tmp/cg.out" 2>/dev/null |
    awk '/PROGRAM TOTALS/ {printf "%-28s %15s %12s %12s\n", "total", $1, $3, $5}
         /JitEngine::try_run\(/ && !t++ {printf "%-28s %15s %12s %12s\n", "JitEngine::try_run", $1, $3, $5}
         /Core::run_predecoded\(/ && !p++ {printf "%-28s %15s %12s %12s\n", "Core::run_predecoded", $1, $3, $5}'
  exit 0
fi
mips=()
n=0
for i in 1 2 3; do
  out=$("$run" --engine auto "$tmp/cold.bin" 2>&1)
  n=$(awk '{print $2}' <<<"$out")
  mips+=("$(awk '{print $6}' <<<"$out")")
done
printf 'cold-code: %d functions x %d rounds: %s instructions, median %s MIPS (runs: %s)\n' "$funcs" "$rounds" \
  "$n" "$(printf '%s\n' "${mips[@]}" | sort -g | sed -n 2p)" "${mips[*]}"
