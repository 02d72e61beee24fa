#!/usr/bin/env python3
"""Runs a command that runs the GPU workload suite (guest-images/workloads/run-suite.sh, natively or inside a
guest), timestamps each output line on arrival, and prints one table row per workload of the suite file.

    gpu_suite.py --suite FILE --log FILE [--timeout S] [--stats FILE.json --console-log FILE] -- COMMAND [ARGS...]

The command's output is saved to the log. Host seconds per workload are from its WLSTART line to its result
line, measured here (a guest's own clock is virtual). Exit status: 0 if every workload passed, 77 if every
workload skipped, 1 if any failed, crashed, never ran or the whole run timed out.

GPU model columns (guest runs): with --stats (vplat's --stats JSON, written with --stats-host-time) and
--console-log (vplat's --console-log: each console line prefixed with its virtual time in ticks), each GPU job
is attributed to the workload whose WLSTART..WLEND interval of virtual time contains the job's start. One boot
runs every program one after another, so these intervals do not overlap, and no guest change is needed: the
markers are run-suite.sh's own lines. The table then gives per workload the GPU thread-instructions executed,
the host seconds the shader cores spent on its jobs, their ratio (the simulation rate), and the timing
models' estimate (GPU cycles and microseconds, summed over the workload's jobs; marked "*" when some job has
none, as a job that faults).
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time


def parse_result(line):
    """'WORKLOAD name sizes VERDICT key=value ... [reason=text to the end]' -> dict, or None."""
    parts = line.split(" ")
    if len(parts) < 4 or parts[0] != "WORKLOAD":
        return None
    result = {"name": parts[1], "sizes": parts[2], "verdict": parts[3]}
    rest = parts[4:]
    for i, token in enumerate(rest):
        key, sep, value = token.partition("=")
        if not sep:
            continue
        if key == "reason":
            result["reason"] = " ".join([value] + rest[i + 1:])
            break
        result[key] = value
    if result["verdict"] not in ("PASS", "FAIL", "SKIP"):
        return None
    return result


def suite_names(path):
    names = []
    with open(path) as f:
        for line in f:
            words = line.split()
            if words and not words[0].startswith("#"):
                names.append(words[0])
    return names


def console_intervals(path):
    """vplat --console-log FILE -> {workload: [start tick, end tick]} from its WLSTART/WLEND lines."""
    spans = {}
    with open(path, errors="replace") as f:
        for raw in f:
            tick, sep, text = raw.rstrip("\n").partition(" ")
            if not sep or not tick.isdigit():
                continue
            words = text.split()
            if len(words) >= 2 and words[0] == "WLSTART":
                spans[words[1]] = [int(tick), None]
            elif len(words) >= 2 and words[0] == "WLEND" and words[1] in spans:
                spans[words[1]][1] = int(tick)
    return spans


def model_figures(stats_path, spans):
    """Sums vplat's per-job statistics over each workload's interval of virtual time.

    Returns ({workload: figures}, jobs not inside any interval). A workload still running at the end (no WLEND)
    keeps every job after its start."""
    with open(stats_path) as f:
        jobs = json.load(f)["gpu"]["jobs"]
    order = sorted(spans.items(), key=lambda kv: kv[1][0])
    figures, outside = {}, 0
    for job in jobs:
        counters = job.get("counters")
        if counters is None:
            continue  # not a compute job: no shader ran
        owner = None
        for name, (start, end) in order:
            if job["start"] >= start and (end is None or job["start"] <= end):
                owner = name
        if owner is None:
            outside += 1
            continue
        f = figures.setdefault(owner, {"jobs": 0, "thread_insns": 0, "model_s": 0.0, "timed": 0,
                                       "est_cycles": 0, "est_us": 0.0, "estimated": 0})
        f["jobs"] += 1
        f["thread_insns"] += counters["thread_instructions"]
        if "host_seconds" in job:
            f["model_s"] += job["host_seconds"]
            f["timed"] += 1
        if "estimate" in job:
            f["est_cycles"] += job["estimate"]["cycles"]
            f["est_us"] += job["estimate"]["us"]
            f["estimated"] += 1
    return figures, outside


def model_columns(f):
    """The table's GPU-model cells of one workload ('-' where nothing was measured)."""
    if not f:
        return ["-"] * 5
    insns = str(f["thread_insns"])
    model_s = f"{f['model_s']:.3f}" if f["timed"] == f["jobs"] else "-"
    rate = f"{f['thread_insns'] / f['model_s']:.3g}" if model_s != "-" and f["model_s"] > 0 else "-"
    # A job that faults never completes and so has no estimate; the other jobs' sum is shown, marked with "*".
    mark = "" if f["estimated"] == f["jobs"] else "*"
    cycles = f"{f['est_cycles']}{mark}" if f["estimated"] else "-"
    us = f"{f['est_us']:.1f}{mark}" if f["estimated"] else "-"
    return [insns, model_s, rate, cycles, us]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--stats", help="vplat --stats JSON of the run (with --stats-host-time)")
    ap.add_argument("--console-log", help="vplat --console-log file of the run")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("no command")
    names = suite_names(args.suite)

    t0 = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    timed_out = threading.Event()

    def kill():
        timed_out.set()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(args.timeout, kill)
    timer.start()
    started, results, renderer = {}, {}, None
    suite_done = False
    with open(args.log, "w") as log:
        for raw in proc.stdout:
            now = time.monotonic()
            line = raw.decode(errors="replace").rstrip("\r\n").replace("\r", "")
            log.write(f"{now - t0:9.3f} {line}\n")
            words = line.split()
            if not words:
                continue
            if words[0] == "WLSTART" and len(words) == 2:
                started[words[1]] = now
            elif words[0] == "WORKLOAD":
                r = parse_result(line)
                if r:
                    r["host_s"] = now - started.get(r["name"], now)
                    results[r["name"]] = r
                    extra = f" ({r['reason']})" if "reason" in r else ""
                    print(f"  {r['name']}: {r['verdict']} in {r['host_s']:.1f} s{extra}", flush=True)
            elif words[0] == "WLEND" and len(words) == 3:
                name, status = words[1], words[2]
                if name not in results:
                    results[name] = {"name": name, "sizes": "-", "verdict": "FAIL",
                                     "reason": f"no result line (exit status {status})",
                                     "host_s": now - started.get(name, now)}
                    print(f"  {name}: FAIL, no result line (exit status {status})", flush=True)
                elif status not in ("0", "77") and results[name]["verdict"] == "PASS":
                    results[name]["verdict"] = "FAIL"
                    results[name]["reason"] = f"printed PASS but exited with status {status}"
            elif words[0] == "WLSUITE":
                suite_done = True
            elif renderer is None and "GL_RENDERER=" in line and line.startswith("# "):
                renderer = line.split("GL_RENDERER=", 1)[1].split(", GL_VERSION=")
            elif renderer is None and " OpenCL platform=" in line and line.startswith("# "):
                renderer = line.split("platform=", 1)[1].split(", version=")
    status = proc.wait()
    timer.cancel()
    total = time.monotonic() - t0

    if renderer:
        print(f"renderer: {renderer[0]}" + (f", {renderer[1].split(',')[0]}" if len(renderer) > 1 else ""))
    rows = []
    for name in names:
        r = results.get(name)
        if r is None:
            why = "killed by the suite timeout" if timed_out.is_set() else "never ran"
            if name in started:
                why = "started, no result" + (" (suite timeout)" if timed_out.is_set() else "")
            r = {"name": name, "sizes": "-", "verdict": "FAIL", "reason": why}
        rows.append(r)
    for name, r in results.items():
        if name not in names:
            rows.append(r)
    figures = None
    if args.stats and args.console_log:
        try:
            figures, outside = model_figures(args.stats, console_intervals(args.console_log))
            if outside:
                print(f"{outside} compute jobs ran outside every workload (e.g. during boot)")
        except (OSError, ValueError, KeyError) as e:
            print(f"no GPU model columns: {e}")
    w_name = max([len("kernel")] + [len(r["name"]) for r in rows])
    w_sizes = max([len("sizes")] + [len(r["sizes"]) for r in rows])
    model_head = ["thread insns", "model s", "insns/s", "est cycles", "est us"]
    cells = {r["name"]: model_columns(figures.get(r["name"])) for r in rows} if figures is not None else {}
    widths = [max([len(h)] + [len(c[i]) for c in cells.values()]) for i, h in enumerate(model_head)]
    head = "".join(f"  {h:>{w}}" for h, w in zip(model_head, widths)) if figures is not None else ""
    print(f"{'kernel':<{w_name}}  {'sizes':<{w_sizes}}  {'GPU jobs':>8}  {'GPU s':>7}  {'host s':>7}{head}  result")
    for r in rows:
        host = f"{r['host_s']:.2f}" if "host_s" in r else "-"
        note = f"  {r['reason']}" if r["verdict"] != "PASS" and "reason" in r else ""
        model = "".join(f"  {c:>{w}}" for c, w in zip(cells[r["name"]], widths)) if figures is not None else ""
        print(f"{r['name']:<{w_name}}  {r['sizes']:<{w_sizes}}  {r.get('gpu_jobs', '-'):>8}  "
              f"{r.get('gpu_s', '-'):>7}  {host:>7}{model}  {r['verdict']}{note}")
    partial = [f"{name} {figures[name]['estimated']} of {figures[name]['jobs']}" for name in cells
               if figures.get(name) and 0 < figures[name]["estimated"] < figures[name]["jobs"]]
    if partial:
        print(f"* estimate of the jobs that completed (jobs with an estimate: {', '.join(partial)})")
    passed = sum(r["verdict"] == "PASS" for r in rows)
    skipped = sum(r["verdict"] == "SKIP" for r in rows)
    failed = len(rows) - passed - skipped
    print(f"{len(rows)} workloads: {passed} PASS, {failed} FAIL, {skipped} SKIP; {total:.1f} s in all; "
          f"command exit status {status}{', timed out' if timed_out.is_set() else ''}; log {args.log}")
    if failed or timed_out.is_set() or not suite_done:
        if not suite_done and not failed:
            print("the suite did not finish (no WLSUITE line)")
        return 1
    if skipped == len(rows):
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
