#!/usr/bin/env bash
# Boots a Debian guest image on vplat with a command on the kernel command line and checks the run:
#   boot_test.sh VPLAT IMAGE_DIR [vplat options...]
# Passes when the guest prints the /init banner, the command's output, "exit status 0", vplat exits 0 on the
# guest's power-off, and the kernel log has no warning, oops, BUG or hung-task report.
# Environment: BOOT_CMD (the command), BOOT_APPEND (more kernel arguments), BOOT_DISK=yes (boot with a copy of
# IMAGE_DIR/disk.img), BOOT_EXPECT, BOOT_EXPECT2 .. BOOT_EXPECT5 (extended regexps some console line must
# match), BOOT_REJECT (an extended regexp no console line may match).
set -uo pipefail
vplat=$1
dir=$2
shift 2
if [ ! -f "$dir/Image" ]; then
  echo "boot_test: no guest image in $dir (make image); skipped"
  exit 77
fi
log=$(mktemp)
disk=
trap 'rm -f "$log" $disk' EXIT
# BOOT_DISK=yes boots with a copy of IMAGE_DIR/disk.img on --disk, so the test never changes the original.
if [ "${BOOT_DISK:-}" = yes ]; then
  [ -f "$dir/disk.img" ] || { echo "boot_test: no disk image in $dir (make image-disk); skipped"; exit 77; }
  disk=$(mktemp)
  cp "$dir/disk.img" "$disk"
  set -- "$@" --disk "$disk"
fi
marker="vplat-boot-test-$$"
# The JIT's background compiles check each block's IR with LLVM's verifier here, as synchronous engines always do.
export VPLAT_JIT_VERIFY=${VPLAT_JIT_VERIFY-1}
timeout "${BOOT_TIMEOUT:-600}" "$vplat" --kernel "$dir/Image" --initrd "$dir/initramfs.cpio.gz" "$@" \
  --append "console=ttyAMA0 ${BOOT_APPEND:-} vplat.cmd=\"echo $marker; ${BOOT_CMD:-true}\"" </dev/null >"$log" 2>&1
rc=$?
tr -d '\r' <"$log" >"$log.clean"
mv "$log.clean" "$log"
fail=0
check() { # description, grep pattern
  if grep -qE "$2" "$log"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}
[ $rc -eq 0 ] && echo "ok   vplat exited 0 after the guest powered off" || { echo "FAIL vplat exit status $rc"; fail=1; }
check "banner from /init" '^vplat guest: .* ready$'
check "command output" "^$marker\$"
check "command exit status" '^vplat guest: exit status 0$'
for v in BOOT_EXPECT BOOT_EXPECT2 BOOT_EXPECT3 BOOT_EXPECT4 BOOT_EXPECT5; do
  extra=${!v:-}
  [ -n "$extra" ] && check "expected output: $extra" "$extra"
done
if [ -n "${BOOT_REJECT:-}" ]; then
  if grep -nE "$BOOT_REJECT" "$log"; then echo "FAIL unwanted output (above): $BOOT_REJECT"; fail=1
  else echo "ok   no output matching $BOOT_REJECT"; fi
fi
if grep -nE 'WARNING:|Oops|BUG:|Call trace:|blocked for more than|rcu_sched self-detected|soft lockup|timed out' "$log"; then
  echo "FAIL kernel log has warnings (above)"
  fail=1
else
  echo "ok   no kernel warnings"
fi
if [ $fail -ne 0 ]; then
  echo "--- last lines of the console:"
  tail -n 30 "$log"
fi
echo "$((fail == 0 ? 1 : 0)) passed, $fail failed"
exit $fail
