#!/usr/bin/env bash
# Boot time of the default guest image on vplat and on QEMU (informative):
#   bench/boot.sh [BUILD_DIR]
# Both emulators boot the same kernel and initramfs with `vplat.cmd=true`. The figure is the host time from
# process start to the moment the first line of /init ("vplat guest: <release> ready") arrives on the emulator's
# stdout; the time until the process exits after the guest's power-off is shown as well. Runs alternate between
# the two emulators so that both see the same load on the host; the medians and their ratio are printed.
# Environment: BOOT_RUNS (runs per emulator, default 5), BOOT_TIMEOUT (seconds per run, default 300),
# BOOT_IMAGE_DIR (default BUILD_DIR/guest), QEMU (default qemu-system-aarch64).
set -euo pipefail
build=${1:-build}
runs=${BOOT_RUNS:-5}
timeout=${BOOT_TIMEOUT:-300}
images=${BOOT_IMAGE_DIR:-$build/guest}
qemu=${QEMU:-qemu-system-aarch64}

die() { echo "boot.sh: $*" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BOOT_RUNS must be a positive whole number, not '$runs'"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "BOOT_TIMEOUT must be a positive number of seconds, not '$timeout'"
[ -x "$build/vplat" ] || die "$build/vplat not built (run 'make build')"
for f in Image initramfs.cpio.gz; do
  [ -f "$images/$f" ] || die "no guest image $images/$f (run 'make image')"
done
command -v "$qemu" >/dev/null || die "$qemu not found (Debian package qemu-system-arm; scripts/install-deps.sh installs it)"
command -v python3 >/dev/null || die "python3 not found"

# The timing loop is in Python: it reads each emulator's stdout through a pipe as it arrives and takes
# time.monotonic() as each line completes, so the figure does not include any shell start-up per line.
read -r -d '' prog <<'EOF' || true
import os, re, select, signal, statistics, subprocess, sys, tempfile, time

vplat, qemu, kernel, initrd, runs, timeout = sys.argv[1:7]
runs, timeout = int(runs), float(timeout)
commands = {
    "vplat": [vplat, "--platform", "juno", "--memory", "1G", "--kernel", kernel, "--initrd", initrd,
              "--append", "console=ttyAMA0 vplat.cmd=true"],
    "qemu": [qemu, "-M", "virt", "-cpu", "cortex-a57", "-smp", "1", "-m", "1G", "-nographic", "-nic", "none",
             "-no-reboot", "-kernel", kernel, "-initrd", initrd,
             "-append", "console=ttyAMA0 panic=-1 vplat.cmd=true"],
}
banner_re = re.compile(rb"vplat guest: (\S+) ready")
status_re = re.compile(rb"vplat guest: exit status (\d+)")

def run_one(name):
    """Boots once; returns a dict with banner/exit times (seconds from start), release, statuses, output tail."""
    err = tempfile.TemporaryFile()
    t0 = time.monotonic()
    p = subprocess.Popen(commands[name], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
                         start_new_session=True)
    r = {"banner": None, "exit": None, "release": None, "guest_status": None, "rc": None, "timed_out": False}
    tail, pending = [], b""
    def line_done(line):
        line = line.rstrip(b"\r")
        if r["banner"] is None:
            m = banner_re.search(line)
            if m:
                r["banner"], r["release"] = time.monotonic() - t0, m.group(1).decode(errors="replace")
        m = status_re.search(line)
        if m and r["guest_status"] is None:
            r["guest_status"] = int(m.group(1))
        tail.append(line.decode(errors="replace"))
        del tail[:-30]
    fd = p.stdout.fileno()
    while True:
        left = t0 + timeout - time.monotonic()
        if left <= 0:
            r["timed_out"] = True
            os.killpg(p.pid, signal.SIGKILL)
            break
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            line_done(line)
    if pending:
        line_done(pending)
    r["rc"] = p.wait()
    if not r["timed_out"]:
        r["exit"] = time.monotonic() - t0
    p.stdout.close()
    err.seek(0)
    r["stderr"] = err.read().decode(errors="replace").strip().splitlines()[-10:]
    r["tail"] = tail
    return r

def fmt(x):
    return "-" if x is None else f"{x:.2f}"

print(f"host: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start; "
      f"{runs} runs each, timeout {timeout:.0f} s")
print(f"{'run':>3}  {'emulator':<8} {'banner s':>9} {'exit s':>9}  {'guest':>5}  {'rc':>3}  note")
results = {"vplat": [], "qemu": []}
failed = False
for i in range(runs):
    # Alternate which emulator goes first so a trend in the host's load hits both alike.
    for name in (("vplat", "qemu") if i % 2 == 0 else ("qemu", "vplat")):
        r = run_one(name)
        note = []
        if r["timed_out"]:
            note.append(f"killed after {timeout:.0f} s")
        if r["banner"] is None:
            note.append("no banner")
        elif r["guest_status"] is None:
            note.append("no 'exit status' line")
        if r["rc"] not in (0, None) and not r["timed_out"]:
            note.append(f"exit code {r['rc']}")
        print(f"{i + 1:>3}  {name:<8} {fmt(r['banner']):>9} {fmt(r['exit']):>9}  "
              f"{'-' if r['guest_status'] is None else r['guest_status']:>5}  "
              f"{'-' if r['timed_out'] else r['rc']:>3}  {', '.join(note)}", flush=True)
        if r["banner"] is None:
            failed = True
            print(f"--- {name}: last lines of stdout:", file=sys.stderr)
            print("\n".join(r["tail"]) or "(none)", file=sys.stderr)
            if r["stderr"]:
                print(f"--- {name}: stderr:", file=sys.stderr)
                print("\n".join(r["stderr"]), file=sys.stderr)
            print(f"boot.sh: {name} did not print the /init banner; command: {' '.join(commands[name])}",
                  file=sys.stderr)
            sys.exit(1)
        results[name].append(r)

med = {}
print()
print(f"{'median':<8} {'banner s':>9} {'exit s':>9}  release")
for name, rs in results.items():
    b = statistics.median(r["banner"] for r in rs)
    exits = [r["exit"] for r in rs if r["exit"] is not None]
    e = statistics.median(exits) if exits else None
    med[name] = b
    print(f"{name:<8} {b:>9.2f} {fmt(e):>9}  {rs[0]['release']}")
print(f"boot-to-init median: vplat {med['vplat']:.1f} s, qemu {med['qemu']:.1f} s, "
      f"ratio {med['vplat'] / med['qemu']:.1f}")
# Each run's vplat boot against the QEMU boot next to it (the two ran back to back): the host's speed drifts
# by tens of percent over minutes, and a drift shared by both boots of a pair cancels in its ratio.
paired = [v["banner"] / q["banner"] for v, q in zip(results["vplat"], results["qemu"])]
print("paired ratios, run by run: " + " ".join(f"{x:.2f}" for x in paired) +
      f"; median {statistics.median(paired):.2f}")
EOF

exec python3 -c "$prog" "$build/vplat" "$qemu" "$images/Image" "$images/initramfs.cpio.gz" "$runs" "$timeout"
