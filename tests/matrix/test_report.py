"""Tests of `ferry matrix` (tools/Matrix.cpp) on small synthetic results
files: table layout, footnoted reasons, summary counts, escaping, output that
does not depend on input order or run times, the HTML page, and clear errors
for bad input. FERRY_TOOL names the ferry executable."""

import copy
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
FERRY = os.environ.get("FERRY_TOOL", "")

RESULTS = {
    "backend": "host",
    "date": "2031-05-06T07:08:09+00:00",
    "wall_seconds": 4321.5,
    "variants": ["default", "shared", "rdc"],
    "apps": {"zeta": {"labels": ["memory", "atomics|x"]}, "alpha": {"labels": ["memory"]},
             "mid": {"labels": ["memory"]}},
    "results": [
        {"app": "zeta", "variant": "shared", "verdict": "fail", "reason": "got <b>*bold*</b> | pipe", "seconds": 7.77},
        {"app": "zeta", "variant": "default", "verdict": "pass", "reason": "", "seconds": 1.25},
        {"app": "alpha", "variant": "default", "verdict": "timeout", "reason": "no exit within 60 s", "seconds": 60},
        {"app": "alpha", "variant": "rdc", "verdict": "fail", "reason": "got <b>*bold*</b> | pipe", "seconds": 0.5},
        {"app": "alpha", "variant": "shared", "verdict": "build-error", "reason": "nvcc exit 1", "seconds": 0},
        {"app": "mid", "variant": "default", "verdict": "pass", "reason": "", "seconds": 3.5},
        {"app": "mid", "variant": "shared", "verdict": "pass", "reason": "", "seconds": 3.75},
    ],
}


def rowCells(Line):
    """The cells of a Markdown table row, split at unescaped pipes."""
    return [C.strip() for C in re.split(r"(?<!\\)\|", Line.strip()[1:-1])]


@unittest.skipUnless(FERRY, "FERRY_TOOL is not set")
class MatrixReportTest(unittest.TestCase):
    def setUp(self):
        self.assertTrue(os.access(FERRY, os.X_OK), f"FERRY_TOOL={FERRY} is not executable")
        self.Dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.Dir.cleanup()

    def run_ferry(self, Data, *Extra, Raw=None):
        Path = os.path.join(self.Dir.name, "results.json")
        with open(Path, "w") as F:
            F.write(Raw if Raw is not None else json.dumps(Data))
        return subprocess.run([FERRY, "matrix", Path, *Extra], capture_output=True, text=True)

    def markdown(self, Data):
        P = self.run_ferry(Data)
        self.assertEqual(P.returncode, 0, P.stderr)
        return P.stdout

    def test_table_rows_columns_and_notes(self):
        Md = self.markdown(RESULTS)
        Lines = Md.splitlines()
        Head = next(I for I, L in enumerate(Lines) if L.startswith("| app |"))
        self.assertEqual(rowCells(Lines[Head]), ["app", "default", "shared", "rdc", "labels"])
        Rows = [rowCells(L) for L in Lines[Head + 2:Head + 5]]
        # Apps sorted; reasons numbered in reading order; equal reasons share a number.
        self.assertEqual([R[0] for R in Rows], ["alpha", "mid", "zeta"])
        self.assertEqual(Rows[0][1:4], ["❌ 1", "❌ 2", "❌ 3"])
        self.assertEqual(Rows[1][1:4], ["✅", "✅", ""])
        self.assertEqual(Rows[2][1:4], ["✅", "❌ 3", ""])
        self.assertEqual(Rows[2][4], "`atomics\\|x` `memory`")
        Notes = [L for L in Lines if L[:3] in ("1. ", "2. ", "3. ", "4. ")]
        self.assertEqual(len(Notes), 3)
        self.assertEqual(Notes[0], "1. timeout: no exit within 60 s")
        self.assertEqual(Notes[1], "2. build-error: nvcc exit 1")
        # Markdown-active characters are escaped, so the reason reads as written.
        self.assertEqual(Notes[2], "3. fail: got \\<b\\>\\*bold\\*\\</b\\> \\| pipe")

    def test_summary_counts(self):
        Md = self.markdown(RESULTS)
        self.assertIn("3 of 7 cells pass (42.9%); 1 of 3 apps pass in every variant.", Md)
        self.assertIn("Not passing: 2 fail, 1 timeout, 1 build-error.", Md)

    def test_label_table(self):
        Md = self.markdown(RESULTS)
        self.assertIn("| `memory` | 3 | 1 |", Md)
        self.assertIn("| `atomics\\|x` | 1 | 0 |", Md)

    def test_markdown_is_reproducible(self):
        Md = self.markdown(RESULTS)
        self.assertNotIn("2031", Md)
        self.assertNotIn("7.77", Md)
        self.assertNotIn("4321", Md)
        Other = copy.deepcopy(RESULTS)
        random.Random(7).shuffle(Other["results"])
        for Cell in Other["results"]:
            Cell["seconds"] = 99.0
        Other["date"] = "1999-01-01"
        Other["wall_seconds"] = 1
        self.assertEqual(self.markdown(Other), Md)

    def test_columns_without_order_and_empty_columns(self):
        Data = copy.deepcopy(RESULTS)
        del Data["variants"]
        Md = self.markdown(Data)
        Head = next(L for L in Md.splitlines() if L.startswith("| app |"))
        self.assertEqual(rowCells(Head), ["app", "default", "rdc", "shared", "labels"])
        Data["variants"] = ["never-ran", "shared"]
        Head = next(L for L in self.markdown(Data).splitlines() if L.startswith("| app |"))
        self.assertEqual(rowCells(Head), ["app", "shared", "default", "rdc", "labels"])

    def test_html_page(self):
        Md = os.path.join(self.Dir.name, "m.md")
        Html = os.path.join(self.Dir.name, "m.html")
        P = self.run_ferry(RESULTS, "--markdown", Md, "--html", Html)
        self.assertEqual(P.returncode, 0, P.stderr)
        self.assertEqual(P.stdout, "")
        with open(Html, encoding="utf-8") as F:
            Page = F.read()
        with open(Md, encoding="utf-8") as F:
            self.assertIn("3 of 7 cells pass", F.read())
        self.assertTrue(Page.startswith("<!DOCTYPE html>"))
        self.assertIn("<style>", Page)
        for External in ("<link", "<script", "src=", "http:", "https:", "@import"):
            self.assertNotIn(External, Page)
        self.assertIn('title="fail: got &lt;b&gt;*bold*&lt;/b&gt; | pipe"', Page)
        self.assertNotIn("<b>*bold*", Page)
        self.assertIn('<li id="r3">fail: got &lt;b&gt;', Page)
        self.assertIn("7.77 s", Page)
        self.assertIn("2031-05-06T07:08:09+00:00", Page)
        for App in ("alpha", "mid", "zeta"):
            self.assertEqual(Page.count(f'<tr><th class="app">{App}</th>'), 1)
        self.assertEqual(Page.count('<td class="pass"'), 3)
        self.assertEqual(Page.count('<td class="notpass"'), 4)
        self.assertEqual(Page.count('<td class="none"'), 2)

    def test_bad_input_is_a_clear_error(self):
        Cases = {
            "not json": ("{", "line 1, column 2"),
            "trailing": ('{"results": []} x', "trailing"),
            "not an object": ("[]", "top level"),
            "no results": ("{}", '"results"'),
            "missing field": ('{"results": [{"app": "a", "verdict": "pass"}]}', 'missing "variant"'),
            "bad verdict": ('{"results": [{"app": "a", "variant": "v", "verdict": "ok"}]}', "unknown verdict"),
            "duplicate": ('{"results": [{"app": "a", "variant": "v", "verdict": "pass"},'
                          '{"app": "a", "variant": "v", "verdict": "fail"}]}', "twice"),
            "bad escape": ('{"results": ["\\q"]}', "bad escape"),
            "lone surrogate": ('{"results": ["\\udc00"]}', "surrogate"),
            "deep": ("[" * 100000, "nested too deeply"),
            "control char": ('{"results": ["a\nb"]}', "control character"),
        }
        for Name, (Raw, Message) in Cases.items():
            with self.subTest(Name):
                P = self.run_ferry(None, Raw=Raw)
                self.assertEqual(P.returncode, 1, P.stderr)
                self.assertIn(Message, P.stderr)
                self.assertEqual(P.stdout, "")
        P = subprocess.run([FERRY, "matrix", os.path.join(self.Dir.name, "missing.json")], capture_output=True, text=True)
        self.assertEqual(P.returncode, 1)
        self.assertIn("cannot read", P.stderr)
        P = subprocess.run([FERRY, "matrix"], capture_output=True, text=True)
        self.assertEqual(P.returncode, 2)

    def test_unicode_escapes_decode(self):
        Data = {"results": [{"app": "a", "variant": "v", "verdict": "fail", "reason": "é \U0001F600"}]}
        Md = self.run_ferry(None, Raw=json.dumps(Data, ensure_ascii=True)).stdout
        self.assertIn("1. fail: é \U0001F600", Md)


if __name__ == "__main__":
    unittest.main()
