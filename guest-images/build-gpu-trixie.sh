#!/usr/bin/env bash
# Builds the OpenCL GPU guest: Debian trixie's unmodified Mesa 25 with Rusticl (mesa-opencl-icd, enabled for
# panfrost with RUSTICL_ENABLE=panfrost) on a virtio-blk ext4 disk, plus our workloads in both versions (GLES
# wl-NAME and OpenCL wlcl-NAME), booted through trixie's 6.12 kernel and the small initramfs that loads the GPU
# and disk modules. The assembly follows the bookworm Mesa builder (build-gpu.sh): build-default.sh makes the
# kernel and initramfs, apt's resolver gives the Depends closure, the closure and our programs go on an ext4 disk.
#
#   build-gpu-trixie.sh [--size MiB] [--update] [OUTDIR]          (OUTDIR: build/guest-gpu-trixie)
#
# Outputs: OUTDIR/Image, OUTDIR/initramfs.cpio.gz, OUTDIR/disk.img (ext4, label vplat-gpu-cl), OUTDIR/manifest.txt.
# Boot: vplat --kernel OUTDIR/Image --initrd OUTDIR/initramfs.cpio.gz --disk OUTDIR/disk.img
#             --append 'console=ttyAMA0 vplat.root=/dev/vda vplat.cmd="vplat-gpu-suite --api cl"'
# /etc/profile.d/rusticl.sh sets RUSTICL_ENABLE=panfrost for shells; vplat-gpu-suite --api cl sets it too.
# Mesa's docs do not list the Mali-G71 as supported and say panfrost has no OpenCL yet; whether Rusticl's
# requirements are met on Bifrost v6 is worked through in guest-images/workloads/README.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

gpu_disk_args 15 "$repo/build/guest-gpu-trixie" "$@"
SUITE=trixie
need_tools mke2fs dpkg-deb apt-cache aarch64-linux-gnu-gcc readelf

# The run-time GPU stack: Rusticl (mesa-opencl-icd: libRusticlOpenCL.so and its ICD file, which pull in LLVM 19,
# libclang-cpp19 and libclc-19 for compiling OpenCL C in the guest), the ICD loader, clinfo to list platforms,
# and the EGL/GLES packages the GLES versions of the workloads need.
MESA_PACKAGES=(mesa-opencl-icd ocl-icd-libopencl1 clinfo libgl1-mesa-dri libegl1 libegl-mesa0 libgles2 libgbm1 libdrm2)

upd=(); [ "$UPDATE" = 0 ] || upd=(--update)
"$here/build-default.sh" --suite "$SUITE" --with-gpu --with-virtio "${upd[@]}" "$OUTDIR"

apt_setup "$SUITE" 0
work=$(mktemp -d "${TMPDIR:-/tmp}/vplat-gpu-trixie.XXXXXX")
trap 'rm -rf "$work"' EXIT

apt_closure "${MESA_PACKAGES[@]/%/:arm64}"
specs=("${CLOSURE_SPECS[@]}")
apt_index "${specs[@]}"
log "Mesa + Rusticl closure: ${#specs[@]} packages"

tree=$work/rootfs
make_userland "$tree" "$work"
install -m 0755 "$here/rootfs/init" "$tree/init"
unpack_debs "$tree" "${specs[@]}"
# trixie is merged-/usr: its packages put the dynamic loader and libraries only under /usr/lib, and a trixie
# system reaches them through /lib -> usr/lib. Our userland has a real /lib (for /lib/modules), so link the two
# names the loader and programs use (PT_INTERP /lib/ld-linux-aarch64.so.1).
if [ -d "$tree/lib/aarch64-linux-gnu" ] && [ ! -L "$tree/lib/aarch64-linux-gnu" ]; then
  cp -a "$tree/lib/aarch64-linux-gnu/." "$tree/usr/lib/aarch64-linux-gnu/"
  rm -rf "$tree/lib/aarch64-linux-gnu"
fi
[ -e "$tree/lib/aarch64-linux-gnu" ] || ln -s ../usr/lib/aarch64-linux-gnu "$tree/lib/aarch64-linux-gnu"
[ -e "$tree/lib/ld-linux-aarch64.so.1" ] || ln -s ../usr/lib/ld-linux-aarch64.so.1 "$tree/lib/ld-linux-aarch64.so.1"
mesa_version=$(deb_field "${APT_INFO[mesa-opencl-icd:arm64]}" Version)
libdir=$tree/usr/lib/aarch64-linux-gnu
[ -f "$libdir/libRusticlOpenCL.so.1" ] || die "mesa-opencl-icd has no libRusticlOpenCL.so.1"
[ -f "$tree/etc/OpenCL/vendors/rusticl.icd" ] || die "mesa-opencl-icd has no /etc/OpenCL/vendors/rusticl.icd"
[ -f "$libdir/libOpenCL.so.1" ] || die "ocl-icd-libopencl1 has no libOpenCL.so.1"
[ -e "$tree/lib/ld-linux-aarch64.so.1" ] || die "libc6:arm64 has no ld-linux-aarch64.so.1"
# libclc's SPIR-V library is what Rusticl links every kernel against; without it no device is offered.
compgen -G "$tree/usr/lib/clc/spirv64-mesa3d-.spv" >/dev/null || compgen -G "$tree/usr/lib/clc/*/spirv64-mesa3d-.spv" \
  >/dev/null || log "warning: no spirv64-mesa3d-.spv from libclc in the tree (Rusticl will refuse the device)"
mkdir -p "$tree/etc/profile.d"
printf '# Rusticl offers no device unless its driver is named (Mesa 25: only asahi is on by default).\nexport RUSTICL_ENABLE=panfrost\n' \
  >"$tree/etc/profile.d/rusticl.sh"

# panfrost-smoke and the other guest-images/programs, static as in the initramfs.
kernel_package
build_guest_programs "$tree" "$work" "$here/programs"
programs_note=$GUEST_PROGRAMS

# The workloads, GLES and OpenCL, against trixie's own headers and libraries.
"$here/build-workloads.sh" --suite "$SUITE" --opencl "$work/workloads"
cp -a "$work/workloads/tree/." "$tree/"
workloads_note=$(grep -c '^bin ' "$work/workloads/manifest.txt")

krel=$(awk '$1 == "kernel-release:" { print $2 }' "$OUTDIR/manifest.txt")
printf 'vplat GPU OpenCL disk, suite %s, Mesa %s (Rusticl), kernel %s\n' "$SUITE" "$mesa_version" "$krel" \
  >"$tree/etc/vplat-disk-id"

write_ext4_disk "$tree" vplat-gpu-cl "$OUTDIR/disk.img"

{
  echo "# GPU OpenCL disk (guest-images/build-gpu-trixie.sh)"
  echo "disk-image: disk.img ext4 ${SIZE_MIB} MiB, label vplat-gpu-cl; boot with --disk and vplat.root=/dev/vda"
  echo "mesa: $mesa_version (${#specs[@]} packages: ${MESA_PACKAGES[*]} and their Depends closure)"
  echo "disk-programs: ${programs_note:-none}"
  echo "workload-binaries: $workloads_note (manifest of build-workloads.sh below)"
  sed 's/^/workloads: /' "$work/workloads/manifest.txt"
  manifest_debs_and_disk "$OUTDIR/disk.img"
} >>"$OUTDIR/manifest.txt"
log "disk: $OUTDIR/disk.img (${SIZE_MIB} MiB ext4, Mesa $mesa_version with Rusticl); boot with --disk and vplat.root=/dev/vda"
