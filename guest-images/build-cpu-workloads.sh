#!/usr/bin/env bash
# Builds the CPU-workload guest variant used by bench/cpu-workloads.sh:
#
#   build-cpu-workloads.sh BASE_DIR OUTDIR
#
# BASE_DIR holds a default image (Image, initramfs.cpio.gz from build-default.sh, bookworm). OUTDIR gets the
# same Image and an initramfs that is the base archive followed by a second, uncompressed newc archive (the
# kernel unpacks concatenated archives in order) with:
#   /opt/deb/bin/{sha256sum,gzip,bzip2,xz,zstd}   Debian arm64 binaries, unmodified
#   /lib/ld-linux-aarch64.so.1, /lib/aarch64-linux-gnu/*.so*   the shared libraries they need (ELF DT_NEEDED closure)
#   /opt/cpu-input                                 20 MiB deterministic input (bench/cpu-input.py, fixed seed)
#   /usr/bin/vplat-cpu-workloads                   the guest script (bench/cpu-workloads-guest.sh)
# The Debian binaries live under /opt/deb so they do not replace busybox's applets of the same names.
# OUTDIR/manifest.txt lists the .debs (version, sha256) and the input's sha256.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

[ $# -eq 2 ] || die "usage: build-cpu-workloads.sh BASE_DIR OUTDIR"
base=$1 out=$2
for f in Image initramfs.cpio.gz; do [ -f "$base/$f" ] || die "no $base/$f (run 'make image')"; done
need_tools apt-get apt-cache dpkg-deb cpio readelf python3 sha256sum

# Binaries and the packages that hold them or the libraries they link (checked below by the DT_NEEDED closure).
PACKAGES=(coreutils gzip bzip2 xz-utils zstd libc6 libacl1 libattr1 libgmp10 libselinux1 libpcre2-8-0
          libbz2-1.0 liblzma5 libzstd1 liblz4-1 zlib1g)
BINARIES=(usr/bin/sha256sum bin/gzip bin/bzip2 usr/bin/xz usr/bin/zstd)

apt_setup bookworm 0
specs=()
for p in "${PACKAGES[@]}"; do specs+=("$p:arm64"); done
apt_index "${specs[@]}"

work=$(mktemp -d "${TMPDIR:-/tmp}/vplat-cpu.XXXXXX")
trap 'rm -rf "$work"' EXIT
for s in "${specs[@]}"; do
  fetch_deb "$s"
  dpkg-deb -x "$DEB_PATH" "$work/debs"
done

tree=$work/tree
mkdir -p "$tree/opt/deb/bin" "$tree/lib/aarch64-linux-gnu" "$tree/usr/bin"
for b in "${BINARIES[@]}"; do
  # bookworm is not merged-/usr inside the .debs: a binary may be under bin/ or usr/bin/.
  src=$work/debs/$b
  [ -f "$src" ] || src=$work/debs/usr/$b
  [ -f "$src" ] || die "no $b in the unpacked packages"
  install -m 0755 "$src" "$tree/opt/deb/bin/${b##*/}"
done

# Library closure: every DT_NEEDED name must resolve to a file in the unpacked packages' lib dirs.
libdirs=("$work/debs/lib/aarch64-linux-gnu" "$work/debs/usr/lib/aarch64-linux-gnu")
find_lib() {
  local d
  for d in "${libdirs[@]}"; do [ -e "$d/$1" ] && { printf '%s\n' "$d/$1"; return 0; }; done
  return 1
}
queue=("$tree"/opt/deb/bin/*)
declare -A have=()
while [ ${#queue[@]} -gt 0 ]; do
  f=${queue[0]}; queue=("${queue[@]:1}")
  while read -r lib; do
    [ -n "$lib" ] && [ -z "${have[$lib]:-}" ] || continue
    have[$lib]=1
    path=$(find_lib "$lib") || die "$lib (needed by ${f##*/}) is in none of: ${PACKAGES[*]}"
    cp -L "$path" "$tree/lib/aarch64-linux-gnu/$lib"
    queue+=("$tree/lib/aarch64-linux-gnu/$lib")
  done < <(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
interp=$(readelf -l "$tree/opt/deb/bin/gzip" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
[ "$interp" = /lib/ld-linux-aarch64.so.1 ] || die "unexpected program interpreter '$interp'"
cp -L "$(find_lib ld-linux-aarch64.so.1)" "$tree/lib/ld-linux-aarch64.so.1"

python3 "$repo/bench/cpu-input.py" "$tree/opt/cpu-input"
install -m 0755 "$repo/bench/cpu-workloads-guest.sh" "$tree/usr/bin/vplat-cpu-workloads"

mkdir -p "$out"
install -m 0644 "$base/Image" "$out/Image"
find "$tree" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-0}" {} +
{
  cat "$base/initramfs.cpio.gz"
  # The kernel looks for the next archive's "070701" magic only at a 4-byte aligned offset, skipping zeros.
  head -c $(( (4 - $(stat -c %s "$base/initramfs.cpio.gz") % 4) % 4 )) /dev/zero
  # Directories already in the base archive are left out (the kernel would only re-create them).
  (cd "$tree" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0)
} >"$out/initramfs.cpio.gz.tmp"
mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"

{
  echo "# vplat CPU-workload guest (guest-images/build-cpu-workloads.sh), base $base"
  echo "input: /opt/cpu-input $(stat -c %s "$tree/opt/cpu-input") $(sha256sum <"$tree/opt/cpu-input" | cut -d' ' -f1)"
  echo "libraries: $(cd "$tree/lib/aarch64-linux-gnu" && ls | tr '\n' ' ')"
  for f in "${FETCHED[@]}"; do echo "deb $f"; done
  for f in Image initramfs.cpio.gz; do echo "out $f $(stat -c %s "$out/$f") $(sha256sum <"$out/$f" | cut -d' ' -f1)"; done
} >"$out/manifest.txt"
# The host's copy of the input, for the expected hashes.
cp "$tree/opt/cpu-input" "$out/cpu-input"
log "cpu-workload image: $out/initramfs.cpio.gz ($(stat -c %s "$out/initramfs.cpio.gz") bytes)"
