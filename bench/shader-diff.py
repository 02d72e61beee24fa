#!/usr/bin/env python3
"""Shader cross-check (issue #7): Mesa's disassembly of the shaders it compiled against vplat's disassembly of
the shaders the emulated GPU ran.

    shader-diff.py CONSOLE DUMP_DIR

CONSOLE: the guest's console output of a run with BIFROST_MESA_DEBUG=shaders in the guest's environment (Mesa
then prints, on stdout, its disassembly of every shader it compiles, among NIR and IR listings); a plain log or
vplat's --console-log file (lines prefixed with virtual ticks). DUMP_DIR: vplat's --dump-shaders directory
(as<N>_<entry>_<hash>.txt, one per distinct shader a job ran).

A Mesa listing is the run of lines from "clause_0:" to the first clause whose "}" is not followed by another
"clause_N:" label. Both sides are normalised for pure formatting only: trailing blanks, runs of blanks, blank
lines, carriage returns, and the spelling differences in FORMAT_RULES (each names where it comes from; the
script says how many lines each rule changed). Each executed shader is matched to the Mesa listing with the
same text; when there is none, to the most similar listing with the same number of clauses, and the differing
lines are printed. Mesa listings no job ran are listed with what they are (the model runs compute jobs only).
Exit status: 0 when every executed shader has an identical Mesa listing, 1 otherwise, 2 on missing input.
"""
import difflib
import os
import re
import sys

LABEL = re.compile(r"^clause_(\d+):$")
TICKS = re.compile(r"^\d+ ")


# Spelling differences that carry no information, applied to both sides as (name, pattern, replacement). None
# are needed at present: the header's "ds(N)" once differed (a literal "u") and was fixed in the description.
FORMAT_RULES = []


def console_lines(path):
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n").replace("\r", "")
            # vplat --console-log prefixes each line with its virtual time; the console itself does not.
            if path.endswith(".console.log") or TICKS.match(line):
                line = TICKS.sub("", line, count=1)
            yield line


def mesa_listings(lines):
    """Every disassembly listing in the console, in the order Mesa printed them, each with the stage and name of
    the NIR listing Mesa printed before it ("shader: MESA_SHADER_COMPUTE", "name: ...")."""
    listings, current, after_clause = [], None, False
    stage = name = label = "?"

    def close():
        listings.append((current, label))

    for line in lines:
        text = line.strip()
        if text.startswith("shader: MESA_SHADER_"):
            stage, name = text.split(": ", 1)[1], "?"
        elif text.startswith("name: "):
            name = text[6:]
        m = LABEL.match(text)
        if m and m.group(1) == "0" and (current is None or after_clause):
            if current:
                close()
            current, after_clause = [text], False
            label = f"{stage.replace('MESA_SHADER_', '').lower()} shader {name}"
            continue
        if current is None:
            continue
        if after_clause:
            if not text:
                continue
            if m:
                current.append(text)
                after_clause = False
                continue
            close()  # the listing ended after its last clause
            current, after_clause = None, False
            continue
        current.append(line)
        if text == "}":
            after_clause = True
    if current:
        close()
    return listings


def normalise(lines, rule_hits=None):
    out = []
    for line in lines:
        line = " ".join(line.split())
        for i, (_, pattern, repl) in enumerate(FORMAT_RULES):
            line, n = pattern.subn(repl, line)
            if rule_hits is not None and n:
                rule_hits[i] += n
        if line:
            out.append(line)
    return out


def clause_count(lines):
    return sum(1 for line in lines if LABEL.match(line))


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    console, dump = sys.argv[1], sys.argv[2]
    if not os.path.isfile(console) or not os.path.isdir(dump):
        print(f"shader-diff: need a console log and a dump directory ({console}, {dump})", file=sys.stderr)
        return 2
    found = mesa_listings(console_lines(console))
    mesa = [normalise(listing) for listing, _ in found]
    what = [label for _, label in found]
    ours, rule_hits = {}, [0] * len(FORMAT_RULES)
    for name in sorted(os.listdir(dump)):
        if name.endswith(".txt"):
            with open(os.path.join(dump, name)) as f:
                ours[name] = normalise(f.read().split("\n"), rule_hits)
    print(f"shader-diff: {len(mesa)} Mesa listings in {console}, {len(ours)} executed shaders in {dump}")
    if not mesa:
        print("no Mesa disassembly in the console: was BIFROST_MESA_DEBUG=shaders set in the guest?")
    used, differing = set(), 0
    for name, text in ours.items():
        same = [i for i, m in enumerate(mesa) if m == text]
        if same:
            used.update(same)
            print(f"  {name}: identical to Mesa listing {same[0]}, {what[same[0]]} ({clause_count(text)} clauses, "
                  f"{len(text)} lines)")
            continue
        differing += 1
        candidates = [i for i, m in enumerate(mesa) if clause_count(m) == clause_count(text)] or range(len(mesa))
        best = max(candidates, key=lambda i: difflib.SequenceMatcher(None, mesa[i], text).ratio(), default=None)
        if best is None:
            print(f"  {name}: no Mesa listing to compare with")
            continue
        used.add(best)
        diff = list(difflib.unified_diff(mesa[best], text, f"mesa listing {best}", name, n=1, lineterm=""))
        changed = sum(1 for d in diff if d[:1] in "+-" and not d.startswith(("+++", "---")))
        print(f"  {name}: differs from Mesa listing {best}, {what[best]} ({changed} changed lines):")
        for d in diff:
            print(f"    {d}")
    for i, (label, _, _) in enumerate(FORMAT_RULES):
        print(f"  formatting rule '{label}': {rule_hits[i]} lines of our disassembly")
    for i in range(len(mesa)):
        if i not in used:
            # The model runs compute jobs only: Mesa's internal vertex/fragment shaders (blits, clears) never run.
            print(f"  Mesa listing {i}, {what[i]} ({clause_count(mesa[i])} clauses): no job ran it")
    print(f"shader-diff: {len(ours) - differing} of {len(ours)} executed shaders identical to Mesa's disassembly")
    return 0 if ours and not differing else 1


if __name__ == "__main__":
    sys.exit(main())
