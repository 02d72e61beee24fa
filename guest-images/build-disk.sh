#!/usr/bin/env bash
# Builds a guest that boots its root file system from a virtio-blk disk:
# OUTDIR/Image and OUTDIR/initramfs.cpio.gz (build-default.sh --with-virtio: the initramfs carries
# virtio_mmio, virtio_blk, ext4 and their dependencies) plus OUTDIR/disk.img, an ext4 image made
# with mke2fs -d (no root, no loop mounts) holding the same busybox userland, the same /init and
# the marker program /usr/bin/vplat-disk-marker. Boot with: vplat.root=/dev/vda
#
#   build-disk.sh [--suite S] [--size MiB] [--update] [OUTDIR]     (OUTDIR: build/guest-disk)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

SUITE=bookworm
SIZE_MIB=32
UPDATE=0
OUTDIR=
while [ $# -gt 0 ]; do
  case $1 in
    --suite) [ $# -ge 2 ] || die "--suite needs a value"; SUITE=$2; shift 2 ;;
    --suite=*) SUITE=${1#*=}; shift ;;
    --size) [ $# -ge 2 ] || die "--size needs a value"; SIZE_MIB=$2; shift 2 ;;
    --update) UPDATE=1; shift ;;
    -h|--help) sed -n '2,8s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$OUTDIR" ] || die "only one OUTDIR may be given"; OUTDIR=$1; shift ;;
  esac
done
{ [[ $SIZE_MIB =~ ^[0-9]+$ ]] && [ "$SIZE_MIB" -ge 8 ]; } || die "--size must be a number of MiB >= 8"
if [ -z "$OUTDIR" ]; then
  OUTDIR=$repo/build/guest-disk
  [ "$SUITE" = bookworm ] || OUTDIR=$repo/build/guest-disk-$SUITE
fi
need_tools mke2fs dpkg-deb

upd=(); [ "$UPDATE" = 0 ] || upd=(--update)
# The disk root replaces the initramfs, so the initramfs's GPU driver and programs would be of no use there.
"$here/build-default.sh" --suite "$SUITE" --with-virtio --no-gpu "${upd[@]}" "$OUTDIR"

apt_setup "$SUITE" 0
work=$(mktemp -d "${TMPDIR:-/tmp}/vplat-disk.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$work/rootfs
make_userland "$tree" "$work"
install -m 0755 "$here/rootfs/init" "$tree/init"
ln -s /init "$tree/sbin/vplat-init"
install -m 0755 "$here/rootfs/vplat-disk-marker" "$tree/usr/bin/vplat-disk-marker"
krel=$(awk '$1 == "kernel-release:" { print $2 }' "$OUTDIR/manifest.txt")
printf 'vplat disk image, suite %s, kernel %s, built %s\n' "$SUITE" "$krel" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  >"$tree/etc/vplat-disk-id"

# Files are owned by whoever runs this (root on the build machines); mke2fs copies ownership.
write_ext4_disk "$tree" vplat-root "$OUTDIR/disk.img"
{
  echo "disk-image: disk.img ext4 ${SIZE_MIB} MiB, label vplat-root, same busybox + /init + /usr/bin/vplat-disk-marker"
  echo "out disk.img $(stat -c %s "$OUTDIR/disk.img") $(sha256sum <"$OUTDIR/disk.img" | cut -d' ' -f1)"
} >>"$OUTDIR/manifest.txt"
log "disk: $OUTDIR/disk.img (${SIZE_MIB} MiB ext4); boot with vplat.root=/dev/vda"
