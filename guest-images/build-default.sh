#!/usr/bin/env bash
# Builds the default vplat guest: Debian's arm64 kernel Image plus a busybox initramfs whose /init is
# guest-images/rootfs/init. See guest-images/README.md.
#
#   build-default.sh [--suite bookworm|trixie|...] [--with-virtio] [--with-gpu] [--update] [OUTDIR]
#
# OUTDIR defaults to build/guest (build/guest-<suite> for a non-default suite), relative to the
# repository root. Outputs: OUTDIR/Image, OUTDIR/initramfs.cpio.gz, OUTDIR/manifest.txt.
# --with-virtio / --with-gpu bundle kernel modules (disk root / panfrost) that /init loads at boot.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

SUITE=bookworm
WITH_VIRTIO=0
WITH_GPU=0
UPDATE=0
OUTDIR=
# Modules (with their dependencies and softdeps) for a virtio-blk ext4 root: see vplat.root in init.
VIRTIO_MODULES=(virtio_mmio virtio_blk ext4)
# The Mali GPU's DRM driver; its dependencies (drm, drm_shmem_helper, gpu-sched, ...) and its softdep
# (governor_simpleondemand) come from modprobe --show-depends. fixed (reg-fixed-voltage) drives the GPU's supply
# (vplat's device tree gives the GPU a fixed regulator) and must be there before panfrost probes.
GPU_MODULES=(fixed panfrost)

usage() { sed -n '2,8s/^# \{0,1\}//p' "$0"; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
  case $1 in
    --suite) [ $# -ge 2 ] || die "--suite needs a value"; SUITE=$2; shift 2 ;;
    --suite=*) SUITE=${1#*=}; shift ;;
    --with-virtio) WITH_VIRTIO=1; shift ;;
    --with-gpu) WITH_GPU=1; shift ;;
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
MODULES=()
[ "$WITH_VIRTIO" = 0 ] || MODULES+=("${VIRTIO_MODULES[@]}")
[ "$WITH_GPU" = 0 ] || MODULES+=("${GPU_MODULES[@]}")
[ ${#MODULES[@]} -eq 0 ] || need_tools depmod modprobe

apt_setup "$SUITE" "$UPDATE"
log "suite $SUITE (apt: $APT_MODE, mirror $MIRROR)"

apt_index linux-image-arm64:arm64 busybox-static:arm64 busybox-static:amd64
kernel_package
fetch_deb "$KPKG:arm64"; kernel_deb=$DEB_PATH

work=$(mktemp -d "${TMPDIR:-/tmp}/vplat-guest.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The Image (and its release name) is kept next to the .deb cache so that rebuilds without modules
# skip unpacking the 60 MB kernel package; bundling modules needs the module tree, so it always unpacks.
kcache=$VPLAT_CACHE/kernels/${kernel_deb##*/}
kcache=${kcache%.deb}
if [ ${#MODULES[@]} -gt 0 ] || [ ! -f "$kcache/Image" ] || [ ! -s "$kcache/release" ]; then
  log "unpacking $KPKG"
  dpkg-deb -x "$kernel_deb" "$work/kernel"
  vmlinuz=$(find "$work/kernel/boot" -maxdepth 1 -name 'vmlinuz-*' | head -n1)
  [ -n "$vmlinuz" ] || die "$KPKG contains no /boot/vmlinuz-*"
  mkdir -p "$kcache"
  cp "$vmlinuz" "$kcache/Image.tmp" && mv "$kcache/Image.tmp" "$kcache/Image"
  printf '%s\n' "${vmlinuz##*/vmlinuz-}" >"$kcache/release"
fi
KREL=$(cat "$kcache/release")
# An arm64 Image carries the magic "ARM\x64" at offset 0x38 (Documentation/arm64/booting.rst).
[ "$(dd if="$kcache/Image" bs=1 skip=56 count=4 2>/dev/null)" = "ARMd" ] ||
  die "the kernel of $KPKG is not a raw arm64 Image (no ARMd magic at 0x38)"

tree=$work/rootfs
make_userland "$tree" "$work"
install -m 0755 "$here/rootfs/init" "$tree/init"

modules_note=none
if [ ${#MODULES[@]} -gt 0 ]; then
  # bookworm: /lib/modules; trixie (merged /usr): /usr/lib/modules. depmod/modprobe want BASE/lib/modules.
  kbase=
  for b in "$work/kernel" "$work/kernel/usr"; do [ -d "$b/lib/modules/$KREL" ] && { kbase=$b; break; }; done
  [ -n "$kbase" ] || die "no /lib/modules/$KREL or /usr/lib/modules/$KREL in $KPKG"
  log "resolving modules: ${MODULES[*]}"
  depmod -b "$kbase" "$KREL" || die "depmod failed"
  dst=$tree/lib/modules/$KREL
  mkdir -p "$dst"
  : >"$dst/load-order"
  for m in "${MODULES[@]}"; do
    # --show-depends prints "insmod PATH" in load order, softdeps included; "builtin NAME" if =y.
    modprobe -d "$kbase" -S "$KREL" --show-depends "$m" || die "module $m not found for $KREL"
  done | awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++' >"$work/modlist"
  while IFS= read -r ko; do
    base=${ko##*/}
    case $base in
      *.ko) cp "$ko" "$dst/$base" ;;
      *.ko.xz) need_tools xz; xz -dc "$ko" >"$dst/${base%.xz}"; base=${base%.xz} ;;
      *.ko.zst) need_tools zstd; zstd -qdc "$ko" >"$dst/${base%.zst}"; base=${base%.zst} ;;
      *.ko.gz) gzip -dc "$ko" >"$dst/${base%.gz}"; base=${base%.gz} ;;
      *) die "unexpected module file $ko" ;;
    esac
    printf '%s\n' "$base" >>"$dst/load-order"
  done <"$work/modlist"
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
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# deb <package:arch> <version> <sha256 of .deb> <file in $DEB_CACHE>"
  for f in "${FETCHED[@]}"; do echo "deb $f"; done
  echo "# out <file> <bytes> <sha256>"
  for f in Image initramfs.cpio.gz; do
    echo "out $f $(stat -c %s "$OUTDIR/$f") $(sha256sum <"$OUTDIR/$f" | cut -d' ' -f1)"
  done
} >"$OUTDIR/manifest.txt"

log "kernel $KREL: $OUTDIR/Image ($(stat -c %s "$OUTDIR/Image") bytes)"
log "initramfs: $OUTDIR/initramfs.cpio.gz ($(stat -c %s "$OUTDIR/initramfs.cpio.gz") bytes, modules: $modules_note)"
