"""Unit tests of compat-tests/corpus.py: README's comparison rules (masking,
tolerance, exit code) and the expectations logic (regression vs stale, the
rewrite). Expected values come from the rules as README and apps.toml state
them, not from running the code."""

import os
import sys
import tempfile
import tomllib
import unittest

sys.dont_write_bytecode = True
ROOT = os.environ.get("FERRY_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "compat-tests"))
import corpus  # noqa: E402

GOLDEN = "vecadd n=100 sum=1.5\ntime: 3.2 ms\nPASSED\nexit-code: 0\n"


class CompareTest(unittest.TestCase):
    def test_identical_passes(self):
        self.assertIsNone(corpus.compare(GOLDEN, "vecadd n=100 sum=1.5\ntime: 3.2 ms\nPASSED\n", 0))

    def test_time_lines_are_masked_on_both_sides(self):
        self.assertIsNone(corpus.compare(GOLDEN, "vecadd n=100 sum=1.5\ntime: 99 ms\nPASSED\n", 0))
        self.assertIsNone(corpus.compare(GOLDEN, "vecadd n=100 sum=1.5\nPASSED\n", 0))
        self.assertIsNone(corpus.compare(GOLDEN, "time: a\nvecadd n=100 sum=1.5\nPASSED\ntime: b\n", 0))
        # Only lines that start with it: an indented one is output.
        self.assertIsNotNone(corpus.compare(GOLDEN, "vecadd n=100 sum=1.5\n time: 1\nPASSED\n", 0))

    def test_exact_without_tolerance(self):
        R = corpus.compare(GOLDEN, "vecadd n=100 sum=1.5000001\nPASSED\n", 0)
        self.assertIn("vecadd n=100 sum=1.5000001", R)
        self.assertIn("expected", R)

    def test_first_differing_line_is_the_reason(self):
        R = corpus.compare("a\nb\nc\nexit-code: 0\n", "a\nX\nY\n", 0)
        self.assertIn("'b'", R)
        self.assertIn("'X'", R)
        self.assertNotIn("'Y'", R)

    def test_missing_and_extra_lines(self):
        self.assertIn("ends early", corpus.compare("a\nPASSED\nexit-code: 0\n", "a\n", 0))
        self.assertIn("extra output", corpus.compare("a\nexit-code: 0\n", "a\nb\n", 0))

    def test_exit_code_must_match(self):
        R = corpus.compare("PASSED\nexit-code: 0\n", "PASSED\n", 1)
        self.assertEqual(R, "exit code 1, expected 0")
        self.assertIsNone(corpus.compare("FAILED\nexit-code: 1\n", "FAILED\n", 1))
        # A signal is the negative status, as record-goldens writes it.
        self.assertIsNone(corpus.compare("exit-code: -6\n", "", -6))
        # Output differences are reported before the exit code.
        self.assertIn("expected 'PASSED'", corpus.compare("PASSED\nexit-code: 0\n", "FAILED\n", 1))

    def test_malformed_golden(self):
        with self.assertRaises(corpus.CorpusError):
            corpus.compare("PASSED\n", "PASSED\n", 0)
        with self.assertRaises(corpus.CorpusError):
            corpus.compare("", "", 0)

    def test_tolerance_is_relative_plus_absolute(self):
        G = "mean=100.0 count=7\nexit-code: 0\n"
        # tol 0.01: |got - 100| <= 0.01 + 0.01 * 100 = 1.01
        self.assertIsNone(corpus.compare(G, "mean=101.0 count=7\n", 0, 0.01))
        self.assertIsNone(corpus.compare(G, "mean=98.995 count=7\n", 0, 0.01))
        self.assertIsNotNone(corpus.compare(G, "mean=101.02 count=7\n", 0, 0.01))
        # Near zero the absolute part rules.
        Z = "v=0\nexit-code: 0\n"
        self.assertIsNone(corpus.compare(Z, "v=0.009\n", 0, 0.01))
        self.assertIsNone(corpus.compare(Z, "v=-1e-3\n", 0, 0.01))
        self.assertIsNotNone(corpus.compare(Z, "v=0.02\n", 0, 0.01))

    def test_tolerance_keeps_the_text_exact(self):
        G = "mean=100.0 count=7\nexit-code: 0\n"
        self.assertIsNotNone(corpus.compare(G, "mean=100.0 count=7 extra\n", 0, 0.5))
        self.assertIsNotNone(corpus.compare(G, "avg=100.0 count=7\n", 0, 0.5))
        self.assertIsNotNone(corpus.compare(G, "mean=100.0\n", 0, 0.5))
        self.assertIsNotNone(corpus.compare("v=nan\nexit-code: 0\n", "v=1\n", 0, 0.5))

    def test_numbers_inside_words_are_text(self):
        # sm_80 vs sm_81, hex digests: never loosened by a tolerance.
        self.assertFalse(corpus.linesMatch("arch sm_81", "arch sm_80", 0.5))
        self.assertFalse(corpus.linesMatch("magic=466243b2", "magic=466243b1", 0.5))
        self.assertFalse(corpus.linesMatch("0x11", "0x10", 0.5))
        self.assertTrue(corpus.linesMatch("x=[1.001, -2e3]", "x=[1, -2000]", 0.01))

    def test_reason_is_one_bounded_printable_line(self):
        R = corpus.compare("a\nexit-code: 0\n", "b\x1b[31m" + "z" * 1000 + "\n", 0)
        self.assertLessEqual(len(R), corpus.REASON_LIMIT)
        self.assertTrue(R.isprintable())


CORPUS_TOML = """
[variants.default]
flags = []
[variants.shared]
flags = ["-cudart", "shared"]
[variants.rdc]
flags = ["-rdc=true"]
[apps.a]
sources = ["a.cu"]
variants = ["default", "shared", "rdc"]
[apps.b]
sources = ["b.cu"]
flags = ["-I{out}"]
pre = ["-fatbin -o {out}/k.fatbin {src}/k.cu"]
variants = ["default", "shared"]
[apps.c]
sources = ["c.cu"]
variants = ["default"]
"""


def loadCorpusText(Text):
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as F:
        F.write(Text)
    try:
        return corpus.loadCorpus(F.name)
    finally:
        os.unlink(F.name)


class CorpusTest(unittest.TestCase):
    def setUp(self):
        self.Corpus = loadCorpusText(CORPUS_TOML)

    def test_build_commands_follow_the_header(self):
        Cmds = corpus.buildCommands(self.Corpus, "b", "shared", "/o", "nvcc")
        self.assertEqual(Cmds, [["nvcc", "-fatbin", "-o", "/o/k.fatbin", "apps/b/k.cu"],
                                ["nvcc", "-I/o", "-cudart", "shared", "-o", "/o/b", "apps/b/b.cu"]])

    def test_cells_and_filters(self):
        self.assertEqual(len(corpus.cells(self.Corpus)), 6)
        self.assertEqual(corpus.cells(self.Corpus, ["b"], None), [("b", "default"), ("b", "shared")])
        self.assertEqual(corpus.cells(self.Corpus, None, ["rdc"]), [("a", "rdc")])
        with self.assertRaises(corpus.CorpusError):
            corpus.cells(self.Corpus, ["nope"], None)

    def test_bad_corpus(self):
        with self.assertRaises(corpus.CorpusError):
            loadCorpusText("[apps.a]\nsources=['a.cu']\nvariants=['x']\n[variants.default]\nflags=[]\n")
        with self.assertRaises(corpus.CorpusError):
            loadCorpusText("[variants.default\n")
        with self.assertRaises(corpus.CorpusError):
            loadCorpusText("[variants.d]\nflags=[]\n[apps.a]\nsources=['a.cu']\ntolerance=-1\n")
        with self.assertRaises(corpus.CorpusError):
            loadCorpusText("[variants.d]\nflags=[]\n[apps.a]\nsources=['a.cu']\nenv={X=1}\n")

    def test_app_env_is_added_to_the_run_environment(self):
        C = loadCorpusText("[variants.d]\nflags=[]\n[apps.a]\nsources=['a.cu']\nenv={X='1'}\n"
                           "[apps.b]\nsources=['b.cu']\n")
        self.assertEqual(corpus.appEnv(C, "a", {"Y": "2"}), {"X": "1", "Y": "2"})
        self.assertEqual(corpus.appEnv(C, "b", {"Y": "2"}), {"Y": "2"})

    def test_the_real_corpus_loads(self):
        C = corpus.loadCorpus()
        self.assertIn("vecadd", C["apps"])
        self.assertEqual(corpus.variantOrder(C)[0], "default")


class ExpectationsTest(unittest.TestCase):
    def setUp(self):
        self.Corpus = loadCorpusText(CORPUS_TOML)

    def test_regression_and_stale(self):
        Expect = {"a": {"shared": "launches"}, "b": {"*": "driver api"}}
        Results = {("a", "default"): ("fail", "boom"),      # regression: not listed
                   ("a", "shared"): ("pass", ""),           # stale: listed, passes
                   ("a", "rdc"): ("pass", ""),
                   ("b", "default"): ("timeout", "60 s"),   # covered by *
                   ("b", "shared"): ("pass", ""),           # stale through *
                   ("c", "default"): ("no-golden", "x")}    # regression
        Reg, Stale = corpus.checkExpectations(self.Corpus, Expect, Results)
        self.assertEqual(len(Reg), 2)
        self.assertTrue(Reg[0].startswith("a/default: fail: boom"))
        self.assertTrue(Reg[1].startswith("c/default: no-golden"))
        self.assertEqual(len(Stale), 2)
        self.assertTrue(Stale[0].startswith("a/shared: passes"))
        self.assertIn("'*'", Stale[1])

    def test_all_as_expected(self):
        Expect = {"a": {"*": "x"}}
        Results = {("a", V): ("fail", "r") for V in ("default", "shared", "rdc")}
        Results[("c", "default")] = ("pass", "")
        self.assertEqual(corpus.checkExpectations(self.Corpus, Expect, Results), ([], []))

    def test_unknown_entries_are_stale_even_when_not_run(self):
        Expect = {"zz": {"*": "gone"}, "c": {"rdc": "no such variant"}}
        Reg, Stale = corpus.checkExpectations(self.Corpus, Expect, {})
        self.assertEqual(Reg, [])
        self.assertEqual(len(Stale), 2)

    def test_update_keeps_reasons_and_groups(self):
        Expect = {"a": {"shared": "written by hand"}, "b": {"default": "old b"}}
        Results = {("a", "default"): ("fail", "new a"), ("a", "shared"): ("fail", "other"),
                   ("a", "rdc"): ("fail", "new a"),
                   ("b", "default"): ("pass", ""), ("b", "shared"): ("fail", "bs"),
                   ("c", "default"): ("pass", "")}
        New = corpus.updatedExpectations(self.Corpus, Expect, Results)
        # All of a fails: one "*" whose reason is the most common one.
        self.assertEqual(New["a"], {"*": "fail: new a"})
        self.assertEqual(New["b"], {"shared": "fail: bs"})
        self.assertNotIn("c", New)
        self.assertEqual(corpus.checkExpectations(self.Corpus, New, Results), ([], []))

    def test_update_keeps_cells_that_did_not_run(self):
        Expect = {"a": {"*": "launches"}}
        New = corpus.updatedExpectations(self.Corpus, Expect, {("a", "rdc"): ("pass", "")})
        self.assertEqual(New, {"a": {"default": "launches", "shared": "launches"}})
        New = corpus.updatedExpectations(self.Corpus, Expect, {("a", "rdc"): ("fail", "q")})
        self.assertEqual(New, {"a": {"*": "launches"}})

    def test_format_round_trips_through_toml(self):
        Expect = {"b": {"shared": 'quote " back \\ slash é', "default": "d"}, "a": {"*": "all"}}
        Text = corpus.formatExpectations(Expect, self.Corpus)
        self.assertEqual(tomllib.loads(Text), Expect)
        self.assertLess(Text.index("[a]"), Text.index("[b]"))
        self.assertLess(Text.index('"default"'), Text.index('"shared"'))
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as F:
            F.write(Text)
        try:
            self.assertEqual(corpus.loadExpectations(F.name), Expect)
        finally:
            os.unlink(F.name)

    def test_bad_expectations_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as F:
            F.write("[a]\ndefault = 3\n")
        try:
            with self.assertRaises(corpus.CorpusError):
                corpus.loadExpectations(F.name)
        finally:
            os.unlink(F.name)
        self.assertEqual(corpus.loadExpectations("/nonexistent/expectations.toml"), {})


if __name__ == "__main__":
    unittest.main()
