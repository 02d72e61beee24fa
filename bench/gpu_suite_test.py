#!/usr/bin/env python3
"""Tests of gpu_suite.py's per-workload GPU-model columns and of shader-diff.py, on hand-made inputs: a console
log with virtual times, a --stats JSON, a shader dump and a console with Mesa listings. Expected values are
worked out by hand in the comments."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


suite = load("gpu_suite", "gpu_suite.py")

CONSOLE = """\
100 [    1.0] boot message
200 WLSTART vecadd
250 # GL_RENDERER=Mali-G71
400 WORKLOAD vecadd n=4000 PASS gpu_jobs=2
410 WLEND vecadd 0
500 WLSTART reduce
900 WLEND reduce 1
950 WLSTART scan
"""


def job(start, insns, host=None, cycles=None, us=None):
    j = {"type": "Compute", "start": start, "end": start + 5, "counters": {"thread_instructions": insns}}
    if host is not None:
        j["host_seconds"] = host
    if cycles is not None:
        j["estimate"] = {"cycles": cycles, "us": us, "bound": "engine", "n_par": 1}
    return j


STATS = {"gpu": {"jobs": [
    job(150, 7, 0.1, 10, 0.01),          # during boot: no workload
    job(300, 1000, 0.5, 2000, 2.0),      # vecadd
    {"type": "WriteValue", "start": 320, "end": 321},  # no shader: not counted
    job(390, 3000, 1.5, 1000, 1.0),      # vecadd
    job(600, 500, None, 300, 0.3),       # reduce, no host time measured
    job(1000, 40, 0.02),                 # scan (still running at the end), no estimate
    job(1100, 60, 0.03, 500, 0.5),       # scan again, with an estimate
]}}


class ModelColumns(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.console = os.path.join(self.dir.name, "run.console.log")
        self.stats = os.path.join(self.dir.name, "stats.json")
        with open(self.console, "w") as f:
            f.write(CONSOLE)
        with open(self.stats, "w") as f:
            json.dump(STATS, f)

    def tearDown(self):
        self.dir.cleanup()

    def test_intervals(self):
        self.assertEqual(suite.console_intervals(self.console),
                         {"vecadd": [200, 410], "reduce": [500, 900], "scan": [950, None]})

    def test_attribution_and_columns(self):
        figures, outside = suite.model_figures(self.stats, suite.console_intervals(self.console))
        self.assertEqual(outside, 1)  # the boot-time job
        # vecadd: 1000 + 3000 instructions in 0.5 + 1.5 s = 2000 per second; 3000 cycles, 3.0 us.
        self.assertEqual(suite.model_columns(figures["vecadd"]), ["4000", "2.000", "2e+03", "3000", "3.0"])
        # reduce: its one job has no host time: no model seconds and no rate.
        self.assertEqual(suite.model_columns(figures["reduce"]), ["500", "-", "-", "300", "0.3"])
        # scan: 40 + 60 instructions in 0.02 + 0.03 s = 2000 per second; one of its two jobs has an estimate,
        # so its 500 cycles and 0.5 us are shown marked as partial.
        self.assertEqual(suite.model_columns(figures["scan"]), ["100", "0.050", "2e+03", "500*", "0.5*"])
        # No job with an estimate: nothing to show.
        no_estimate = {"jobs": 1, "thread_insns": 40, "model_s": 0.02, "timed": 1, "est_cycles": 0, "est_us": 0.0,
                       "estimated": 0}
        self.assertEqual(suite.model_columns(no_estimate), ["40", "0.020", "2e+03", "-", "-"])
        self.assertEqual(suite.model_columns(None), ["-"] * 5)


MESA_CONSOLE = """\
shader: MESA_SHADER_COMPUTE
name: GLSL2
clause_0:
ds(0) nbb r_uncond
{
    *NOP t0
    +MOV.i32 t1, u1.w0
}

clause_1:
ds(0) eos store
{
    *NOP t0
    +STORE.i32 t1, r0, t1, @r1
}

shader: MESA_SHADER_FRAGMENT
name: GLSL0
clause_0:
ds(0) eos atest
{
    *NOP t0
    +NOP t1
}

some other output
"""

OURS_SAME = """clause_0:
ds(0) nbb r_uncond \n{
*NOP t0
+MOV.i32 t1, u1.w0
}

clause_1:
ds(0) eos store \n{
*NOP t0
+STORE.i32 t1, r0, t1, @r1
}

"""


class ShaderDiff(unittest.TestCase):
    def run_diff(self, ours):
        with tempfile.TemporaryDirectory() as d:
            console = os.path.join(d, "console.txt")
            dump = os.path.join(d, "shaders")
            os.mkdir(dump)
            with open(console, "w") as f:
                f.write(MESA_CONSOLE)
            with open(os.path.join(dump, "as0_0000000000001000_0123.txt"), "w") as f:
                f.write(ours)
            p = subprocess.run([sys.executable, os.path.join(HERE, "shader-diff.py"), console, dump],
                               capture_output=True, text=True)
            return p.returncode, p.stdout

    def test_identical_after_formatting(self):
        rc, out = self.run_diff(OURS_SAME)
        self.assertEqual(rc, 0, out)
        self.assertIn("identical to Mesa listing 0, compute shader GLSL2 (2 clauses", out)
        self.assertIn("Mesa listing 1, fragment shader GLSL0 (1 clauses): no job ran it", out)

    def test_a_real_difference_is_reported(self):
        rc, out = self.run_diff(OURS_SAME.replace("u1.w0", "u2.w0"))
        self.assertEqual(rc, 1, out)
        self.assertIn("-+MOV.i32 t1, u1.w0", out)
        self.assertIn("++MOV.i32 t1, u2.w0", out)


if __name__ == "__main__":
    unittest.main()
