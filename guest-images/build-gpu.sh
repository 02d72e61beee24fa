#!/usr/bin/env bash
# Builds the GPU guest: Debian's unmodified Mesa (bookworm, panfrost Gallium driver) on a virtio-blk ext4 disk,
# plus our GLES compute workloads, booted through the small initramfs that loads the GPU and disk modules.
#
#   build-gpu.sh [--size MiB] [--update] [OUTDIR]          (OUTDIR: build/guest-gpu)
#
# Outputs: OUTDIR/Image, OUTDIR/initramfs.cpio.gz (build-default.sh --with-gpu --with-virtio: /init loads
# panfrost and virtio_mmio/virtio_blk/ext4 at boot), OUTDIR/disk.img (ext4, label vplat-gpu: busybox userland,
# /init, the dependency closure of Mesa's EGL/GLES/GBM/DRI packages, panfrost-smoke, first-light and
# first-light-ext in /usr/bin, and the workload suite of workloads/suite.txt from build-workloads.sh's overlay:
# /usr/lib/vplat-workloads/wl-NAME and /usr/bin/vplat-gpu-suite), OUTDIR/manifest.txt.
# Boot the disk with: --disk OUTDIR/disk.img --append 'vplat.root=/dev/vda'.
# Without --disk the image is the plain GPU initramfs (the driver probes; panfrost-smoke runs).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

gpu_disk_args 13 "$repo/build/guest-gpu" "$@"
SUITE=bookworm
need_tools mke2fs dpkg-deb apt-cache aarch64-linux-gnu-gcc readelf

# The user-space GPU stack: the packages an EGL + GLES application on Mesa needs at run time. Their dependency
# closure (Depends and Pre-Depends, no Recommends) is what goes on the disk.
MESA_PACKAGES=(libgl1-mesa-dri libegl1 libegl-mesa0 libgles2 libgbm1 libdrm2)
# Headers and link-time .so names for cross-compiling the workloads (not copied to the disk); libgl-dev holds
# KHR/khrplatform.h, which the EGL and GLES headers include.
DEV_PACKAGES=(libc6-dev linux-libc-dev libegl-dev libgles-dev libgl-dev libgbm-dev libdrm-dev)
# guest-images/workloads/NAME.c -> /usr/bin/NAME on the disk: the standalone first-light checks. The benchmark
# suite is not listed here; it comes from build-workloads.sh, which reads workloads/suite.txt.
WORKLOADS=(first-light first-light-ext)
# workloads/*.c compiled into every workload (a shared harness), if any.
WORKLOAD_SHARED=()

upd=(); [ "$UPDATE" = 0 ] || upd=(--update)
"$here/build-default.sh" --with-gpu --with-virtio "${upd[@]}" "$OUTDIR"

apt_setup "$SUITE" 0
kernel_package
work=$(mktemp -d "${TMPDIR:-/tmp}/vplat-gpu.XXXXXX")
trap 'rm -rf "$work"' EXIT

apt_closure "${MESA_PACKAGES[@]/%/:arm64}"
specs=("${CLOSURE_SPECS[@]}")
dev_specs=()
for p in "${DEV_PACKAGES[@]}"; do dev_specs+=("$p:arm64"); done
apt_index "${specs[@]}" "${dev_specs[@]}"
log "Mesa closure: ${#specs[@]} packages"

tree=$work/rootfs
make_userland "$tree" "$work"
install -m 0755 "$here/rootfs/init" "$tree/init"
unpack_debs "$tree" "${specs[@]}"
mesa_version=$(deb_field "${APT_INFO[libgl1-mesa-dri:arm64]}" Version)
[ -f "$tree/usr/lib/aarch64-linux-gnu/dri/panfrost_dri.so" ] || die "libgl1-mesa-dri has no dri/panfrost_dri.so"
[ -e "$tree/lib/ld-linux-aarch64.so.1" ] || die "libc6:arm64 has no /lib/ld-linux-aarch64.so.1"

# Sysroot for compiling: the -dev packages (headers, lib*.so links) and the libraries those links point at
# (libc6, libegl1, libgles2, libgbm1); the linker finds what those in turn need in the disk tree.
sysroot=$work/mesa-sysroot
mkdir -p "$sysroot"
for s in libc6:arm64 libegl1:arm64 libgles2:arm64 libgbm1:arm64; do dpkg-deb -x "${DEB_OF[$s]}" "$sysroot"; done
for s in "${dev_specs[@]}"; do
  fetch_deb "$s"
  dpkg-deb -x "$DEB_PATH" "$sysroot"
done
libdirs=("$tree/lib/aarch64-linux-gnu" "$tree/usr/lib/aarch64-linux-gnu")

# panfrost-smoke and any other guest-images/programs/*.c, static as in the initramfs.
build_guest_programs "$tree" "$work" "$here/programs"
programs_note=$GUEST_PROGRAMS
WORKLOADS_NOTE=
for name in "${WORKLOADS[@]}"; do
  src=$here/workloads/$name.c
  [ -f "$src" ] || die "no workload source $src"
  out=$tree/usr/bin/$name
  shared=()
  for c in "${WORKLOAD_SHARED[@]}"; do shared+=("$here/workloads/$c"); done
  # Dynamic: EGL/GLES go through glvnd and Mesa's DRI driver, which dlopen their libraries at run time.
  aarch64-linux-gnu-gcc --sysroot="$sysroot" -std=gnu11 -O2 -Wall -Wextra -Werror -DEGL_NO_X11 \
    -I"$here/workloads" -o "$out" "$src" "${shared[@]}" -Wl,-rpath-link,"${libdirs[0]}" -Wl,-rpath-link,"${libdirs[1]}" \
    -lEGL -lGLESv2 -lgbm -lm || die "cross-compiling $src failed"
  aarch64-linux-gnu-strip "$out" 2>/dev/null || true
  chmod 0755 "$out"
  WORKLOADS_NOTE+="${WORKLOADS_NOTE:+; }$name $(stat -c %s "$out") $(sha256sum <"$out" | cut -d' ' -f1)"
done

# The workload suite: the same cross build and overlay the trixie image uses, so suite.txt stays the one list.
"$here/build-workloads.sh" --suite "$SUITE" "$work/workloads"
cp -a "$work/workloads/tree/." "$tree/"
[ -x "$tree/usr/bin/vplat-gpu-suite" ] || die "the workload overlay has no /usr/bin/vplat-gpu-suite"
suite_note=$(grep -c '^bin ' "$work/workloads/manifest.txt")

krel=$(awk '$1 == "kernel-release:" { print $2 }' "$OUTDIR/manifest.txt")
printf 'vplat GPU disk, suite %s, Mesa %s, kernel %s\n' "$SUITE" "$mesa_version" "$krel" >"$tree/etc/vplat-disk-id"

write_ext4_disk "$tree" vplat-gpu "$OUTDIR/disk.img"

{
  echo "# GPU disk (guest-images/build-gpu.sh)"
  echo "disk-image: disk.img ext4 ${SIZE_MIB} MiB, label vplat-gpu; boot with --disk and vplat.root=/dev/vda"
  echo "mesa: $mesa_version (${#specs[@]} packages: ${MESA_PACKAGES[*]} and their Depends closure)"
  echo "disk-programs: ${programs_note:-none}"
  echo "workloads: ${WORKLOADS_NOTE:-none}"
  echo "suite-binaries: $suite_note (manifest of build-workloads.sh below)"
  sed 's/^/suite: /' "$work/workloads/manifest.txt"
  manifest_debs_and_disk "$OUTDIR/disk.img"
} >>"$OUTDIR/manifest.txt"
log "disk: $OUTDIR/disk.img (${SIZE_MIB} MiB ext4, Mesa $mesa_version); boot with --disk and vplat.root=/dev/vda"
