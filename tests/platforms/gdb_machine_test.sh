#!/usr/bin/env bash
# End-to-end test of `vplat --gdb`: gdb-multiarch debugs the bare-metal MMU test (tests/baremetal/mmu.c, juno
# build) running on the Juno machine.
#   gdb_machine_test.sh VPLAT BAREMETAL_JUNO_DIR
# Expected values come from the test's source and its disassembly (aarch64-linux-gnu-objdump -d mmu.elf), worked
# out by hand below; addresses of symbols are taken from the ELF symbol table (aarch64-linux-gnu-nm), not from
# vplat.
set -uo pipefail
vplat=$1
dir=$2
elf=$dir/mmu.elf
bin=$dir/mmu.bin
for tool in gdb-multiarch aarch64-linux-gnu-nm python3; do
  command -v $tool >/dev/null || { echo "gdb_machine_test: $tool not installed (scripts/install-deps.sh)"; exit 1; }
done
[ -f "$elf" ] && [ -f "$bin" ] || { echo "gdb_machine_test: $bin or $elf missing (build target baremetal_tests)"; exit 1; }

tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT

passed=0 failed=0
declare -A shown
check() { # check NAME FILE REGEX: FILE must have a line matching REGEX
  if grep -Eq -- "$3" "$2"; then passed=$((passed + 1)); return; fi
  failed=$((failed + 1))
  echo "FAIL: $1: no line matching /$3/ in $(basename "$2")"
  if [ -z "${shown[$2]:-}" ]; then shown[$2]=1; echo "--- $(basename "$2"):"; sed 's/^/    /' "$2"; echo "---"; fi
}
check_eq() { # check_eq NAME GOT WANT
  if [ "$2" = "$3" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1: got '$2', expected '$3'"; fi
}

sym() { # address of symbol $1 as 0x... without leading zeros (as gdb prints it)
  local a
  a=$(aarch64-linux-gnu-nm "$elf" | awk -v s="$1" '$3 == s { print $1 }')
  [ -n "$a" ] && printf '0x%x' "0x$a"
}
window_set=$(sym window_set)
page_a=$(sym page_a)
page_code=$(sym page_code)
stack=$(sym cpu0_stack)
[ -n "$window_set" ] && [ -n "$page_a" ] && [ -n "$page_code" ] && [ -n "$stack" ] || { echo "FAIL: symbols missing in $elf"; exit 1; }

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Starts vplat on the MMU test with `--gdb $port` plus ARGS; waits until it listens. Output in $tmp/$1.vplat.
start_vplat() {
  local name=$1; shift
  port=$(free_port)
  timeout 120 "$vplat" --smp 1 --memory 256M --kernel "$bin" --gdb "$port" "$@" </dev/null >"$tmp/$name.vplat" 2>&1 &
  vpid=$!
  pids+=("$vpid")
  for _ in $(seq 200); do grep -q "GDB server on 127.0.0.1:$port" "$tmp/$name.vplat" && return; sleep 0.05; done
  echo "FAIL: vplat did not start listening"; cat "$tmp/$name.vplat"; exit 1
}

gdb_run() { # gdb_run OUT ARGS...: batch gdb, at most 60 s
  local out=$1; shift
  timeout 60 gdb-multiarch -nx -batch -ex 'set confirm off' -ex 'set pagination off' -ex "file $elf" \
    -ex "target remote 127.0.0.1:$port" "$@" >"$out" 2>&1
}

# 1. --gdb-wait: the first instruction waits for GDB. The socket listens on 127.0.0.1 only (/proc/net/tcp has
# it as 0100007F:PORT in state 0A = LISTEN; no IPv6 socket has the port).
start_vplat main --gdb-wait
hexport=$(printf '%04X' "$port")
listen=$(awk -v p=":$hexport" '$4 == "0A" && substr($2, length($2) - 4) == p { print $2 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
check_eq "listening socket bound to 127.0.0.1 only" "$listen" "0100007F:$hexport"

# The first stop is at the kernel entry: the image's load address, 0x80080000 (juno.h RAM_BASE + 0x80000, the
# link address of _text), EL1h with DAIF masked (Linux boot protocol; CPSR = D A I F | M = 0b0101 = 0x3c5),
# x0 = the DTB address (nonzero), SP of EL1 after reset = 0.
#
# Breakpoint: window_set(unsigned n, u64 pte) with n = 7 is first called in test_exec (mmu.c) as
# window_set(W_EXEC, pte_normal(page_code, PTE_AP_EL1_RO)), after setup() turned the MMU on. At its entry:
#   x0 = 7
#   x1 = page_code | VALID 1 | TABLE 2 | ATTR(1) 4 | SH inner 0x300 | AF 0x400 | AP EL1 RO 0x80 | PXN 1<<53 |
#        UXN 1<<54 = page_code | 0x60000000000787
#   CPSR M = EL1h (5), DAIF still masked (start.S masks them; mmu.c never unmasks): CPSR & 0x3ff = 0x3c5
#   SP in cpu0_stack (16 KiB), LR just after a `bl window_set`.
# window_set begins with `cmp w0, #0x1ff`: 7 - 511 < 0, borrow: N=1 Z=0 C=0 V=0, so after one stepi CPSR[31:28]
# = 0b1000 and PC = window_set + 4; `b.hi` is not taken (C=0), so the next stepi gives window_set + 8.
# Memory through the MMU at that point: window page 0 (VA 0x1000000000) maps page_a, where test_alias stored
# 0xfeedface00000001 and 0xfeedface00000002 at [10] and [11] (offset 0x50); window page 41 (VA 0x1000029000)
# maps page_b, where test_el0 left 0x7777 at [100] and, from EL0, the store's own VA 0x1000029328 at [101]
# (offset 0x320); window page 5 (W_INVALID, VA 0x1000005000) is unmapped. page_a[12] is unused by the test,
# so a write through the window there is harmless and must show at the identity address.
x1_want=$(printf '0x%x' $((page_code | 0x60000000000787)))
gdb_run "$tmp/main.gdb" \
  -ex 'printf "entry pc=%#lx cpsr=%#x x0nz=%d x1=%#lx\n", $pc, $cpsr, $x0 != 0, $x1' \
  -ex 'info registers sp fpsr fpcr' \
  -ex 'info threads' \
  -ex 'x/i $pc' \
  -ex 'break window_set if $x0 == 7' \
  -ex 'continue' \
  -ex 'printf "at bp pc=%#lx x0=%#lx x1=%#lx el1h_masked=%d\n", $pc, $x0, $x1, ($cpsr & 0x3ff) == 0x3c5' \
  -ex "printf \"sp in stack=%d\\n\", \$sp > $stack && \$sp <= $stack + 0x4000" \
  -ex 'x/i $lr - 4' \
  -ex 'stepi' \
  -ex 'printf "step1 pc=%#lx nzcv=%#x\n", $pc, (unsigned int)$cpsr >> 28' \
  -ex 'stepi' \
  -ex 'printf "step2 pc=%#lx\n", $pc' \
  -ex 'x/2gx 0x1000000050' \
  -ex 'x/2gx 0x1000029320' \
  -ex "x/2gx $page_a + 0x50" \
  -ex 'x/gx 0x1000005000' \
  -ex 'set var *(unsigned long *)0x1000000060 = 0x5a5a5a5a12345678' \
  -ex "x/gx $page_a + 0x60" \
  -ex 'delete' \
  -ex 'continue'
wait "$vpid"
vrc=$?
f=$tmp/main.gdb
check "entry state" "$f" '^entry pc=0x80080000 cpsr=0x3c5 x0nz=1 x1=0$'
check "sp at entry" "$f" '^sp +0x0 '
check "fpcr listed" "$f" '^fpcr +0x0 '
check "one thread" "$f" '^\* 1 +Thread 1'
check "disassembly at entry: code0 branches to primary_entry" "$f" '^=> 0x80080000 <_text_head>:[[:space:]]+b[[:space:]]+0x80080040 <primary_entry>'
check "breakpoint hit" "$f" '^Breakpoint 1, window_set \(n=n@entry=7,'
check "registers at the breakpoint" "$f" "^at bp pc=$window_set x0=0x7 x1=$x1_want el1h_masked=1$"
check "sp" "$f" '^sp in stack=1$'
check "lr after a bl window_set" "$f" "bl[[:space:]]+$window_set <window_set>$"
check "stepi: cmp sets N" "$f" "^step1 pc=$(printf '0x%x' $((window_set + 4))) nzcv=0x8$"
check "stepi: b.hi not taken" "$f" "^step2 pc=$(printf '0x%x' $((window_set + 8)))$"
check "read through the MMU (window 0 -> page_a)" "$f" '^0x1000000050:[[:space:]]+0xfeedface00000001[[:space:]]+0xfeedface00000002'
check "read through the MMU (window 41 -> page_b)" "$f" '^0x1000029320:[[:space:]]+0x0000000000007777[[:space:]]+0x0000001000029328'
check "identity view of page_a" "$f" '[[:space:]]0xfeedface00000001[[:space:]]+0xfeedface00000002$'
check "unmapped VA" "$f" 'Cannot access memory at address 0x1000005000'
check "write through the MMU seen at the identity address" "$f" ':[[:space:]]+0x5a5a5a5a12345678$'
check "guest powered off: gdb sees the exit" "$f" 'exited normally'
check "guest passed its own checks" "$tmp/main.vplat" '^DONE [1-9][0-9]* passed 0 failed'
check_eq "vplat exit status" "$vrc" 0

# 2. Ctrl-C while the guest loops: a `b .` (0x14000000) is written into page_code (RAM, executable at EL1 in the
# identity map) and the PC sent there; SIGINT to gdb makes it send 0x03, and the stop must be in that loop.
start_vplat intr --gdb-wait
loop=$(printf '0x%x' $((page_code + 0x800)))
timeout --foreground 60 gdb-multiarch -nx -batch -ex 'set confirm off' -ex "file $elf" \
  -ex "target remote 127.0.0.1:$port" \
  -ex 'break window_set if $x0 == 7' -ex 'continue' -ex 'delete' \
  -ex "set var *(unsigned int *)$loop = 0x14000000" -ex "set \$pc = $loop" \
  -ex 'echo running\n' -ex 'continue' \
  -ex "printf \"interrupted in loop=%d\\n\", \$pc == $loop" \
  -ex 'kill' >"$tmp/intr.gdb" 2>&1 &
gpid=$!
pids+=("$gpid")
# SIGINT only once the target runs the loop.
for _ in $(seq 400); do grep -q '^running$' "$tmp/intr.gdb" && break; sleep 0.05; done
sleep 0.5
kill -INT "$gpid"
wait "$gpid"
wait "$vpid"
vrc=$?
check "SIGINT stop" "$tmp/intr.gdb" 'received signal SIGINT'
check "stopped in the loop" "$tmp/intr.gdb" '^interrupted in loop=1$'
check_eq "vplat exit status after kill" "$vrc" 0

# 3. --gdb without --gdb-wait: the guest runs without a debugger and finishes on its own.
start_vplat nowait
wait "$vpid"
vrc=$?
check "runs without a debugger" "$tmp/nowait.vplat" '^DONE [1-9][0-9]* passed 0 failed'
check_eq "vplat exit status without a debugger" "$vrc" 0

# 4. Two CPUs (the SMP test): each CPU is a GDB thread; the secondary started by PSCI CPU_ON stops at a breakpoint
# on secondary_entry with x0 = its context id, &ctxs[1] (smp.c start_cpu passes (u64)c as the context), in the
# PSCI entry state EL1h with DAIF masked (CPSR = 0x3c5, DEN0022 "CPU_ON"); the guest then runs to its end.
smp_elf=$dir/smp.elf
port=$(free_port)
timeout 120 "$vplat" --smp 2 --memory 256M --kernel "$dir/smp.bin" --gdb "$port" --gdb-wait </dev/null \
  >"$tmp/smp.vplat" 2>&1 &
vpid=$!
pids+=("$vpid")
for _ in $(seq 200); do grep -q "GDB server on 127.0.0.1:$port" "$tmp/smp.vplat" && break; sleep 0.05; done
timeout 60 gdb-multiarch -nx -batch -ex 'set confirm off' -ex "file $smp_elf" -ex "target remote 127.0.0.1:$port" \
  -ex 'info threads' -ex 'break secondary_entry' -ex 'continue' \
  -ex 'printf "secondary thread=%d ctx=%d cpsr=%#x\n", $_thread, $x0 == (unsigned long)&ctxs[1], $cpsr' \
  -ex 'delete' -ex 'continue' >"$tmp/smp.gdb" 2>&1
wait "$vpid"
vrc=$?
check "two threads" "$tmp/smp.gdb" '^ +2 +Thread 2'
check "secondary stopped at its entry" "$tmp/smp.gdb" '^Thread 2 hit Breakpoint 1, secondary_entry'
check "secondary registers" "$tmp/smp.gdb" '^secondary thread=2 ctx=1 cpsr=0x3c5$'
check "smp guest exit seen" "$tmp/smp.gdb" 'exited normally'
check "smp guest passed" "$tmp/smp.vplat" '^DONE [1-9][0-9]* passed 0 failed'
check_eq "vplat exit status (smp)" "$vrc" 0

# 5. A busy port: one clear line on stderr, exit status 2.
busy=$(free_port)
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); print("ready", flush=True); time.sleep(60)' \
  "$busy" >"$tmp/busy.listener" &
pids+=($!)
for _ in $(seq 100); do grep -q ready "$tmp/busy.listener" && break; sleep 0.05; done
timeout 30 "$vplat" --memory 256M --kernel "$bin" --gdb "$busy" </dev/null >"$tmp/busy.out" 2>"$tmp/busy.err"
check_eq "busy port: exit status" "$?" 2
check_eq "busy port: one line on stderr" "$(wc -l <"$tmp/busy.err")" 1
check "busy port: message" "$tmp/busy.err" "^vplat: .*port $busy .*already in use"
check_eq "busy port: nothing on stdout" "$(wc -c <"$tmp/busy.out")" 0

echo "gdb_machine_test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
