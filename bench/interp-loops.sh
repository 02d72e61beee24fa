#!/usr/bin/env bash
# Guest instructions per second on small loop kernels (informative), by default of the interpreter tier;
# ENGINE=jit or ENGINE=auto runs them with the JIT tier (cpu-dbt/a64_jit.h).
# Each kernel is assembled with LLVM's llvm-mc; the median of 3 runs is printed.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run=$build/bench/a64-run
[ -x "$run" ] || { echo "interp-loops: $run not built (run make build)" >&2; exit 2; }
printf '%-10s %14s %10s\n' kernel instructions MIPS
for s in "$here"/kernels/*.s; do
  k=$(basename "$s" .s)
  if ! llvm-mc-16 -triple=aarch64 -mattr=+v8a,+fp-armv8,+neon,+crc -filetype=obj -o "$tmp/$k.o" "$s" 2>"$tmp/err"; then
    echo "interp-loops: cannot assemble $k: $(head -1 "$tmp/err")" >&2; continue
  fi
  llvm-objcopy-16 -O binary -j .text "$tmp/$k.o" "$tmp/$k.bin"
  mips=()
  n=0
  for i in 1 2 3; do
    if ! out=$("$run" --engine "${ENGINE:-interp}" "$tmp/$k.bin" 2>&1); then
      echo "$k: $out"; continue 2
    fi
    n=$(awk '{print $2}' <<<"$out")
    mips+=("$(awk '{print $6}' <<<"$out")")
  done
  median=$(printf '%s\n' "${mips[@]}" | sort -g | sed -n 2p)
  printf '%-10s %14s %10s\n' "$k" "$n" "$median"
done
