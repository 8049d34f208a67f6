"""End-to-end tests of compat-tests/run-matrix with a fake nvcc and a fake
`ferry run`, so every verdict, the build stamps, the expectations check
(regression, stale, --update-expectations) and the skip code are exercised
in seconds without CUDA. The fake nvcc turns `-o DIR/<variant>/<app>` into a
shell script that runs BEHAVIOUR/<app>.<variant>.sh; the fake ferry execs
what follows `--` (and hands `matrix` to the real tool when FERRY_TOOL is
set)."""

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import tomllib
import unittest

sys.dont_write_bytecode = True
ROOT = os.environ.get("FERRY_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "compat-tests", "run-matrix")
FERRY = os.environ.get("FERRY_TOOL", "")

# Real app names, since the runner hashes apps/<app>/ for its build stamps;
# the fake nvcc never reads the sources.
CORPUS = """
[variants.default]
flags = []
[variants.other]
flags = ["-DOTHER"]
[apps.vecadd]
sources = ["vecadd.cu"]
labels = ["basic"]
variants = ["default", "other"]
[apps.scan]
sources = ["scan.cu"]
variants = ["default", "other"]
[apps.bfs]
sources = ["bfs.cu"]
variants = ["default"]
[apps.fft]
sources = ["fft.cu"]
variants = ["default", "other"]
tolerance = 0.01
"""

FAKE_NVCC = """#!/usr/bin/env python3
import os, sys
B = os.environ["FAKE_BEHAVIOUR"]
Out = sys.argv[sys.argv.index("-o") + 1]
App, Variant = os.path.basename(Out), os.path.basename(os.path.dirname(Out))
with open(os.path.join(B, "nvcc.log"), "a") as F:
    F.write(" ".join(sys.argv[1:]) + "\\n")
if os.path.exists(os.path.join(B, f"{App}.{Variant}.nvcc-fails")):
    print("apps/x.cu(3): error: identifier \\"nope\\" is undefined", file=sys.stderr)
    sys.exit(2)
with open(Out, "w") as F:
    F.write(f'#!/bin/sh\\nexec sh "{B}/{App}.{Variant}.sh" "$@"\\n')
os.chmod(Out, 0o755)
"""

FAKE_FERRY = """#!/bin/sh
if [ "$1" = matrix ] && [ -n "$REAL_FERRY" ]; then exec "$REAL_FERRY" "$@"; fi
[ "$1" = run ] || exit 3
[ "$2 $3" = "--backend host" ] || exit 4
while [ "$1" != "--" ]; do shift; done
shift
exec "$@"
"""

GOLDENS = {
    "vecadd/default.out": "vecadd sum=3\ntime: 1 ms\nPASSED\nexit-code: 0\n",
    "vecadd/other.out": "vecadd sum=3\ntime: 1 ms\nPASSED\nexit-code: 0\n",
    "scan/default.out": "scan ok\nPASSED\nexit-code: 0\n",
    "scan/other.out": "scan ok\nPASSED\nexit-code: 0\n",
    "bfs/default.out": "bfs\nPASSED\nexit-code: 0\n",
    "fft/other.out": "fft err=1.0\nPASSED\nexit-code: 0\n",
}

BEHAVIOUR = {
    # Different time line, same output: passes. Also records its environment.
    "vecadd.default.sh": 'echo vecadd sum=3; echo "time: 9 ms"; echo PASSED; '
                         'echo "$CUDA_CACHE_PATH" > "$FAKE_BEHAVIOUR/cache-path"; pwd > "$FAKE_BEHAVIOUR/cwd"',
    "vecadd.other.sh": "echo vecadd sum=3; echo PASSED",
    "scan.default.sh": "echo scan wrong; echo FAILED; exit 1",
    "scan.other.sh": "sleep 30",
    "fft.default.sh": "echo fft err=1.0; echo PASSED",
    "fft.other.sh": "echo fft err=1.005; echo PASSED",  # within tolerance 0.01
}


def writeExecutable(Path, Text):
    with open(Path, "w") as F:
        F.write(Text)
    os.chmod(Path, os.stat(Path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class RunMatrixTest(unittest.TestCase):
    def setUp(self):
        self.Tmp = tempfile.TemporaryDirectory()
        T = self.Tmp.name
        self.Build = os.path.join(T, "build")
        self.Behaviour = os.path.join(T, "behaviour")
        self.Corpus = os.path.join(T, "apps.toml")
        self.Goldens = os.path.join(T, "goldens")
        self.Expect = os.path.join(T, "expectations.toml")
        os.makedirs(os.path.join(self.Build, "bin"))
        os.makedirs(self.Behaviour)
        writeExecutable(os.path.join(self.Build, "bin", "ferry"), FAKE_FERRY)
        self.Nvcc = os.path.join(T, "nvcc")
        writeExecutable(self.Nvcc, FAKE_NVCC)
        with open(self.Corpus, "w") as F:
            F.write(CORPUS)
        for Rel, Text in GOLDENS.items():
            os.makedirs(os.path.join(self.Goldens, os.path.dirname(Rel)), exist_ok=True)
            with open(os.path.join(self.Goldens, Rel), "w") as F:
                F.write(Text)
        for Name, Text in BEHAVIOUR.items():
            with open(os.path.join(self.Behaviour, Name), "w") as F:
                F.write(Text + "\n")
        open(os.path.join(self.Behaviour, "bfs.default.nvcc-fails"), "w").close()

    def tearDown(self):
        self.Tmp.cleanup()

    def runMatrix(self, *Args, Nvcc=None):
        Env = dict(os.environ, NVCC=Nvcc or self.Nvcc, FAKE_BEHAVIOUR=self.Behaviour, PYTHONDONTWRITEBYTECODE="1")
        Env["REAL_FERRY"] = FERRY if FERRY and os.access(FERRY, os.X_OK) else ""
        # Every path the runner writes is redirected here, the committed
        # MATRIX.md included (a later --markdown-file overrides this one).
        Cmd = [sys.executable, RUNNER, "--build-dir", self.Build, "--corpus", self.Corpus, "--goldens", self.Goldens,
               "--expectations", self.Expect, "--markdown-file", os.path.join(self.Tmp.name, "unused-MATRIX.md"),
               "--timeout", "0.5", "-j", "2"]
        if not Env["REAL_FERRY"]:
            Cmd.append("--no-report")
        return subprocess.run(Cmd + list(Args), capture_output=True, text=True, env=Env, timeout=120)

    def results(self):
        with open(os.path.join(self.Build, "compat", "results.json")) as F:
            Data = json.load(F)
        return Data, {(C["app"], C["variant"]): C for C in Data["results"]}

    def nvccCalls(self):
        with open(os.path.join(self.Behaviour, "nvcc.log")) as F:
            return len(F.readlines())

    def test_verdicts_expectations_and_stamps(self):
        P = self.runMatrix()
        self.assertEqual(P.returncode, 1, P.stdout + P.stderr)
        Data, Cells = self.results()
        Verdicts = {K: C["verdict"] for K, C in Cells.items()}
        self.assertEqual(Verdicts, {("vecadd", "default"): "pass", ("vecadd", "other"): "pass",
                                    ("scan", "default"): "fail", ("scan", "other"): "timeout",
                                    ("bfs", "default"): "build-error", ("fft", "default"): "no-golden",
                                    ("fft", "other"): "pass"})
        self.assertEqual(Cells[("scan", "default")]["reason"], "expected 'scan ok', got 'scan wrong'")
        self.assertIn("identifier", Cells[("bfs", "default")]["reason"])
        self.assertLess(Cells[("scan", "other")]["seconds"], 10)  # killed at the timeout
        for C in Data["results"]:
            self.assertEqual(C["backend"], "host")
        self.assertEqual(Data["variants"], ["default", "other"])
        self.assertEqual(Data["apps"]["vecadd"]["labels"], ["basic"])
        # Each failing cell not in expectations is named as a regression.
        Regressions = sorted(L.split()[1] for L in P.stdout.splitlines() if L.startswith("REGRESSION"))
        self.assertEqual(Regressions, ["bfs/default:", "fft/default:", "scan/default:", "scan/other:"])
        # A fresh code cache under the build dir, and a scratch working directory.
        with open(os.path.join(self.Behaviour, "cache-path")) as F:
            self.assertEqual(F.read().strip(), os.path.join(self.Build, "compat", "cuda-cache"))
        with open(os.path.join(self.Behaviour, "cwd")) as F:
            Cwd = F.read().strip()
        self.assertNotEqual(os.path.realpath(Cwd), os.path.realpath(ROOT))
        self.assertFalse(os.path.exists(Cwd))
        with open(os.path.join(self.Build, "compat", "vecadd", "default", "run.out")) as F:
            self.assertEqual(F.read(), "vecadd sum=3\ntime: 9 ms\nPASSED\nexit-code: 0\n")
        Calls = self.nvccCalls()
        self.assertEqual(Calls, 7)

        # Writing the expectations makes the same state pass; nothing rebuilds.
        P = self.runMatrix("--update-expectations")
        self.assertEqual(P.returncode, 0, P.stdout + P.stderr)
        with open(self.Expect, "rb") as F:
            Expect = tomllib.load(F)
        self.assertEqual(Expect, {"bfs": {"default": Cells[("bfs", "default")]["verdict"] + ": "
                                          + Cells[("bfs", "default")]["reason"]},
                                  "fft": {"default": "no-golden: " + Cells[("fft", "default")]["reason"]},
                                  "scan": {"*": "fail: expected 'scan ok', got 'scan wrong'"}})
        P = self.runMatrix()
        self.assertEqual(P.returncode, 0, P.stdout + P.stderr)
        self.assertIn("all cells as expected", P.stdout)
        self.assertEqual(self.nvccCalls(), Calls)

        # A listed cell that now passes is stale.
        with open(os.path.join(self.Behaviour, "scan.default.sh"), "w") as F:
            F.write("echo scan ok; echo PASSED\n")
        P = self.runMatrix("--apps", "scan")
        self.assertEqual(P.returncode, 1, P.stdout + P.stderr)
        Stale = [L for L in P.stdout.splitlines() if L.startswith("STALE")]
        self.assertEqual(len(Stale), 1)
        self.assertIn("scan/default", Stale[0])
        self.assertFalse(any(L.startswith("REGRESSION") for L in P.stdout.splitlines()))

        # Changing a variant's flags rebuilds exactly that variant's cells.
        with open(self.Corpus, "w") as F:
            F.write(CORPUS.replace('"-DOTHER"', '"-DOTHER2"'))
        P = self.runMatrix("--build-only")
        self.assertEqual(P.returncode, 1)  # bfs still fails to build
        self.assertEqual(self.nvccCalls(), Calls + 3)

    def test_report_and_committed_markdown(self):
        if not (FERRY and os.access(FERRY, os.X_OK)):
            self.skipTest("FERRY_TOOL not set")
        Committed = os.path.join(self.Tmp.name, "MATRIX.md")
        with open(Committed, "w") as F:
            F.write("old\n")
        Check = ("--check-markdown", "--markdown-file", Committed)
        self.runMatrix("--apps", "vecadd,fft", "--markdown-file", Committed, "--update-expectations")
        with open(os.path.join(self.Build, "compat", "MATRIX.md")) as F:
            Md = F.read()
        self.assertIn("3 of 4 cells pass", Md)  # fft/default has no golden
        self.assertTrue(os.path.exists(os.path.join(self.Build, "compat", "matrix.html")))
        # A partial run neither refreshes nor vouches for the committed page.
        with open(Committed) as F:
            self.assertEqual(F.read(), "old\n")
        P = self.runMatrix(*Check)
        self.assertEqual(P.returncode, 1)
        self.assertIn("partial run", P.stdout)
        # A whole run: the committed page is stale until --update-expectations.
        self.runMatrix()
        P = self.runMatrix(*Check)
        self.assertEqual(P.returncode, 1)
        self.assertIn("-old", P.stdout)
        self.assertIn("out of date", P.stdout)
        self.assertIn("--update-expectations", P.stdout)
        self.assertEqual(self.runMatrix("--update-expectations", "--markdown-file", Committed).returncode, 0)
        P = self.runMatrix(*Check)
        self.assertEqual(P.returncode, 0, P.stdout)
        with open(Committed) as F:
            self.assertIn("3 of 7 cells pass", F.read())

    def test_bad_usage(self):
        P = self.runMatrix("--apps", "nosuchapp")
        self.assertEqual(P.returncode, 2)
        self.assertIn("nosuchapp", P.stdout)
        with open(self.Expect, "w") as F:
            F.write("[scan]\ndefault = 1\n")
        P = self.runMatrix()
        self.assertEqual(P.returncode, 2)
        self.assertIn("expectations.toml", P.stdout)

    def test_skips_without_nvcc(self):
        P = self.runMatrix(Nvcc=os.path.join(self.Tmp.name, "no-nvcc"))
        self.assertEqual(P.returncode, 77)
        self.assertFalse(os.path.exists(os.path.join(self.Build, "compat", "results.json")))


if __name__ == "__main__":
    unittest.main()
