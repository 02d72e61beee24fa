#!/usr/bin/env bash
# Builds the bare-metal GPU test for vplat's juno platform: tests/gpu/baremetal/build.sh OUTDIR
# It uses the bare-metal harness of tests/baremetal (startup code, UART, GIC, PASS/FAIL lines) with the
# same flags as tests/baremetal/build.sh. The cross compiler is ${CROSS_COMPILE}gcc (aarch64-linux-gnu-).
set -euo pipefail
out=${1:?usage: build.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
bm=$(cd "$here/../../baremetal" && pwd)
header="$bm/platform/juno.h"
cross=${CROSS_COMPILE:-aarch64-linux-gnu-}
mkdir -p "$out"
cflags=(-std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-builtin -nostdlib -nostartfiles
        -fno-pie -no-pie -fno-stack-protector -fno-asynchronous-unwind-tables -mgeneral-regs-only
        -mstrict-align -march=armv8-a -I"$bm/common" -include "$header")
"${cross}gcc" -E -P -x c -include "$header" "$bm/common/link.ld.S" -o "$out/link.ld"
"${cross}gcc" "${cflags[@]}" "$bm/common/start.S" "$bm/common/stubs.S" "$bm/common/lib.c" "$bm/common/mmu.c" \
  "$bm/common/expect.c" "$here/gpu_jobs.c" -static -Wl,--build-id=none -Wl,-T,"$out/link.ld" \
  -Wl,--no-warn-rwx-segments -lgcc -o "$out/gpu_jobs.elf"
"${cross}objcopy" -O binary "$out/gpu_jobs.elf" "$out/gpu_jobs.bin"
