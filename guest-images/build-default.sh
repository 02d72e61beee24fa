#!/usr/bin/env bash
# Builds the default vplat guest: Debian's arm64 kernel Image plus a busybox initramfs whose /init is
# guest-images/rootfs/init. See guest-images/README.md.
#
#   build-default.sh [--suite bookworm|trixie|...] [--with-virtio] [--with-gpu | --no-gpu] [--update] [OUTDIR]
#
# OUTDIR defaults to build/guest (build/guest-<suite> for a non-default suite), relative to the
# repository root. Outputs: OUTDIR/Image, OUTDIR/initramfs.cpio.gz, OUTDIR/manifest.txt.
# Every image carries Debian's panfrost module with its dependencies (loaded on request by vplat-gpu-load)
# and our GPU test program panfrost-smoke; --with-gpu has /init load the GPU modules at boot, --no-gpu leaves
# both out. --with-virtio bundles the disk-root modules, which /init loads at boot.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

SUITE=bookworm
WITH_VIRTIO=0
GPU=on-request # on-request | boot | none
UPDATE=0
OUTDIR=
# Modules (with their dependencies and softdeps) for a virtio-blk ext4 root: see vplat.root in init.
VIRTIO_MODULES=(virtio_mmio virtio_blk ext4)
# The Mali GPU's DRM driver; its dependencies (drm, drm_shmem_helper, gpu-sched, ...) and its softdep
# (governor_simpleondemand) come from modprobe --show-depends. fixed (reg-fixed-voltage) drives the GPU's supply
# (vplat's device tree gives the GPU a fixed regulator) and must be there before panfrost probes.
GPU_MODULES=(fixed panfrost)

usage() { sed -n '2,11s/^# \{0,1\}//p' "$0"; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
  case $1 in
    --suite) [ $# -ge 2 ] || die "--suite needs a value"; SUITE=$2; shift 2 ;;
    --suite=*) SUITE=${1#*=}; shift ;;
    --with-virtio) WITH_VIRTIO=1; shift ;;
    --with-gpu) GPU=boot; shift ;;
    --no-gpu) GPU=none; shift ;;
    --update) UPDATE=1; shift ;;
    -h|--help) usage 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$OUTDIR" ] || die "only one OUTDIR may be given"; OUTDIR=$1; shift ;;
  esac
done
if [ -z "$OUTDIR" ]; then
  OUTDIR=$repo/build/guest
  [ "$SUITE" = bookworm ] || OUTDIR=$OUTDIR-$SUITE
fi
[[ $SUITE =~ ^[a-z][a-z0-9-]*$ ]] || die "bad suite name '$SUITE'"

need_tools apt-get apt-cache dpkg dpkg-deb cpio gzip sha256sum find awk

apt_setup "$SUITE" "$UPDATE"
log "suite $SUITE (apt: $APT_MODE, mirror $MIRROR)"

apt_index linux-image-arm64:arm64 busybox-static:arm64 busybox-static:amd64
kernel_package
fetch_deb "$KPKG:arm64"; kernel_deb=$DEB_PATH

work=$(mktemp -d "${TMPDIR:-/tmp}/vplat-guest.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The Image, its release name and each resolved module set are kept next to the .deb cache, so that rebuilds
# skip unpacking the 60-90 MB kernel package.
kcache=$VPLAT_CACHE/kernels/${kernel_deb##*/}
kcache=${kcache%.deb}
kernel_unpacked=
unpack_kernel() {
  [ -z "$kernel_unpacked" ] || return 0
  log "unpacking $KPKG"
  dpkg-deb -x "$kernel_deb" "$work/kernel"
  kernel_unpacked=1
}
if [ ! -f "$kcache/Image" ] || [ ! -s "$kcache/release" ]; then
  unpack_kernel
  vmlinuz=$(find "$work/kernel/boot" -maxdepth 1 -name 'vmlinuz-*' -print -quit)
  [ -n "$vmlinuz" ] || die "$KPKG contains no /boot/vmlinuz-*"
  mkdir -p "$kcache"
  cp "$vmlinuz" "$kcache/Image.tmp" && mv "$kcache/Image.tmp" "$kcache/Image"
  printf '%s\n' "${vmlinuz##*/vmlinuz-}" >"$kcache/release"
fi
KREL=$(cat "$kcache/release")
# An arm64 Image carries the magic "ARM\x64" at offset 0x38 (Documentation/arm64/booting.rst).
[ "$(dd if="$kcache/Image" bs=1 skip=56 count=4 2>/dev/null)" = "ARMd" ] ||
  die "the kernel of $KPKG is not a raw arm64 Image (no ARMd magic at 0x38)"

# module_set MODULE...: the modules with all their dependencies and softdeps, as .ko files plus an "order"
# file listing them in insmod order, in a cache directory (keyed by the release and the list); sets MODSET.
kbase=
module_set() {
  local key tmp
  key=$(printf '%s\n' "$KREL" "$@" | sha256sum | cut -c1-16)
  MODSET=$kcache/modules-$key
  [ -s "$MODSET/order" ] && return 0
  need_tools depmod modprobe
  unpack_kernel
  if [ -z "$kbase" ]; then
    # bookworm: /lib/modules; trixie (merged /usr): /usr/lib/modules. depmod/modprobe want BASE/lib/modules.
    local b
    for b in "$work/kernel" "$work/kernel/usr"; do [ -d "$b/lib/modules/$KREL" ] && { kbase=$b; break; }; done
    [ -n "$kbase" ] || die "no /lib/modules/$KREL or /usr/lib/modules/$KREL in $KPKG"
    depmod -b "$kbase" "$KREL" || die "depmod failed"
  fi
  log "resolving modules: $*"
  tmp=$MODSET.tmp.$$
  rm -rf "$tmp"
  mkdir -p "$tmp"
  local m ko base
  for m in "$@"; do
    # --show-depends prints "insmod PATH" in load order, softdeps included; "builtin NAME" if =y.
    modprobe -d "$kbase" -S "$KREL" --show-depends "$m" || die "module $m not found for $KREL"
  done | awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++' >"$work/modlist"
  : >"$tmp/order"
  while IFS= read -r ko; do
    base=${ko##*/}
    case $base in
      *.ko) cp "$ko" "$tmp/$base" ;;
      *.ko.xz) need_tools xz; xz -dc "$ko" >"$tmp/${base%.xz}"; base=${base%.xz} ;;
      *.ko.zst) need_tools zstd; zstd -qdc "$ko" >"$tmp/${base%.zst}"; base=${base%.zst} ;;
      *.ko.gz) gzip -dc "$ko" >"$tmp/${base%.gz}"; base=${base%.gz} ;;
      *) die "unexpected module file $ko" ;;
    esac
    printf '%s\n' "$base" >>"$tmp/order"
  done <"$work/modlist"
  # Another build (make -j) may have finished the same set meanwhile: keep whichever is complete.
  if [ -s "$MODSET/order" ]; then
    rm -rf "$tmp"
  else
    rm -rf "$MODSET"
    mv -T "$tmp" "$MODSET" 2>/dev/null || rm -rf "$tmp"
    [ -s "$MODSET/order" ] || die "could not store the module set in $MODSET"
  fi
}

tree=$work/rootfs
make_userland "$tree" "$work"
install -m 0755 "$here/rootfs/init" "$tree/init"

# /lib/modules/<release>/load-order: what /init loads at boot; gpu-load-order: what vplat-gpu-load loads.
dst=$tree/lib/modules/$KREL
boot_order=()
gpu_note=none
if [ "$WITH_VIRTIO" = 1 ]; then
  module_set "${VIRTIO_MODULES[@]}"
  mkdir -p "$dst"
  cp "$MODSET"/*.ko "$dst/"
  mapfile -t -O "${#boot_order[@]}" boot_order <"$MODSET/order"
fi
GUEST_PROGRAMS=
if [ "$GPU" != none ]; then
  module_set "${GPU_MODULES[@]}"
  mkdir -p "$dst"
  cp "$MODSET"/*.ko "$dst/"
  cp "$MODSET/order" "$dst/gpu-load-order"
  if [ "$GPU" = boot ]; then mapfile -t -O "${#boot_order[@]}" boot_order <"$MODSET/order"; fi
  gpu_note="$(tr '\n' ' ' <"$MODSET/order" | sed 's/ $//') (loaded: $GPU)"
  install -m 0755 "$here/rootfs/vplat-gpu-load" "$tree/usr/sbin/vplat-gpu-load"
  build_guest_programs "$tree" "$work" "$here/programs"
fi
modules_note=none
if [ ${#boot_order[@]} -gt 0 ]; then
  printf '%s\n' "${boot_order[@]}" | awk '!seen[$0]++' >"$dst/load-order"
  modules_note=$(tr '\n' ' ' <"$dst/load-order" | sed 's/ $//')
fi

mkdir -p "$OUTDIR"
install -m 0644 "$kcache/Image" "$OUTDIR/Image.tmp" && mv "$OUTDIR/Image.tmp" "$OUTDIR/Image"
write_cpio "$tree" "$OUTDIR/initramfs.cpio.gz"

{
  echo "# vplat guest image manifest (guest-images/build-default.sh)"
  echo "suite: $SUITE"
  echo "apt: $APT_MODE"
  echo "mirror: $MIRROR"
  printf '%s\n' "$APT_SOURCES" | sed 's/^/apt-source: /'
  echo "kernel-package: $KPKG (via linux-image-arm64 $KERNEL_META_VERSION)"
  echo "kernel-release: $KREL"
  echo "busybox-applets: $BUSYBOX_APPLETS"
  echo "initramfs-modules: $modules_note"
  echo "gpu-modules: $gpu_note"
  echo "guest-programs: ${GUEST_PROGRAMS:-none}"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# deb <package:arch> <version> <sha256 of .deb> <file in $DEB_CACHE>"
  for f in "${FETCHED[@]}"; do echo "deb $f"; done
  echo "# out <file> <bytes> <sha256>"
  for f in Image initramfs.cpio.gz; do
    echo "out $f $(stat -c %s "$OUTDIR/$f") $(sha256sum <"$OUTDIR/$f" | cut -d' ' -f1)"
  done
} >"$OUTDIR/manifest.txt"

log "kernel $KREL: $OUTDIR/Image ($(stat -c %s "$OUTDIR/Image") bytes)"
log "initramfs: $OUTDIR/initramfs.cpio.gz ($(stat -c %s "$OUTDIR/initramfs.cpio.gz") bytes, modules at boot: $modules_note; GPU modules: $gpu_note)"
