#!/usr/bin/env bash
# CPU-heavy guest workloads on vplat and on QEMU (informative):
#   bench/cpu-workloads.sh [BUILD_DIR]
# Builds (or reuses) the guest variant of guest-images/build-cpu-workloads.sh: the default image plus Debian arm64
# sha256sum, gzip, bzip2, xz, zstd and a 20 MiB deterministic input. Both emulators boot it with
# `vplat.cmd=vplat-cpu-workloads` (bench/cpu-workloads-guest.sh), which prints a begin and an end marker around
# each workload; the host timestamps each marker line as it arrives (the guest's clock is virtual under vplat).
# Prints per-workload host seconds (median of RUNS), the ratio of the totals vplat/QEMU, whether each output's
# sha256 equals the one the host's own tools give on the same input, and the peak resident memory of each
# emulator (/usr/bin/time -f %M).
# Environment: RUNS (runs per emulator, default 3), CPU_TIMEOUT (seconds per run, default 1200),
# CPU_WORKLOADS (comma-separated names: only those workloads, e.g. shell-loop,zstd-3),
# CPU_REPEAT (1-9, default 1: each workload that many times in a row in one boot, the k-th run named NAME@k;
# the summary adds a total per repeat and the warm-up, the first run's total less the last's),
# CPU_ASLR (1 or 0, default 1; 0: the guest's address-space randomisation off, so that repeats of a program
# find its shared libraries where the first run translated them),
# CPU_IMAGE_DIR (default BUILD_DIR/guest-cpu), CPU_BASE_IMAGE_DIR (default BUILD_DIR/guest),
# QEMU (default qemu-system-aarch64).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-build}
runs=${RUNS:-3}
timeout=${CPU_TIMEOUT:-1200}
repeat=${CPU_REPEAT:-1}
aslr=${CPU_ASLR:-1}
images=${CPU_IMAGE_DIR:-$build/guest-cpu}
base=${CPU_BASE_IMAGE_DIR:-$build/guest}
qemu=${QEMU:-qemu-system-aarch64}

die() { echo "cpu-workloads.sh: $*" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive whole number, not '$runs'"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "CPU_TIMEOUT must be a positive number of seconds, not '$timeout'"
[[ $repeat =~ ^[1-9]$ ]] || die "CPU_REPEAT must be a whole number from 1 to 9, not '$repeat'"
[[ $aslr =~ ^[01]$ ]] || die "CPU_ASLR must be 1 or 0, not '$aslr'"
[ -x "$build/vplat" ] || die "$build/vplat not built (run 'make build')"
command -v "$qemu" >/dev/null || die "$qemu not found (Debian package qemu-system-arm; scripts/install-deps.sh installs it)"
for t in python3 /usr/bin/time sha256sum gzip bzip2 xz zstd; do
  command -v "$t" >/dev/null || die "$t not found on the host (needed for the timing or the expected hashes)"
done

# The image depends on the base image and on the scripts that make its contents; rebuild when any is newer.
inputs=("$base/Image" "$base/initramfs.cpio.gz" "$here/../guest-images/build-cpu-workloads.sh"
        "$here/cpu-input.py" "$here/cpu-workloads-guest.sh")
stale=0
for f in initramfs.cpio.gz Image cpu-input; do [ -f "$images/$f" ] || stale=1; done
if [ $stale = 0 ]; then
  for f in "${inputs[@]}"; do [ "$f" -nt "$images/initramfs.cpio.gz" ] && stale=1; done
fi
if [ $stale = 1 ]; then
  for f in Image initramfs.cpio.gz; do [ -f "$base/$f" ] || die "no base image $base/$f (run 'make image')"; done
  "$here/../guest-images/build-cpu-workloads.sh" "$base" "$images" >&2
fi

read -r -d '' prog <<'PYEOF' || true
import hashlib, os, re, select, signal, statistics, subprocess, sys, tempfile, time

vplat, qemu, kernel, initrd, host_input, runs, timeout, only, repeat, aslr = sys.argv[1:11]
runs, timeout, repeat = int(runs), float(timeout), int(repeat)
append = "console=ttyAMA0 vplat.cmd=vplat-cpu-workloads"
all_workloads = ["sha256sum", "gzip-6", "gunzip", "bzip2-9", "xz-1", "zstd-3", "zstd-9", "shell-loop"]
workloads = all_workloads
if only:
    named = only.split(",")
    workloads = [w for w in all_workloads if w in named]
    unknown = [w for w in named if w not in all_workloads]
    if unknown or not workloads:
        sys.exit(f"cpu-workloads.sh: CPU_WORKLOADS names {' '.join(unknown) or 'nothing'}; "
                 f"known: {','.join(all_workloads)}")
    append += " vplat.cpu-only=" + ",".join(workloads)
if repeat > 1:
    append += f" vplat.cpu-repeat={repeat}"
if aslr == "0":
    append += " vplat.cpu-aslr=0"
# The timed spans: each workload's runs in the order the guest makes them (NAME, NAME@2, ...).
def tag(w, k):
    return w if k == 1 else f"{w}@{k}"
spans = [tag(w, k) for w in workloads for k in range(1, repeat + 1)]
def workload_of(span):
    return span.split("@")[0]
commands = {
    "vplat": [vplat, "--platform", "juno", "--memory", "1G", "--kernel", kernel, "--initrd", initrd,
              "--append", append],
    "qemu": [qemu, "-M", "virt", "-cpu", "cortex-a57", "-smp", "1", "-m", "1G", "-nographic", "-nic", "none",
             "-no-reboot", "-kernel", kernel, "-initrd", initrd, "-append", append + " panic=-1"],
}

# Expected outputs, from the host's own (x86-64) tools on the same input bytes. The compressors are the same
# upstream versions as the guest's (both Debian bookworm), and their output depends only on data and options.
def sha(data):
    return hashlib.sha256(data).hexdigest()
def host_tool(*cmd, from_file=False):
    # Called the way the guest calls it: zstd records the content size in its frame header only when it reads
    # a file, so reading stdin instead would give a different (equally valid) stream.
    with open(host_input, "rb") as f:
        args = list(cmd) + ([host_input] if from_file else [])
        return subprocess.run(args, stdin=None if from_file else f, stdout=subprocess.PIPE, check=True).stdout
data = open(host_input, "rb").read()
expected = {
    "sha256sum": sha(f"{sha(data)}  /opt/cpu-input\n".encode()),
    "gzip-6": sha(host_tool("gzip", "-6", "-n", "-c")),
    "gunzip": sha(data),
    "bzip2-9": sha(host_tool("bzip2", "-9", "-c", from_file=True)),
    "xz-1": sha(host_tool("xz", "-1", "-T1", "-c", from_file=True)),
    "zstd-3": sha(host_tool("zstd", "-3", "-q", "-c", from_file=True)),
    "zstd-9": sha(host_tool("zstd", "-9", "-q", "-c", from_file=True)),
    "shell-loop": sha(b"300000\n"),
}
del data

marker_re = re.compile(rb"vplat-cpu: (begin|end|sha256|roundtrip|failed) (\S+)(?: ([0-9a-f]{64}))?")
roundtrip = {"zstd-3", "zstd-9"} & set(workloads)
done_re = re.compile(rb"vplat-cpu: done")

def run_one(name):
    """Runs the guest once; returns begin/end times per workload (seconds from start), hashes, peak RSS."""
    err = tempfile.TemporaryFile()
    rss_file = tempfile.NamedTemporaryFile(delete=False)
    rss_file.close()
    t0 = time.monotonic()
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_file.name] + commands[name],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, start_new_session=True)
    r = {"begin": {}, "end": {}, "hash": {}, "roundtrip": {}, "failed": [], "done": False, "timed_out": False, "tail": []}
    pending = b""
    def line_done(line, now):
        line = line.rstrip(b"\r")
        m = marker_re.search(line)
        if m:
            kind, w = m.group(1).decode(), m.group(2).decode()
            if kind in ("begin", "end"):
                r[kind][w] = now - t0
            elif kind == "sha256" and m.group(3):
                r["hash"][w] = m.group(3).decode()
            elif kind == "roundtrip" and m.group(3):
                r["roundtrip"][w] = m.group(3).decode()
            elif kind == "failed":
                r["failed"].append(w)
        elif done_re.search(line):
            r["done"] = True
        r["tail"].append(line.decode(errors="replace"))
        del r["tail"][:-30]
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
        now = time.monotonic()
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            line_done(line, now)
    if pending:
        line_done(pending, time.monotonic())
    r["rc"] = p.wait()
    r["wall"] = time.monotonic() - t0
    p.stdout.close()
    try:
        # /usr/bin/time writes "Command exited with non-zero status N" before the figure when the child fails.
        r["rss_kib"] = int(open(rss_file.name).read().split()[-1])
    except (ValueError, IndexError):
        r["rss_kib"] = None
    os.unlink(rss_file.name)
    err.seek(0)
    r["stderr"] = err.read().decode(errors="replace").strip().splitlines()[-10:]
    return r

print(f"host: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start; "
      f"{runs} runs each, timeout {timeout:.0f} s")
print(f"{'run':>3}  {'emulator':<8} {'total s':>8} {'wall s':>8} {'peak MiB':>9}  {'rc':>3}  note", flush=True)
results = {"vplat": [], "qemu": []}
for i in range(runs):
    # Alternate which emulator goes first so a trend in the host's load hits both alike.
    for name in (("vplat", "qemu") if i % 2 == 0 else ("qemu", "vplat")):
        r = run_one(name)
        missing = [w for w in spans if w not in r["begin"] or w not in r["end"] or w not in r["hash"]]
        r["secs"] = {w: r["end"][w] - r["begin"][w] for w in spans if w in r["begin"] and w in r["end"]}
        # "total": the first runs' sum (the benchmark's figure); totals[k]: the k-th runs'.
        r["totals"] = {k: sum(r["secs"][tag(w, k)] for w in workloads) for k in range(1, repeat + 1)} \
            if not missing else None
        r["total"] = r["totals"][1] if r["totals"] else None
        note = []
        if r["timed_out"]:
            note.append(f"killed after {timeout:.0f} s")
        if missing:
            note.append("missing: " + " ".join(missing))
        if r["failed"]:
            note.append("failed: " + " ".join(r["failed"]))
        wrong = [w for w in spans if w in r["hash"] and r["hash"][w] != expected[workload_of(w)]]
        wrong += [f"{w} (round trip)" for w in roundtrip if r["roundtrip"].get(w) != expected["gunzip"]]
        if wrong:
            note.append("output differs from the host's: " + " ".join(wrong))
        rss = "-" if r["rss_kib"] is None else f"{r['rss_kib'] / 1024:.0f}"
        total = "-" if r["total"] is None else f"{r['total']:.2f}"
        print(f"{i + 1:>3}  {name:<8} {total:>8} {r['wall']:>8.2f} {rss:>9}  "
              f"{'-' if r['timed_out'] else r['rc']:>3}  {', '.join(note)}", flush=True)
        # Each run's own figures, so a long series that is stopped early still shows what it measured.
        print("     " + "  ".join(f"{w} {r['secs'][w]:.2f}" for w in spans if w in r["secs"]), flush=True)
        if missing or r["failed"] or wrong:
            print(f"--- {name}: last lines of stdout:", file=sys.stderr)
            print("\n".join(r["tail"]) or "(none)", file=sys.stderr)
            if r["stderr"]:
                print(f"--- {name}: stderr:", file=sys.stderr)
                print("\n".join(r["stderr"]), file=sys.stderr)
            print(f"cpu-workloads.sh: {name} run {i + 1} did not complete correctly; command: "
                  f"{' '.join(commands[name])}", file=sys.stderr)
            sys.exit(1)
        results[name].append(r)

def ratio(a, b):
    return f"{a / b:.2f}" if b > 0 else "-"

print()
print(f"median of {runs} (host seconds from begin to end marker; output sha256 checked against the host's tools)")
# "paired": the median of the runs' own ratios, each run's vplat figure against the QEMU run next to it (the
# two ran back to back): the host's speed drifts by tens of percent over minutes, and a drift shared by both
# runs of a pair cancels in its ratio.
def paired(figure):
    ratios = [figure(v) / figure(q) for v, q in zip(results["vplat"], results["qemu"]) if figure(q) > 0]
    return f"{statistics.median(ratios):.2f}" if ratios else "-"

print(f"{'workload':<11} {'vplat s':>9} {'qemu s':>9} {'ratio':>7} {'paired':>7}  output")
for w in spans:
    v = statistics.median(r["secs"][w] for r in results["vplat"])
    q = statistics.median(r["secs"][w] for r in results["qemu"])
    print(f"{w:<11} {v:>9.2f} {q:>9.2f} {ratio(v, q):>7} {paired(lambda r: r['secs'][w]):>7}  "
          f"identical to host ({expected[workload_of(w)][:16]}...)")
if roundtrip:
    print(f"{', '.join(sorted(roundtrip))}: the decompressed round trip (untimed) is the input as well")
tv = statistics.median(r["total"] for r in results["vplat"])
tq = statistics.median(r["total"] for r in results["qemu"])
print(f"{'total':<11} {tv:>9.2f} {tq:>9.2f} {ratio(tv, tq):>7} {paired(lambda r: r['total']):>7}")
for k in range(2, repeat + 1):
    v = statistics.median(r["totals"][k] for r in results["vplat"])
    q = statistics.median(r["totals"][k] for r in results["qemu"])
    print(f"{'total @' + str(k):<11} {v:>9.2f} {q:>9.2f} {ratio(v, q):>7} {paired(lambda r: r['totals'][k]):>7}")
if repeat > 1:
    # What the first runs cost over the last ones: mostly translation (and, with CPU_ASLR=1, shared libraries
    # translated again at their new addresses in every run).
    warm = {n: statistics.median(r["totals"][1] - r["totals"][repeat] for r in results[n]) for n in results}
    print(f"warm-up (median of total - total @{repeat}): vplat {warm['vplat']:.2f} s, qemu {warm['qemu']:.2f} s"
          f"{' (address-space randomisation off)' if aslr == '0' else ''}")
mv = statistics.median(r["rss_kib"] for r in results["vplat"] if r["rss_kib"] is not None) / 1024
mq = statistics.median(r["rss_kib"] for r in results["qemu"] if r["rss_kib"] is not None) / 1024
print(f"peak resident memory (median): vplat {mv:.0f} MiB, qemu {mq:.0f} MiB (guest RAM 1 GiB in both)")
print(f"ratio of totals vplat/qemu: {ratio(tv, tq)}")
PYEOF

exec python3 -c "$prog" "$build/vplat" "$qemu" "$images/Image" "$images/initramfs.cpio.gz" "$images/cpu-input" \
  "$runs" "$timeout" "${CPU_WORKLOADS:-}" "$repeat" "$aslr"
