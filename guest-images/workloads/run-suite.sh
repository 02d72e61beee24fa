#!/bin/sh
# Runs the GPU workload suite, in the guest (installed as /usr/bin/vplat-gpu-suite) or on the host
# (bench/gpu-suite.sh --host). POSIX sh: the guest has busybox.
#
#   run-suite.sh [--quick] [--host] [--api gles|cl] [--bin-dir DIR] [--suite FILE]
#
# For each workload of the suite file it prints "WLSTART <name>", runs DIR/wl-<name>, which prints its own
# "WORKLOAD ..." result line (wl_common.h), then "WLEND <name> <exit status>"; at the end "WLSUITE done <failed>".
# --api cl runs the OpenCL versions (DIR/wlcl-<name>) instead; workloads without one (fault) are left out of the
# run, and in the guest RUSTICL_ENABLE defaults to panfrost (Mesa's Rusticl offers no device without it).
# In the guest (no --host) each workload also gets the suite file's guest arguments (fault: --expect-fault) and
# WL_EXPECT_RENDERER=Panfrost, so that Mesa falling back to its software renderer is a failure. Exit status: the
# number of workloads that did not exit 0 (capped at 125).
quick='' host=0 bindir='' suite='' prefix=wl-
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=--quick ;;
    --host) host=1 ;;
    --api)
      case $2 in gles) prefix=wl- ;; cl) prefix=wlcl- ;; *) echo "run-suite.sh: --api gles|cl" >&2; exit 2 ;; esac
      shift ;;
    --bin-dir) bindir=$2; shift ;;
    --suite) suite=$2; shift ;;
    *) echo "run-suite.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$bindir" ] || bindir=/usr/lib/vplat-workloads
[ -n "$suite" ] || suite=$bindir/suite.txt
[ -f "$suite" ] || { echo "run-suite.sh: no suite file $suite" >&2; exit 2; }
if [ "$host" = 0 ]; then
  export WL_EXPECT_RENDERER="${WL_EXPECT_RENDERER:-Panfrost}"
  [ "$prefix" = wl- ] || export RUSTICL_ENABLE="${RUSTICL_ENABLE:-panfrost}"
  extra_ok=1
else
  extra_ok=0
  # Host runs are tests: a missing EGL device is a SKIP there.
  skip=--skip-unavailable
fi
failed=0
# The suite file is read on fd 3 so that the workloads' stdin is not the list.
while read -r name args <&3; do
  case $name in ''|'#'*) continue ;; esac
  [ "$extra_ok" = 1 ] || args=
  [ "$prefix" = wl- ] || [ -x "$bindir/$prefix$name" ] || continue
  echo "WLSTART $name"
  # shellcheck disable=SC2086  # args is a word list by design
  "$bindir/$prefix$name" $quick ${skip:-} $args
  rc=$?
  echo "WLEND $name $rc"
  [ $rc = 0 ] || [ $rc = 77 ] || failed=$((failed + 1))
done 3<"$suite"
echo "WLSUITE done $failed"
[ $failed -le 125 ] || failed=125
exit $failed
