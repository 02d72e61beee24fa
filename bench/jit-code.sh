#!/usr/bin/env bash
# Host instructions per guest instruction in translated code, deterministic (callgrind), for comparing builds:
#   bench/jit-code.sh [BUILD_DIR]
# Builds the C kernels in bench/jit-kernels (aarch64-linux-gnu-gcc -O2, bare: a64-run loads them at 0x10000)
# and runs each with `a64-run --engine jit` (the synchronous engine: every block compiled before it first runs)
# under callgrind to 20 M and to 40 M guest instructions; the host instructions in code without a symbol (the
# JIT's) in the second run minus the first, over 20 M, is the figure: start-up and compiling cancel out.
# Each kernel at the first tier (VPLAT_JIT_TIER2=0) and with every block at the second (VPLAT_JIT_TIER2=1).
# Environment: KERNELS (default "rc lz gz calls scan"), TIERS (default "1 2"), CFLAGS (more compiler options, e.g.
# -falign-functions=4096: every function on a page of its own, so that calls cross pages). ~3 min per kernel
# and tier.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-build}
run=$build/bench/a64-run
die() { echo "jit-code.sh: $*" >&2; exit 2; }
[ -x "$run" ] || die "$run not built (run 'make build')"
for t in aarch64-linux-gnu-gcc aarch64-linux-gnu-objcopy; do
  command -v "$t" >/dev/null || die "$t not found (Debian package gcc-aarch64-linux-gnu; scripts/install-deps.sh installs it)"
done
for t in valgrind callgrind_annotate; do
  command -v "$t" >/dev/null || die "$t not found (Debian package valgrind)"
done
kernels=${KERNELS:-rc lz gz calls scan}
tiers=${TIERS:-1 2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Host instructions in functions callgrind has no name or object for: the translated code.
jit_insns() {
  callgrind_annotate --threshold=100 "$1" 2>/dev/null | awk '/\[\?\?\?\]$/ { gsub(",", "", $1); s += $1 } END { print s + 0 }'
}

printf '%-6s %-5s %12s %s\n' kernel tier host/guest "x0 at the 40 M stop (the same in every build)"
for k in $kernels; do
  [ -f "$here/jit-kernels/$k.c" ] || die "no kernel $here/jit-kernels/$k.c"
  # shellcheck disable=SC2086 # CFLAGS: words
  aarch64-linux-gnu-gcc -O2 ${CFLAGS:-} -ffreestanding -fno-stack-protector -nostdlib -static -Wl,-Ttext=0x10000 \
    -o "$tmp/$k.elf" "$here/jit-kernels/start.s" "$here/jit-kernels/$k.c"
  aarch64-linux-gnu-objcopy -O binary "$tmp/$k.elf" "$tmp/$k.bin"
  for tier in $tiers; do
    [[ $tier =~ ^[12]$ ]] || die "TIERS takes 1 and 2, not '$tier'"
    declare -A n=()
    for insns in 20000000 40000000; do
      VPLAT_JIT_TIER2=$((tier - 1)) valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$insns" \
        "$run" --engine jit "$tmp/$k.bin" "$insns" >"$tmp/out.$insns" 2>"$tmp/err.$insns" ||
        die "$k at tier $tier: a64-run failed: $(tail -3 "$tmp/err.$insns")"
      n[$insns]=$(jit_insns "$tmp/cg.$insns")
    done
    x0=$(grep -o 'x0 .*' "$tmp/out.40000000" || echo "?")
    python3 -c "import sys; print('%-6s %-5s %12.3f %s' % (sys.argv[1], sys.argv[2], (int(sys.argv[4]) - int(sys.argv[3])) / 20e6, sys.argv[5]))" \
      "$k" "$tier" "${n[20000000]}" "${n[40000000]}" "$x0"
  done
done
