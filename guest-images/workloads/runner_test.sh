#!/usr/bin/env bash
# Tests bench/gpu-suite.sh --host on fake workloads (shell scripts): the table must show what each did and the
# exit status must say whether all passed. Expected outcomes come from what each fake is written to do.
set -euo pipefail
runner=${1:?usage: runner_test.sh bench/gpu-suite.sh}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

fake() { # fake NAME BODY
  printf '#!/bin/sh\n%s\n' "$2" >"$work/bin/wl-$1"
  chmod +x "$work/bin/wl-$1"
}
mkdir -p "$work/bin"
fake good 'echo "WORKLOAD good n=8 PASS gpu_jobs=3 gpu_s=0.010 total_s=0.020 check=exact"'
fake wrong 'echo "WORKLOAD wrong m=2,n=2 FAIL gpu_jobs=1 gpu_s=0.010 total_s=0.020 reason=GPU result differs (x)"; exit 1'
fake crash 'echo "# crash: about to die"; kill -SEGV $$'
fake liar 'echo "WORKLOAD liar n=1 PASS gpu_jobs=1 gpu_s=0 total_s=0 check=exact"; exit 3'
fake skip 'echo "WORKLOAD skip - SKIP reason=no device"; exit 77'
fake slow 'sleep 30'

opts=() # further runner options for run
run() { # run SUITE_LINES... ; sets out, rc
  printf '%s\n' "$@" >"$work/suite.txt"
  set +e
  out=$("$runner" --host ${opts[@]+"${opts[@]}"} --bin-dir "$work/bin" --suite "$work/suite.txt" "$work/build" 2>&1)
  rc=$?
  set -e
}
expect_row() { # expect_row REGEX
  grep -Eq "$1" <<<"$out" || fail "no row matching '$1' in:
$out"
}

run good "wrong --guest-only-arg" crash liar "# comment" missing
[ $rc = 1 ] || fail "mixed suite: exit $rc, expected 1"
expect_row '^good +n=8 +3 +0\.010 +[0-9.]+ +PASS$'
expect_row '^wrong +m=2,n=2 +1 +0\.010 +[0-9.]+ +FAIL +GPU result differs \(x\)$'
expect_row '^crash +- +- +- +[0-9.]+ +FAIL +no result line \(exit status (139|-?11)\)$'
expect_row '^liar .* FAIL +printed PASS but exited with status 3$'
expect_row '^missing .* FAIL +no result line \(exit status 127\)$'
expect_row '^5 workloads: 1 PASS, 4 FAIL, 0 SKIP'

run good good
[ $rc = 0 ] || fail "all-pass suite: exit $rc, expected 0"
run skip
[ $rc = 77 ] || fail "all-skip suite: exit $rc, expected 77"
run good skip
[ $rc = 0 ] || fail "pass+skip suite: exit $rc, expected 0"

printf 'good\nslow\n' >"$work/suite.txt"
set +e
out=$(GPU_SUITE_TIMEOUT=3 "$runner" --host --bin-dir "$work/bin" --suite "$work/suite.txt" "$work/build" 2>&1)
rc=$?
set -e
[ $rc = 1 ] || fail "timeout: exit $rc, expected 1"
expect_row '^slow .* FAIL +started, no result \(suite timeout\)$'

# --api cl runs wlcl-NAME and leaves out the workloads that have no OpenCL version (here: glesonly).
printf '#!/bin/sh\necho "WORKLOAD good n=8 PASS gpu_jobs=2 gpu_s=0.010 total_s=0.020 check=exact"\n' >"$work/bin/wlcl-good"
printf '#!/bin/sh\necho "WORKLOAD wrong n=4 FAIL gpu_jobs=1 gpu_s=0 total_s=0 reason=cl mismatch"\nexit 1\n' >"$work/bin/wlcl-wrong"
chmod +x "$work/bin/wlcl-good" "$work/bin/wlcl-wrong"
fake glesonly 'echo "WORKLOAD glesonly n=1 PASS gpu_jobs=1 gpu_s=0 total_s=0 check=exact"'
printf 'good\nglesonly\nwrong\n' >"$work/suite.txt"
set +e
out=$("$runner" --host --api cl --bin-dir "$work/bin" --suite "$work/suite.txt" "$work/build" 2>&1)
rc=$?
set -e
[ $rc = 1 ] || fail "OpenCL suite: exit $rc, expected 1"
expect_row '^good +n=8 +2 +0\.010 +[0-9.]+ +PASS$'
expect_row '^wrong +n=4 .* FAIL +cl mismatch$'
expect_row '^2 workloads: 1 PASS, 1 FAIL, 0 SKIP'
! grep -q '^glesonly' <<<"$out" || fail "the OpenCL run lists glesonly, which has no OpenCL version:
$out"

# --only keeps just the named workloads of the list; a name the list does not have is an error.
opts=(--only 'good,skip')
run good wrong skip
[ $rc = 0 ] || fail "--only good,skip: exit $rc, expected 0"
expect_row '^2 workloads: 1 PASS, 0 FAIL, 1 SKIP'
! grep -q '^wrong' <<<"$out" || fail "--only good,skip ran wrong:
$out"
opts=(--only 'good,nosuch')
run good wrong skip
[ $rc = 2 ] || fail "--only with an unknown name: exit $rc, expected 2"
expect_row 'nosuch is not in the list'
opts=()

if [ $fails != 0 ]; then
  echo "runner_test: $fails failures"
  exit 1
fi
echo "runner_test: PASS"
