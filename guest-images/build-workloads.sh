#!/usr/bin/env bash
# Cross-builds the GPU workload suite (guest-images/workloads/) for the arm64 guest:
#
#   guest-images/build-workloads.sh [--suite SUITE] [--opencl] [OUTDIR]   (default OUTDIR: build/workloads-arm64)
#
# The programs link the guest's own EGL/GLES (Debian's libglvnd front ends, which load Mesa), so they are
# dynamic executables built with aarch64-linux-gnu-gcc against a sysroot unpacked from the suite's arm64 packages
# (libc6-dev, linux-libc-dev, libegl-dev, libgles-dev, libgl-dev for KHR/khrplatform.h, and the libraries those
# .so links point to: libc6, libegl1, libgles2, libglvnd0). Nothing is installed on the host; the .debs are
# cached in ~/.cache/vplat like the images' (lib.sh).
#
# --opencl also builds the OpenCL versions (wlcl-<name>, for every workload whose source carries its kernel in
# both languages) against the suite's ocl-icd-opencl-dev and opencl-c-headers; they need libOpenCL.so.1
# (ocl-icd-libopencl1) and an ICD (Mesa's mesa-opencl-icd, Rusticl) in the image.
#
# OUTDIR/tree is the overlay for a Mesa guest image (the image builder copies it into the root):
#   /usr/lib/vplat-workloads/wl-<name>   one program per workload of suite.txt
#   /usr/lib/vplat-workloads/wlcl-<name> (--opencl) its OpenCL version, where there is one
#   /usr/lib/vplat-workloads/suite.txt   the run order (with the guest-only arguments)
#   /usr/bin/vplat-gpu-suite             the runner (workloads/run-suite.sh), used by bench/gpu-suite.sh
# The image must also provide the run-time libraries (libc6, libegl1, libgles2, libglvnd0, libegl-mesa0,
# libgl1-mesa-dri and their closure). OUTDIR/manifest.txt lists the .debs used and each binary's sha256.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

SUITE=bookworm out='' opencl=0
while [ $# -gt 0 ]; do
  case $1 in
    --suite) SUITE=${2:?}; shift ;;
    --opencl) opencl=1 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    -*) die "unknown option '$1'" ;;
    *) [ -z "$out" ] || die "more than one OUTDIR"; out=$1 ;;
  esac
  shift
done
out=${out:-build/workloads-arm64}
src=$here/workloads
need_tools apt-get apt-cache dpkg-deb aarch64-linux-gnu-gcc readelf sha256sum

apt_setup "$SUITE" 0
PACKAGES=(libc6-dev libc6 libegl-dev libgles-dev libgl-dev libegl1 libgles2 libglvnd0)
[ "$opencl" = 0 ] || PACKAGES+=(ocl-icd-opencl-dev ocl-icd-libopencl1)
specs=()
for p in "${PACKAGES[@]}"; do specs+=("$p:arm64"); done
# The Khronos OpenCL headers are one Architecture: all package.
[ "$opencl" = 0 ] || specs+=(opencl-c-headers:all)
apt_index "${specs[@]}"
# trixie's linux-libc-dev is Architecture: all, bookworm's per architecture.
apt_index linux-libc-dev:arm64
libc_headers=linux-libc-dev:arm64
[ -n "${APT_INFO[$libc_headers]:-}" ] || libc_headers=linux-libc-dev:all
specs+=("$libc_headers")

work=$(mktemp -d "${TMPDIR:-/tmp}/vplat-wl.XXXXXX")
trap 'rm -rf "$work"' EXIT
sysroot=$work/sysroot
mkdir -p "$sysroot"
for s in "${specs[@]}"; do
  fetch_deb "$s"
  dpkg-deb -x "$DEB_PATH" "$sysroot"
done
# trixie's packages assume merged /usr: its libc's linker scripts name /lib/aarch64-linux-gnu/..., which exists
# only as the /lib -> usr/lib link that a trixie system has.
[ -e "$sysroot/lib" ] || ln -s usr/lib "$sysroot/lib"
headers=(EGL/egl.h GLES3/gl31.h KHR/khrplatform.h)
[ "$opencl" = 0 ] || headers+=(CL/cl.h)
for h in "${headers[@]}"; do
  [ -f "$sysroot/usr/include/$h" ] || die "the sysroot has no usr/include/$h"
done
libdir=$sysroot/usr/lib/aarch64-linux-gnu

rm -rf "$out/tree"
dest=$out/tree/usr/lib/vplat-workloads
mkdir -p "$dest" "$out/tree/usr/bin" "$work/obj"
cflags=(--sysroot="$sysroot" -std=gnu11 -O2 -Wall -Wextra -Werror -I"$src")
for c in wl_common workload; do
  aarch64-linux-gnu-gcc "${cflags[@]}" -c -o "$work/obj/$c.o" "$src/$c.c" || die "cross-compiling $c.c failed"
done
[ "$opencl" = 0 ] ||
  aarch64-linux-gnu-gcc "${cflags[@]}" -c -o "$work/obj/workload_cl.o" "$src/workload_cl.c" || die "cross-compiling workload_cl.c failed"
names=() cl_names=()
while read -r name _; do
  case $name in ''|'#'*) continue ;; esac
  [ -f "$src/$name.c" ] || die "suite.txt names $name but there is no $src/$name.c"
  # -rpath-link: libEGL.so.1 and libGLESv2.so.2 need libGLdispatch.so.0 at link time too.
  aarch64-linux-gnu-gcc "${cflags[@]}" -s -o "$dest/wl-$name" "$src/$name.c" "$work/obj/wl_common.o" "$work/obj/workload.o" \
    -L"$libdir" -Wl,-rpath-link="$libdir" -lEGL -lGLESv2 -lm || die "cross-compiling $name.c failed"
  names+=("$name")
  # The same source against the OpenCL back end, if it carries an OpenCL C kernel (as CMake decides).
  if [ "$opencl" = 1 ] && grep -q 'struct wl_kernel_src' "$src/$name.c"; then
    aarch64-linux-gnu-gcc "${cflags[@]}" -s -o "$dest/wlcl-$name" "$src/$name.c" "$work/obj/wl_common.o" \
      "$work/obj/workload_cl.o" -L"$libdir" -Wl,-rpath-link="$libdir" -lOpenCL -lm || die "cross-compiling $name.c for OpenCL failed"
    cl_names+=("$name")
  fi
done <"$src/suite.txt"
install -m 0644 "$src/suite.txt" "$dest/suite.txt"
install -m 0755 "$src/run-suite.sh" "$out/tree/usr/bin/vplat-gpu-suite"

# Every binary must be an AArch64 executable for the guest's dynamic loader, needing only the libraries the
# image is told to provide.
interp=$(readelf -l "$dest/wl-${names[0]}" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
[ "$interp" = /lib/ld-linux-aarch64.so.1 ] || die "unexpected program interpreter '$interp'"
bins=("${names[@]/#/wl-}")
[ ${#cl_names[@]} -eq 0 ] || bins+=("${cl_names[@]/#/wlcl-}")
needed=$(for b in "${bins[@]}"; do readelf -d "$dest/$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; done | sort -u | tr '\n' ' ')
for lib in $needed; do
  case $lib in libEGL.so.1|libGLESv2.so.2|libOpenCL.so.1|libm.so.6|libc.so.6|ld-linux-aarch64.so.1) ;; *) die "unexpected library dependency $lib" ;; esac
done

{
  echo "# vplat GPU workloads for arm64 (guest-images/build-workloads.sh), suite $SUITE"
  echo "needed: $needed"
  for f in "${FETCHED[@]}"; do echo "deb $f"; done
  for b in "${bins[@]}"; do echo "bin usr/lib/vplat-workloads/$b $(stat -c %s "$dest/$b") $(sha256sum <"$dest/$b" | cut -d' ' -f1)"; done
} >"$out/manifest.txt"
log "${#names[@]} workloads (${#cl_names[@]} with OpenCL versions) for arm64 in $dest (needs: $needed)"
