#!/usr/bin/env bash
# Boots a built guest under QEMU (an independent emulator) and checks /init's contract:
# banner, command output, exit status line, and QEMU exiting by itself after poweroff.
#
#   test-qemu.sh [--timeout SECONDS] [--disk] [--log-dir DIR] [OUTDIR]
#
# OUTDIR (default build/guest) must hold Image and initramfs.cpio.gz (from build-default.sh);
# --disk also boots OUTDIR/disk.img as the root file system (from build-disk.sh).
# Prints one line per case with the seconds from QEMU start to the banner and to QEMU's exit, and
# QEMU's user+sys CPU seconds (with /usr/bin/time).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

TIMEOUT=120
DISK=0
OUTDIR=
LOGDIR=
while [ $# -gt 0 ]; do
  case $1 in
    --timeout) [ $# -ge 2 ] || die "--timeout needs a value"; TIMEOUT=$2; shift 2 ;;
    --disk) DISK=1; shift ;;
    --log-dir) [ $# -ge 2 ] || die "--log-dir needs a value"; LOGDIR=$2; shift 2 ;;
    -h|--help) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) OUTDIR=$1; shift ;;
  esac
done
OUTDIR=${OUTDIR:-$repo/build/guest}
need_tools qemu-system-aarch64 timeout base64
for f in Image initramfs.cpio.gz; do
  [ -f "$OUTDIR/$f" ] || die "$OUTDIR/$f missing (run guest-images/build-default.sh first)"
done
[ "$DISK" = 0 ] || [ -f "$OUTDIR/disk.img" ] || die "$OUTDIR/disk.img missing (run guest-images/build-disk.sh)"
LOGDIR=${LOGDIR:-$OUTDIR/qemu-logs}
mkdir -p "$LOGDIR"

failures=0
# run_case NAME APPEND [extra qemu args...]: boots; leaves the console log in $LOGDIR/NAME.log
# (each line prefixed with seconds since start) and sets T_BANNER, T_EXIT, QEMU_RC.
run_case() {
  local name=$1 append=$2; shift 2
  local log=$LOGDIR/$name.log start rc
  start=${EPOCHREALTIME/[.,]/}
  # QEMU's CPU time is reported too: it varies much less than wall time on a loaded host.
  local timer=()
  rm -f "$log.cpu"
  [ -x /usr/bin/time ] && timer=(/usr/bin/time -f '%U %S' -o "$log.cpu")
  set +e
  timeout -k 5 "$TIMEOUT" "${timer[@]}" qemu-system-aarch64 -M virt -cpu cortex-a57 -smp 1 -m 1G -nographic \
      -nic none -no-reboot -kernel "$OUTDIR/Image" -initrd "$OUTDIR/initramfs.cpio.gz" \
      -append "console=ttyAMA0 panic=-1 $append" "$@" </dev/null 2>&1 |
    while IFS= read -r line || [ -n "$line" ]; do
      d=$((${EPOCHREALTIME/[.,]/} - start))
      printf '%d.%03d %s\n' $((d / 1000000)) $((d % 1000000 / 1000)) "${line%$'\r'}"
    done >"$log"
  rc=${PIPESTATUS[0]}
  set -e
  QEMU_RC=$rc
  T_EXIT=$(awk '{ t = $1 } END { print t + 0 }' "$log")
  T_BANNER=$(awk '/vplat guest: .* ready$/ { print $1; exit }' "$log")
  T_CPU=
  if [ -s "$log.cpu" ]; then T_CPU=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%.2f", $1 + $2 }' "$log.cpu"); fi
}

# expect NAME REGEX...: every extended regex must match a console line (after the timestamp).
check() {
  local name=$1; shift
  local log=$LOGDIR/$name.log ok=1 re
  if [ "$QEMU_RC" -ne 0 ]; then
    echo "FAIL $name: QEMU exit code $QEMU_RC$( [ "$QEMU_RC" -eq 124 ] && echo " (timeout ${TIMEOUT}s)")"; ok=0
  fi
  [ -n "$T_BANNER" ] || { echo "FAIL $name: no banner"; ok=0; }
  for re in "$@"; do
    grep -Eq -- "$re" <(cut -d' ' -f2- "$log") || { echo "FAIL $name: no line matching /$re/"; ok=0; }
  done
  if [ "$ok" = 1 ]; then
    printf 'PASS %-6s banner %6.2f s  exit %6.2f s  qemu cpu %5s s  (%s)\n' "$name" "$T_BANNER" "$T_EXIT" \
      "${T_CPU:-?}" "$(grep -m1 -o 'Linux version [^ ]*' "$log" || echo '?')"
  else
    failures=$((failures + 1)); echo "     log: $log"; tail -n 15 "$log" | sed 's/^/     | /'
  fi
}

# 1. Quoted vplat.cmd: the command's output and exit status.
run_case cmd 'vplat.cmd="uname -a; echo vplat-ok-$((6*7))"'
check cmd '^vplat guest: [^ ]+ ready$' '^Linux .* aarch64' '^vplat-ok-42$' '^vplat guest: exit status 0$'

# 2. vplat.cmd64: arbitrary characters and a non-zero status.
c64=$(printf '%s' 'echo "quotes \"ok\" and | pipes" | tr a-z A-Z; exit 3' | base64 -w0)
run_case cmd64 "vplat.cmd64=$c64"
check cmd64 '^QUOTES "OK" AND \| PIPES$' '^vplat guest: exit status 3$'

# 3. Disk root over virtio-blk (virtio-mmio on QEMU virt).
if [ "$DISK" = 1 ]; then
  # A snapshot so the test leaves disk.img untouched.
  run_case disk 'vplat.root=/dev/vda vplat.cmd=vplat-disk-marker' \
    -drive "file=$OUTDIR/disk.img,if=none,format=raw,id=d,snapshot=on" -device virtio-blk-device,drive=d
  check disk '^vplat guest: root /dev/vda \(ext4\) mounted, switching$' '^vplat-disk-marker: root /dev/vda ext4 rw' \
    '^vplat guest: exit status 0$'
fi

[ "$failures" -eq 0 ] || die "$failures case(s) failed"
echo "all QEMU cases passed ($OUTDIR)"
