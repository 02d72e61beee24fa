#!/bin/sh
# Guest side of bench/cpu-workloads.sh (installed as /usr/bin/vplat-cpu-workloads). Runs each workload on
# /opt/cpu-input with the Debian binaries in /opt/deb/bin, between two marker lines that the host timestamps:
#   vplat-cpu: begin NAME
#   vplat-cpu: end NAME
#   vplat-cpu: sha256 NAME <sha256 of the workload's output>
#   vplat-cpu: roundtrip NAME <sha256 of the decompressed output>   (zstd only)
# The hash is computed (by busybox) after the end marker, so it is not part of the timed span.
# vplat.cpu-only=NAME[,NAME...] on the kernel command line runs only those workloads (gunzip's input is then
# made untimed when gzip-6 is not among them).
in=/opt/cpu-input
bin=/opt/deb/bin
out=/tmp/cpu-out
tmp=/tmp/cpu-gz
status=0

only=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^vplat\.cpu-only=//p')
wanted() { [ -z "$only" ] || case ",$only," in *",$1,"*) true ;; *) false ;; esac; }

run() {
  name=$1; shift
  wanted "$name" || return 0
  echo "vplat-cpu: begin $name"
  "$@" >"$out" || { echo "vplat-cpu: failed $name"; status=1; }
  echo "vplat-cpu: end $name"
  echo "vplat-cpu: sha256 $name $(busybox sha256sum <"$out" | cut -d' ' -f1)"
}

# -n and stdin: gzip stores no name or time stamp, so its output depends only on the data.
run sha256sum "$bin/sha256sum" "$in"
run gzip-6 "$bin/gzip" -6 -n -c <"$in"
if wanted gzip-6; then mv "$out" "$tmp"; elif wanted gunzip; then "$bin/gzip" -6 -n -c <"$in" >"$tmp"; fi
run gunzip "$bin/gzip" -d -c "$tmp"
rm -f "$tmp"
run bzip2-9 "$bin/bzip2" -9 -c "$in"
run xz-1 "$bin/xz" -1 -T1 -c "$in"
# zstd also decompresses its own stream (untimed, after the hash): a second check that the stream is valid.
roundtrip() { wanted "$1" || return 0; echo "vplat-cpu: roundtrip $1 $("$bin/zstd" -d -q -c "$out" | busybox sha256sum | cut -d' ' -f1)"; }
run zstd-3 "$bin/zstd" -3 -q -c "$in"
roundtrip zstd-3
run zstd-9 "$bin/zstd" -9 -q -c "$in"
roundtrip zstd-9
loop() { i=0; while [ "$i" -lt 300000 ]; do i=$((i + 1)); done; echo "$i"; }
run shell-loop loop
rm -f "$out"
echo "vplat-cpu: done"
exit "$status"
