#!/usr/bin/env bash
# Builds every bare-metal test for one platform: tests/baremetal/build.sh PLATFORM OUTDIR
# PLATFORM is a header in platform/ (juno, qemu-virt). Produces OUTDIR/<test>.bin (a raw arm64 Image,
# loadable with QEMU's -kernel or vplat --kernel) and OUTDIR/<test>.elf (symbols, for debugging).
# The cross compiler is ${CROSS_COMPILE}gcc, default aarch64-linux-gnu-gcc.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 PLATFORM OUTDIR   (PLATFORM: juno | qemu-virt)" >&2
  exit 2
fi
platform=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
header="$here/platform/$platform.h"
if [ ! -f "$header" ]; then
  echo "build.sh: unknown platform '$platform' (no $header)" >&2
  exit 2
fi
cross=${CROSS_COMPILE:-aarch64-linux-gnu-}
cc=${cross}gcc
objcopy=${cross}objcopy
if ! command -v "$cc" >/dev/null; then
  echo "build.sh: $cc not found (apt-get install gcc-aarch64-linux-gnu)" >&2
  exit 3
fi
mkdir -p "$out"

# -mgeneral-regs-only: no FP/SIMD in compiler output (exception frames save integer registers only).
# -mstrict-align: with the MMU off all data accesses are Device memory, where unaligned accesses fault.
cflags=(-std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-builtin -nostdlib -nostartfiles
        -fno-pie -no-pie -fno-stack-protector -fno-asynchronous-unwind-tables -mgeneral-regs-only
        -mstrict-align -march=armv8-a -I"$here/common" -include "$header")
ldflags=(-static -Wl,--build-id=none -Wl,-T,"$out/link.ld" -Wl,--no-warn-rwx-segments)

"$cc" -E -P -x c -include "$header" "$here/common/link.ld.S" -o "$out/link.ld"

common=("$here/common/start.S" "$here/common/stubs.S" "$here/common/lib.c" "$here/common/mmu.c"
        "$here/common/expect.c")
for t in exceptions mmu timer smp; do
  "$cc" "${cflags[@]}" "${common[@]}" "$here/$t.c" "${ldflags[@]}" -lgcc -o "$out/$t.elf"
  "$objcopy" -O binary "$out/$t.elf" "$out/$t.bin"
done
echo "build.sh: $platform tests in $out: exceptions mmu timer smp"
