#!/usr/bin/env bash
# Each bad description names, in its first line, the line and message adlc must report:
#   // expect: LINE: MESSAGE
# adlc must fail (exit 1) with "FILE:LINE:COL: error: ...MESSAGE...".
set -u
adlc=$1
dir=$2
pass=0 fail=0
for f in "$dir"/*.adl; do
  expect=$(head -1 "$f" | sed -n 's|^// expect: ||p')
  line=${expect%%:*}
  message=${expect#*: }
  out=$("$adlc" --check "$f" 2>&1)
  rc=$?
  if [ $rc -eq 1 ] && grep -qF "$f:$line:" <<<"$out" && grep -qF "error: " <<<"$out" && grep -qF "$message" <<<"$out"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $(basename "$f"): expected exit 1 and '$f:$line: ... $message', got exit $rc: $out"
  fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
