#!/usr/bin/env bash
# End-to-end test of the GDB stub: gdb-multiarch debugs a small A64 program (gdbstub_prog.s) running on vplat's
# interpreter (gdbstub_target). Expected values are worked out by hand in gdbstub_prog.s's comments.
set -uo pipefail
target=$1
prog_s=$2
for tool in gdb-multiarch llvm-mc-16 llvm-objcopy-16; do
  command -v $tool >/dev/null || { echo "gdbstub_test: $tool not installed (scripts/install-deps.sh)"; exit 1; }
done
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
llvm-mc-16 -triple=aarch64 -mattr=+neon -filetype=obj -o "$tmp/prog.o" "$prog_s" || exit 1
llvm-objcopy-16 -O binary -j .text "$tmp/prog.o" "$tmp/prog.bin" || exit 1

passed=0 failed=0
declare -A shown
check() { # check NAME FILE REGEX: the output FILE must have a line matching REGEX
  if grep -Eq -- "$3" "$2"; then passed=$((passed + 1)); return; fi
  failed=$((failed + 1))
  echo "FAIL: $1: no line matching /$3/ in $(basename "$2")"
  if [ -z "${shown[$2]:-}" ]; then shown[$2]=1; echo "--- $(basename "$2"):"; sed 's/^/    /' "$2"; echo "---"; fi
}

# Starts the target on a free port; sets $port and $tpid, output in $tmp/$1.target.
start_target() {
  rm -f "$tmp/port"
  timeout 60 "$target" "$tmp/prog.bin" --cpus 2 --port-file "$tmp/port" >"$tmp/$1.target" 2>&1 &
  tpid=$!
  pids+=("$tpid")
  for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
  port=$(cat "$tmp/port" 2>/dev/null)
  [ -n "$port" ] || { echo "FAIL: target did not start"; cat "$tmp/$1.target"; exit 1; }
}

gdb_run() { # gdb_run OUT ARGS...: batch gdb, at most 30 s
  local out=$1; shift
  timeout 30 gdb-multiarch -nx -batch -ex 'set confirm off' -ex 'set pagination off' \
    -ex "target remote 127.0.0.1:$port" "$@" >"$out" 2>&1
}

# 1. Registers, memory, threads, breakpoints, continue, step, register and memory writes, kill.
sled=0x100000000
start_target basic
gdb_run "$tmp/basic.gdb" \
  -ex 'info registers' \
  -ex 'info threads' \
  -ex 'x/2gx 0x10100' \
  -ex 'x/i $pc' \
  -ex 'break *0x10018' \
  -ex 'continue' \
  -ex 'info registers x1 x2 x3 x4 pc' \
  -ex 'p/x $v0.d.u' \
  -ex 'stepi' \
  -ex 'printf "after stepi x5=%#lx pc=%#lx\n", $x5, $pc' \
  -ex 'stepi' \
  -ex 'printf "after stepi x6=%#lx\n", $x6' \
  -ex 'set $x10 = 0x10' \
  -ex 'break *0x10034' \
  -ex 'continue' \
  -ex 'printf "at 0x10034 x7=%#lx x8=%#lx cpsr=%#x\n", $x7, $x8, $cpsr' \
  -ex 'stepi' \
  -ex 'x/3gx 0x10100' \
  -ex 'set var *(unsigned long *)0x10110 = 0xfeedface' \
  -ex 'x/gx 0x10110' \
  -ex 'info registers fpsr fpcr' \
  -ex 'thread 2' \
  -ex 'printf "thread2 x0=%#lx in sled=%d\n", $x0, $pc >= 0x140000000 && $pc < 0x180000000' \
  -ex 'thread 1' \
  -ex "break *($sled + 0x100)" \
  -ex "set \$pc = $sled" \
  -ex 'continue' \
  -ex 'printf "in sled x11=%#lx pc=%#lx\n", $x11, $pc' \
  -ex "set var *(unsigned int *)$sled = 0" \
  -ex 'x/x 0x200000' \
  -ex 'kill'
wait "$tpid"
f=$tmp/basic.gdb
check "x0 at start" "$f" '^x0 +0x0 +0$'
check "pc at start" "$f" '^pc +0x10000 '
check "sp" "$f" '^sp +0xffff0 '
check "cpsr" "$f" '^cpsr +0x0 '
check "fpcr listed" "$f" '^fpcr +0x0 '
check "two threads" "$f" '^ +2 +Thread 2'
check "memory" "$f" '^0x10100:[[:space:]]+0x1122334455667788[[:space:]]+0x0000000000000000'
check "disassembly" "$f" '0x10000:[[:space:]]+mov[[:space:]]+x1, #0x1234'
check "breakpoint hit" "$f" 'hit Breakpoint 1, 0x0000000000010018'
check "x1" "$f" '^x1 +0x56781234 '
check "x2" "$f" '^x2 +0x56781235 '
check "x3" "$f" '^x3 +0x10100 '
check "x4" "$f" '^x4 +0x1122334455667788 '
check "pc at breakpoint" "$f" '^pc +0x10018 '
check "v0 (128-bit register)" "$f" '= \{0x1122334455667788, 0x0\}'
check "stepi" "$f" '^after stepi x5=0x11223344abde89bd pc=0x1001c$'
check "stepi 2" "$f" '^after stepi x6=0x11223344abde89ad$'
check "second breakpoint" "$f" 'hit Breakpoint 2, 0x0000000000010034'
check "x10 written, flags" "$f" '^at 0x10034 x7=0xfffffffffffffff0 x8=0x11223344abde89cd cpsr=0x80000000$'
check "stores" "$f" '^0x10100:[[:space:]]+0x1122334455667788[[:space:]]+0x11223344abde89bd'
check "store of x8" "$f" '^0x10110:[[:space:]]+0x11223344abde89cd'
check "memory write" "$f" '^0x10110:[[:space:]]+0x00000000feedface'
check "thread 2" "$f" '^thread2 x0=0x1 in sled=1$'
check "breakpoint in read-only memory" "$f" 'hit Breakpoint 3, 0x0000000100000100'
check "sled ran 64 instructions" "$f" '^in sled x11=0x40 pc=0x100000100$'
check "read-only memory" "$f" 'Cannot access memory at address 0x100000000'
check "unmapped memory" "$f" 'Cannot access memory at address 0x200000'
check "session killed" "$tmp/basic.target" '^session: killed$'

# 2. Ctrl-C: CPU 0 runs in the sled; SIGINT to gdb makes it send 0x03 to the stub. The sled counts instructions in
# x11, so the PC must be sled + 4 * x11.
start_target intr
# --foreground: otherwise timeout passes the SIGINT on to gdb twice (to it and to its process group), and a second
# Ctrl-C makes gdb give up on the target.
timeout --foreground 30 gdb-multiarch -nx -batch -ex 'set confirm off' -ex "target remote 127.0.0.1:$port" \
  -ex "set \$pc = $sled" -ex 'continue' \
  -ex "printf \"interrupted consistent=%d many=%d\\n\", \$pc == $sled + 4 * \$x11, \$x11 > 10000" \
  -ex 'detach' >"$tmp/intr.gdb" 2>&1 &
gpid=$!
pids+=("$gpid")
# SIGINT only once the target runs: earlier, gdb would take it as giving up on a reply and disconnect.
for _ in $(seq 200); do grep -q '^running$' "$tmp/intr.target" && break; sleep 0.05; done
sleep 0.5
kill -INT "$gpid"
wait "$gpid"
wait "$tpid"
f=$tmp/intr.gdb
check "SIGINT stop" "$f" 'received signal SIGINT'
check "interrupted in the sled" "$f" '^interrupted consistent=1 many=1$'
check "detached" "$tmp/intr.target" '^session: detached$'

# 3. Running to the end: the guest powers off (HLT) and gdb sees the exit.
start_target exit
gdb_run "$tmp/exit.gdb" -ex 'continue'
wait "$tpid"
check "exit seen" "$tmp/exit.gdb" 'exited normally'
check "session exited" "$tmp/exit.target" '^session: exited$'

echo "gdbstub_test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
