"""The compatibility matrix's rules as code: the corpus, comparison, expectations.

compat-tests/apps.toml defines what to build and how to compare (its header
is the specification); compat-tests/README.md restates the comparison rules.
This module implements those rules once, for compat-tests/run-matrix and for
the unit tests in tests/matrix/, so that the runner's decisions can be tested
without nvcc or ferry. scripts/record-goldens implements the build half of
the same header for the native recording; the two must stay in step (the
header is the contract, not either script).

Only the Python standard library is used (tomllib: Python 3.11+).
"""

import json
import math
import os
import re
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "compat-tests", "apps.toml")
GOLDENS = os.path.join(ROOT, "compat-tests", "goldens")
EXPECTATIONS = os.path.join(ROOT, "compat-tests", "expectations.toml")

# Verdicts, best first. Everything but "pass" is a failure of the cell.
VERDICTS = ("pass", "fail", "no-golden", "timeout", "build-error")
REASON_LIMIT = 200


class CorpusError(Exception):
    """apps.toml or expectations.toml says something the runner cannot use."""


def loadToml(Path):
    try:
        with open(Path, "rb") as F:
            return tomllib.load(F)
    except OSError as E:
        raise CorpusError(f"{Path}: {E.strerror}") from None
    except tomllib.TOMLDecodeError as E:
        raise CorpusError(f"{Path}: {E}") from None


def loadCorpus(Path=CORPUS):
    """Returns apps.toml as a dict after checking the shapes the runner uses."""
    Corpus = loadToml(Path)
    Variants = Corpus.get("variants")
    Apps = Corpus.get("apps")
    if not isinstance(Variants, dict) or not isinstance(Apps, dict):
        raise CorpusError(f"{Path}: needs [variants.*] and [apps.*] tables")
    for Name, V in Variants.items():
        if not isinstance(V.get("flags", []), list):
            raise CorpusError(f"{Path}: variants.{Name}.flags is not an array")
    for Name, A in Apps.items():
        if not A.get("sources") or not isinstance(A["sources"], list):
            raise CorpusError(f"{Path}: apps.{Name} has no sources")
        for V in A.get("variants", []):
            if V not in Variants:
                raise CorpusError(f"{Path}: apps.{Name} names unknown variant {V!r}")
        Tol = A.get("tolerance", 0)
        if not isinstance(Tol, (int, float)) or Tol < 0:
            raise CorpusError(f"{Path}: apps.{Name}.tolerance must be a number >= 0")
        Limit = A.get("timeout", 0)
        if not isinstance(Limit, int) or Limit < 0:
            raise CorpusError(f"{Path}: apps.{Name}.timeout must be a whole number of seconds >= 0")
        Extra = A.get("env", {})
        if not isinstance(Extra, dict) or not all(isinstance(V, str) for V in Extra.values()):
            raise CorpusError(f"{Path}: apps.{Name}.env must be a table of strings")
    return Corpus


def appEnv(Corpus, App, Env):
    """Env with the variables apps.toml sets for App (its `env` table) added."""
    return dict(Env, **Corpus["apps"][App].get("env", {}))


def variantOrder(Corpus):
    """The variant names in the order apps.toml declares them."""
    return list(Corpus["variants"])


def cells(Corpus, Apps=None, Variants=None):
    """The (app, variant) pairs to run, in corpus order, filtered by name.

    Unknown names in the filters are an error rather than silently nothing.
    """
    for Name, Known in (("app", set(Corpus["apps"])), ("variant", set(Corpus["variants"]))):
        Wanted = Apps if Name == "app" else Variants
        for W in Wanted or ():
            if W not in Known:
                raise CorpusError(f"unknown {Name} {W!r}")
    Out = []
    for App, Spec in Corpus["apps"].items():
        if Apps and App not in Apps:
            continue
        for Variant in Spec.get("variants", []):
            if Variants and Variant not in Variants:
                continue
            Out.append((App, Variant))
    return Out


def expand(Text, App, Out):
    return Text.replace("{src}", os.path.join("apps", App)).replace("{out}", Out)


def buildCommands(Corpus, App, Variant, Out, Nvcc):
    """The nvcc command lines (run from the repository root) building one cell
    into directory Out, exactly as apps.toml's header specifies."""
    Spec = Corpus["apps"][App]
    Cmds = [[Nvcc] + expand(P, App, Out).split() for P in Spec.get("pre", [])]
    Main = [Nvcc] + [expand(F, App, Out) for F in Spec.get("flags", [])]
    Main += list(Corpus["variants"][Variant].get("flags", []))
    Main += ["-o", os.path.join(Out, App)] + [os.path.join("apps", App, S) for S in Spec["sources"]]
    Cmds.append(Main)
    return Cmds


# --- Comparison --------------------------------------------------------------

# A number standing on its own: not part of an identifier, a hex literal or a
# version-like token, which are compared as text.
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")


def masked(Lines):
    """Rule 1: lines starting with `time:` vary from run to run."""
    return [L for L in Lines if not L.startswith("time:")]


def numbersClose(Got, Want, Tol):
    """The apps' own closeTo(): |got - want| <= tol + tol * |want|."""
    if Got == Want:
        return True
    A, B = float(Got), float(Want)
    if math.isnan(A) or math.isnan(B) or math.isinf(A) or math.isinf(B):
        return False
    return abs(A - B) <= Tol + Tol * abs(B)


def linesMatch(Got, Want, Tol):
    """Rule 2 for one line: identical, or with a tolerance the same text
    around numbers that are each within it."""
    if Got == Want:
        return True
    if Tol <= 0:
        return False
    if NUMBER.sub("\0", Got) != NUMBER.sub("\0", Want):
        return False
    return all(numbersClose(G, W, Tol) for G, W in zip(NUMBER.findall(Got), NUMBER.findall(Want)))


def clip(Text, Limit=REASON_LIMIT):
    """One printable line of at most Limit characters, for a reason."""
    Text = "".join(C if C.isprintable() else "?" for C in Text)
    return Text if len(Text) <= Limit else Text[: Limit - 3] + "..."


def parseGolden(Text):
    """Splits a golden into (stdout lines, exit code string); the last line
    must be `exit-code: N`."""
    Lines = Text.splitlines()
    if not Lines or not Lines[-1].startswith("exit-code: "):
        raise CorpusError("golden does not end with an 'exit-code: N' line")
    return Lines[:-1], Lines[-1][len("exit-code: "):]


def exitCodeText(Code):
    """How record-goldens writes an exit status: the Popen return code
    (negative for a signal)."""
    return str(Code)


def compare(GoldenText, Stdout, ExitCode, Tol=0):
    """Applies README's three rules. Returns None when the run matches, else
    the reason: the first differing line, or the exit code."""
    WantLines, WantCode = parseGolden(GoldenText)
    Want = masked(WantLines)
    Got = masked(Stdout.splitlines())
    for I in range(max(len(Want), len(Got))):
        if I >= len(Got):
            return clip(f"output ends early; expected {Want[I]!r}")
        if I >= len(Want):
            return clip(f"extra output {Got[I]!r}")
        if not linesMatch(Got[I], Want[I], Tol):
            return clip(f"expected {Want[I]!r}, got {Got[I]!r}")
    if exitCodeText(ExitCode) != WantCode:
        return f"exit code {exitCodeText(ExitCode)}, expected {WantCode}"
    return None


# --- Expectations --------------------------------------------------------------
#
# expectations.toml has one table per app whose cells are known not to pass;
# its keys are variant names, or "*" for every variant of the app, and its
# values the reason. A listed cell that passes is stale, an unlisted cell that
# does not pass is a regression; both fail the run, so the file always
# describes the current state exactly.

EXPECTATIONS_HEADER = """\
# Cells of the compatibility matrix that are known not to pass under ferry's
# host backend, with why. compat-tests/run-matrix fails when a cell that is
# not listed here does not pass (a regression) and when a listed cell passes
# (the entry is stale: remove it). One table per app; keys are variant names,
# or "*" for all of the app's variants; values are the reason.
#
# Refresh from a run: compat-tests/run-matrix --update-expectations
# (keeps the reasons already written here, fills new ones from the results).
"""


def loadExpectations(Path=EXPECTATIONS):
    """Returns {app: {variant or '*': reason}}; a missing file is empty."""
    if not os.path.exists(Path):
        return {}
    Data = loadToml(Path)
    for App, Entries in Data.items():
        if not isinstance(Entries, dict) or not all(isinstance(R, str) for R in Entries.values()):
            raise CorpusError(f"{Path}: [{App}] must map variant names to reason strings")
    return Data


def expectedReason(Expect, App, Variant):
    """The reason a cell is expected to fail, or None when it should pass."""
    Entries = Expect.get(App, {})
    return Entries.get(Variant, Entries.get("*"))


def checkExpectations(Corpus, Expect, Results):
    """Compares the verdicts of a run with the expectations.

    Results: {(app, variant): (verdict, reason)} for the cells that ran.
    Returns (regressions, stale), each a sorted list of one-line messages.
    Entries naming apps or variants the corpus lacks are stale whether or not
    they ran, since they can never match anything.
    """
    Regressions, Stale = [], []
    for (App, Variant), (Verdict, Reason) in sorted(Results.items()):
        Known = expectedReason(Expect, App, Variant)
        if Verdict != "pass" and Known is None:
            Regressions.append(f"{App}/{Variant}: {Verdict}: {Reason}")
        elif Verdict == "pass" and Known is not None:
            Key = Variant if Variant in Expect.get(App, {}) else "*"
            Stale.append(f"{App}/{Variant}: passes but expectations.toml [{App}] {Key!r} says: {Known}")
    for App, Entries in sorted(Expect.items()):
        Spec = Corpus["apps"].get(App)
        for Key in sorted(Entries):
            if Spec is None:
                Stale.append(f"[{App}]: no such app in apps.toml")
                break
            if Key != "*" and Key not in Spec.get("variants", []):
                Stale.append(f"[{App}] {Key!r}: app has no such variant")
    return Regressions, Stale


def updatedExpectations(Corpus, Expect, Results):
    """The expectations that make Results pass the check: every failing cell
    listed, passing ones removed. Cells that did not run keep their entries.
    An app whose variants all fail gets one "*" entry. Existing reasons are
    kept; new ones come from the run (the most common reason of the app's
    failures for "*")."""
    Out = {}
    for App, Spec in Corpus["apps"].items():
        Failing = {}
        for Variant in Spec.get("variants", []):
            Old = expectedReason(Expect, App, Variant)
            if (App, Variant) in Results:
                Verdict, Reason = Results[(App, Variant)]
                if Verdict != "pass":
                    Failing[Variant] = Old if Old is not None else clip(f"{Verdict}: {Reason}")
            elif Old is not None:
                Failing[Variant] = Old
        if not Failing:
            continue
        if len(Failing) == len(Spec["variants"]) and len(Failing) > 1:
            Star = Expect.get(App, {}).get("*")
            if Star is None:
                Counts = {}
                for R in Failing.values():
                    Counts[R] = Counts.get(R, 0) + 1
                Star = min(Counts, key=lambda R: (-Counts[R], R))
            Out[App] = {"*": Star}
        else:
            Out[App] = Failing
    return Out


def tomlString(Text):
    """A TOML basic string (JSON's escapes are valid TOML ones)."""
    return json.dumps(clip(Text, 10000), ensure_ascii=False)


def formatExpectations(Expect, Corpus):
    """expectations.toml text: apps sorted, variants in corpus order."""
    Order = {V: I for I, V in enumerate(["*"] + variantOrder(Corpus))}
    Parts = [EXPECTATIONS_HEADER]
    for App in sorted(Expect):
        Name = App if re.fullmatch(r"[A-Za-z0-9_-]+", App) else tomlString(App)
        Parts.append(f"\n[{Name}]\n")
        for Key in sorted(Expect[App], key=lambda K: (Order.get(K, len(Order)), K)):
            Parts.append(f"{tomlString(Key)} = {tomlString(Expect[App][Key])}\n")
    return "".join(Parts)
