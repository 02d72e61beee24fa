#!/usr/bin/env bash
# Installs vplat's build and test dependencies from Debian 12's archive.
# Idempotent: packages already present are not fetched again, and apt's index is refreshed
# only when something is missing.
set -euo pipefail

# LLVM 16 is the newest LLVM that Debian 12 (bookworm) ships; its ORC JIT (LLJIT, lazy
# reexports, concurrent compilation) is what the DBT tier uses, and its MC disassembler
# is the reference for the decoder differential tests.
packages=(
  build-essential cmake ninja-build ccache pkg-config
  llvm-16-dev libcapstone-dev libunicorn-dev libfdt-dev libsdl2-dev zlib1g-dev device-tree-compiler
  # The baseline tier's stencils (cpu-dbt/baseline.h) are compiled by clang ([[clang::musttail]]) to LLVM IR
  # that LLVM 16's llc makes objects of; python3 turns those into tables (cpu-dbt/stencils/stencils.py).
  clang-16 python3
  # vplat's malloc (optional in the build; see CMakeLists.txt): the JIT's compile thread allocates heavily.
  libmimalloc-dev
  libgtest-dev googletest
  # Guest images (guest-images/): unpacking Debian arm64 packages, initramfs, ext4 disk, module
  # dependencies, and QEMU as the independent reference emulator for test-qemu.sh.
  cpio e2fsprogs kmod xz-utils qemu-system-arm
  # GDB stub end-to-end test (tests/platforms/gdbstub_test.sh): a GDB that debugs AArch64 targets.
  gdb-multiarch
  # Bare-metal guest tests (tests/baremetal/): cross compiler for our own EL1 test programs.
  gcc-aarch64-linux-gnu
  # GPU workload suite (guest-images/workloads/): EGL/GLES headers for the host build, and Mesa's EGL with its
  # software rasterizer (llvmpipe) so that the host tests run the workloads without a GPU.
  libegl-dev libgles-dev libegl-mesa0 libgl1-mesa-dri
  # Their OpenCL versions: the Khronos headers and ICD loader for the host build, and PoCL's CPU device to run
  # the host tests on.
  opencl-c-headers ocl-icd-opencl-dev pocl-opencl-icd
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'install ok installed' >/dev/null; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}; run as root or install them with apt-get" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
