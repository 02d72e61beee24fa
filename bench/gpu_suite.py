#!/usr/bin/env python3
"""Runs a command that runs the GPU workload suite (guest-images/workloads/run-suite.sh, natively or inside a
guest), timestamps each output line on arrival, and prints one table row per workload of the suite file.

    gpu_suite.py --suite FILE --log FILE [--timeout S] -- COMMAND [ARGS...]

The command's output is saved to the log. Host seconds per workload are from its WLSTART line to its result
line, measured here (a guest's own clock is virtual). Exit status: 0 if every workload passed, 77 if every
workload skipped, 1 if any failed, crashed, never ran or the whole run timed out.
"""
import argparse
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--timeout", type=float, default=3600)
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
    w_name = max([len("kernel")] + [len(r["name"]) for r in rows])
    w_sizes = max([len("sizes")] + [len(r["sizes"]) for r in rows])
    print(f"{'kernel':<{w_name}}  {'sizes':<{w_sizes}}  {'GPU jobs':>8}  {'GPU s':>7}  {'host s':>7}  result")
    for r in rows:
        host = f"{r['host_s']:.2f}" if "host_s" in r else "-"
        note = f"  {r['reason']}" if r["verdict"] != "PASS" and "reason" in r else ""
        print(f"{r['name']:<{w_name}}  {r['sizes']:<{w_sizes}}  {r.get('gpu_jobs', '-'):>8}  "
              f"{r.get('gpu_s', '-'):>7}  {host:>7}  {r['verdict']}{note}")
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
