#!/bin/sh
# Guest side of bench/cpu-workloads.sh (installed as /usr/bin/vplat-cpu-workloads). Runs each workload on
# /opt/cpu-input with the Debian binaries in /opt/deb/bin, between two marker lines that the host timestamps:
#   vplat-cpu: begin NAME
#   vplat-cpu: end NAME
#   vplat-cpu: sha256 NAME <sha256 of the workload's output>
#   vplat-cpu: roundtrip NAME <sha256 of the decompressed output>   (zstd only)
# The hash is computed (by busybox) after the end marker, so it is not part of the timed span.
# vplat.cpu-only=NAME[,NAME...] on the kernel command line runs only those workloads (gunzip's input is then
# made untimed when gzip-6 is not among them). vplat.cpu-repeat=N runs each one N times in a row, its k-th run
# (k > 1) marked NAME@k: a later run finds the code an emulator translated in the first (warm-up against steady
# state). vplat.cpu-aslr=0 turns the guest kernel's address-space randomisation off first, so that a program's
# shared libraries sit at the same addresses in every run (translations are found by virtual address).
in=/opt/cpu-input
bin=/opt/deb/bin
out=/tmp/cpu-out
tmp=/tmp/cpu-gz
status=0

option() { tr ' ' '\n' </proc/cmdline | sed -n "s/^vplat\\.$1=//p"; }
only=$(option cpu-only)
wanted() { [ -z "$only" ] || case ",$only," in *",$1,"*) true ;; *) false ;; esac; }
repeat=$(option cpu-repeat)
case "$repeat" in [1-9]) ;; *) repeat=1 ;; esac
if [ "$(option cpu-aslr)" = 0 ]; then echo 0 >/proc/sys/kernel/randomize_va_space; fi

# run NAME INPUT COMMAND...: COMMAND's standard input is the file INPUT, opened again for each run.
run() {
  name=$1; input=$2; shift 2
  wanted "$name" || return 0
  k=1
  while [ "$k" -le "$repeat" ]; do
    tag=$name
    [ "$k" -gt 1 ] && tag=$name@$k
    echo "vplat-cpu: begin $tag"
    "$@" <"$input" >"$out" || { echo "vplat-cpu: failed $tag"; status=1; }
    echo "vplat-cpu: end $tag"
    echo "vplat-cpu: sha256 $tag $(busybox sha256sum <"$out" | cut -d' ' -f1)"
    k=$((k + 1))
  done
}

# -n and stdin: gzip stores no name or time stamp, so its output depends only on the data.
run sha256sum /dev/null "$bin/sha256sum" "$in"
run gzip-6 "$in" "$bin/gzip" -6 -n -c
if wanted gzip-6; then mv "$out" "$tmp"; elif wanted gunzip; then "$bin/gzip" -6 -n -c <"$in" >"$tmp"; fi
run gunzip /dev/null "$bin/gzip" -d -c "$tmp"
rm -f "$tmp"
run bzip2-9 /dev/null "$bin/bzip2" -9 -c "$in"
run xz-1 /dev/null "$bin/xz" -1 -T1 -c "$in"
# zstd also decompresses its own stream (untimed, after the hash): a second check that the stream is valid.
roundtrip() { wanted "$1" || return 0; echo "vplat-cpu: roundtrip $1 $("$bin/zstd" -d -q -c "$out" | busybox sha256sum | cut -d' ' -f1)"; }
run zstd-3 /dev/null "$bin/zstd" -3 -q -c "$in"
roundtrip zstd-3
run zstd-9 /dev/null "$bin/zstd" -9 -q -c "$in"
roundtrip zstd-9
loop() { i=0; while [ "$i" -lt 300000 ]; do i=$((i + 1)); done; echo "$i"; }
run shell-loop /dev/null loop
rm -f "$out"
echo "vplat-cpu: done"
exit "$status"
