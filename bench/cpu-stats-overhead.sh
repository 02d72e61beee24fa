#!/usr/bin/env bash
# Cost of --cpu-stats (the A64 instruction histogram; informative) on the loop kernels of interp-loops.sh, run by
# a64-run with and without --cpu-stats in each engine. The interpreter counts one increment per instruction; the
# JIT tiers one per run of a translated block (plus a call on the rare exits before a block's end). The kernels'
# loops are blocks of 4 to 6 instructions, so this is close to the worst case for the per-block counter.
#  1. Host instructions executed (valgrind's callgrind, when installed and CALLGRIND is not 0; deterministic
#     whatever the load), engine jit, the intloop kernel.
#  2. Host CPU seconds (user + system), runs alternating off/on so that load changes hit both sides alike;
#     medians of RUNS runs each. ENGINES (default "interp jit auto") picks the engines. BASE_BUILD=DIR adds a
#     third side, DIR's a64-run without the option (a build without this counting: the cost with it off).
set -euo pipefail
build=${1:-build}
runs=${RUNS:-5}
insns=${INSNS:-50000000}          # guest instructions per run (the kernels loop far longer)
cg_insns=${CG_INSNS:-10000000}     # under callgrind
here=$(cd "$(dirname "$0")" && pwd)
run=$build/bench/a64-run
[ -x "$run" ] || { echo "cpu-stats-overhead: $run not built (run make build)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at start"
for s in "$here"/kernels/*.s; do
  k=$(basename "$s" .s)
  llvm-mc-16 -triple=aarch64 -mattr=+v8a,+fp-armv8,+neon,+crc -filetype=obj -o "$tmp/$k.o" "$s"
  llvm-objcopy-16 -O binary -j .text "$tmp/$k.o" "$tmp/$k.bin"
done

if [ "${CALLGRIND:-1}" = 0 ]; then
  echo "(CALLGRIND=0: no host instruction counts)"
elif command -v valgrind >/dev/null; then
  echo "host instructions (callgrind; engine jit, intloop, $cg_insns guest instructions):"
  irefs() { valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$run" --engine jit "$@" "$tmp/intloop.bin" "$cg_insns" 2>&1 \
              >/dev/null | awk '/Collected/ { print $NF }'; }
  a=$(irefs)
  b=$(irefs --cpu-stats)
  awk -v a="$a" -v b="$b" 'BEGIN { printf "  %16s %16s %10s\n  %16d %16d %9.2f%%\n", "stats off", "stats on", "overhead", a, b, 100 * (b - a) / a }'
else
  echo "(valgrind not installed: no host instruction counts)"
fi

echo "host CPU seconds ($insns guest instructions per run; median of $runs runs each):"
base=${BASE_BUILD:+$BASE_BUILD/bench/a64-run}
printf '  %-8s %-7s %10s %10s %10s' kernel engine 'stats off' 'stats on' overhead
[ -n "$base" ] && printf ' %10s %10s' 'base' 'off/base'
printf '\n'
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# A base build's a64-run ends with status 1 at MAX_INSTRUCTIONS (no BRK reached): its time still counts.
cpu() { /usr/bin/time -f '%U %S' -o "$tmp/t" "$@" >/dev/null 2>&1 || true; awk '{ print $1 + $2 }' "$tmp/t" | tail -1; }
for s in "$here"/kernels/*.s; do
  k=$(basename "$s" .s)
  for e in ${ENGINES:-interp jit auto}; do
    off=() on=() ref=()
    for ((i = 0; i < runs; i++)); do
      off+=("$(cpu "$run" --engine "$e" "$tmp/$k.bin" "$insns")")
      on+=("$(cpu "$run" --engine "$e" --cpu-stats "$tmp/$k.bin" "$insns")")
      [ -n "$base" ] && ref+=("$(cpu "$base" --engine "$e" "$tmp/$k.bin" "$insns")")
    done
    a=$(printf '%s\n' "${off[@]}" | median)
    b=$(printf '%s\n' "${on[@]}" | median)
    awk -v k="$k" -v e="$e" -v a="$a" -v b="$b" \
      'BEGIN { printf "  %-8s %-7s %10.2f %10.2f %9.1f%%", k, e, a, b, (a > 0 ? 100 * (b - a) / a : 0) }'
    if [ -n "$base" ]; then
      c=$(printf '%s\n' "${ref[@]}" | median)
      awk -v a="$a" -v c="$c" 'BEGIN { printf " %10.2f %9.1f%%", c, (c > 0 ? 100 * (a - c) / c : 0) }'
    fi
    printf '\n'
  done
done
