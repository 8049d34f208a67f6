#!/usr/bin/env python3
"""PTX conformance suite: generate, filter, record on NVIDIA, check ferry.

  conformance.py gen DIR [--all]
      writes DIR/<family>.ptx and DIR/<family>.job (the runner's input) for
      the forms that have goldens (or, with --all, every candidate form).
  conformance.py filter [--ptxas PATH]
      runs NVIDIA's ptxas (sm_90) over every candidate and writes
      forms-valid.txt: the candidates it accepts. Needs the CUDA toolkit;
      only run when forms.py changes, before recording.
  conformance.py record RESULTS... [--family F]
      turns runner output taken over NVIDIA's driver into goldens/<family>.txt
  conformance.py check --runner BIN [--lib DIR] [--work DIR] [--family F]
                       [--expected FILE]
      runs the runner over ferry's libcuda (DIR first on LD_LIBRARY_PATH),
      compares with the goldens and the expected mismatches (FILE, by default
      expected-mismatches.txt: the host backend's; the AMD backend has
      expected-mismatches-hsa.txt), prints the first
      mismatches per form and a summary; exit 1 on any unlisted mismatch or
      on a listed one that now passes.

Only the Python standard library is used.
"""

import argparse
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import forms as FM  # noqa: E402

GOLDENS = os.path.join(HERE, "goldens")
VALID = os.path.join(HERE, "forms-valid.txt")
EXPECTED = os.path.join(HERE, "expected-mismatches.txt")
PTX_HEADER = ".version 8.8\n.target sm_90\n.address_size 64\n"

# ---------------------------------------------------------------- generation


def reg_class(t):
    if t == "pred":
        return "p"
    b = FM.tbits(t)
    if b <= 16:
        return "h"
    if b == 32:
        return "f" if t == "f32" else "r"
    return "fd" if t == "f64" else "rd"


LD = {"h": "b16", "r": "b32", "f": "f32", "rd": "b64", "fd": "f64"}
WIDTH = {"h": 2, "r": 4, "f": 4, "rd": 8, "fd": 8, "p": 1}


def kernel_text(form):
    count = {}

    def take(cls):
        n = count.get(cls, 0)
        count[cls] = n + 1
        return f"%{cls}{n}"

    subst, loads, stores = {}, [], []
    for i, t in enumerate(form.ins):
        c = reg_class(t)
        r = take(c)
        subst[f"a{i}"] = r
        if c == "p":
            loads.append(f"ld.global.u32 %ci2, [%cl2+{8 * i}];\nsetp.ne.u32 {r}, %ci2, 0;")
        else:
            loads.append(f"ld.global.{LD[c]} {r}, [%cl2+{8 * i}];")
    for j, t in enumerate(form.outs):
        c = reg_class(t)
        r = take(c)
        subst[f"d{j}"] = r
        if c == "p":
            stores.append(f"selp.u32 %ci2, 1, 0, {r};\nst.global.u32 [%cl3+{8 * j}], %ci2;")
        else:
            stores.append(f"st.global.{LD[c]} [%cl3+{8 * j}], {r};")
    subst["t"] = take(reg_class(form.ins[0])) if form.ins else "%ci2"
    shared = "{m}" in form.body and ".shared" in form.body
    subst["m"] = "%cl0" if shared else "%cl3+8"
    decl = ".shared .align 8 .b8 smem[1024];\n" if shared else ""
    if shared:
        loads.append("mov.u64 %cl0, smem;\nmul.wide.u32 %cl1, %ci3, 8;\nadd.s64 %cl0, %cl0, %cl1;")
    body = form.body.format(**subst).replace("; ", ";\n")
    nin, nout = len(form.ins), len(form.outs)
    return f"""
.visible .entry {form.name}(.param .u64 pin, .param .u64 pout, .param .u32 pn)
{{
{decl}.reg .pred %p<8>;
.reg .b16 %h<8>;
.reg .b32 %r<8>;
.reg .f32 %f<8>;
.reg .b64 %rd<8>;
.reg .f64 %fd<8>;
.reg .b32 %ci<4>;
.reg .b64 %cl<4>;
.reg .pred %cq;
ld.param.u64 %cl0, [pin];
ld.param.u64 %cl1, [pout];
ld.param.u32 %ci0, [pn];
mov.u32 %ci1, %ctaid.x;
mov.u32 %ci2, %ntid.x;
mov.u32 %ci3, %tid.x;
mad.lo.u32 %ci1, %ci1, %ci2, %ci3;
setp.ge.u32 %cq, %ci1, %ci0;
@%cq bra $Ldone;
cvta.to.global.u64 %cl0, %cl0;
cvta.to.global.u64 %cl1, %cl1;
mul.wide.u32 %cl2, %ci1, {8 * nin};
add.s64 %cl2, %cl0, %cl2;
mul.wide.u32 %cl3, %ci1, {8 * nout};
add.s64 %cl3, %cl1, %cl3;
{chr(10).join(loads)}
{body}
{chr(10).join(stores)}
$Ldone:
ret;
}}
// end {form.name}
"""


def name_forms(forms):
    per = {}
    for f in forms:
        n = per.get(f.fam, 0)
        per[f.fam] = n + 1
        f.name = f"{f.fam}_{n:04d}"
    return forms


def write_family(dirname, fam, forms):
    ptx = os.path.join(dirname, fam + ".ptx")
    with open(ptx, "w") as out:
        out.write(PTX_HEADER)
        for f in forms:
            out.write(kernel_text(f))
    with open(os.path.join(dirname, fam + ".job"), "w") as out:
        out.write(f"ptx {fam}.ptx\n")
        for f in forms:
            rows = FM.inputs_for(f)
            widths = [WIDTH[reg_class(t)] for t in f.outs]
            out.write(f"kernel {f.name} {len(rows)} {len(f.ins)} {len(widths)} {' '.join(map(str, widths))}\n")
            out.write(" ".join(f"{v:x}" for row in rows for v in row) + "\n")


def families(forms):
    fams = {}
    for f in forms:
        fams.setdefault(f.fam, []).append(f)
    return fams


def load_valid():
    with open(VALID) as f:
        return {line.rstrip("\n") for line in f if line.strip()}


def selected_forms(all_candidates=False, family=None):
    forms = FM.all_forms()
    if not all_candidates:
        valid = load_valid()
        forms = [f for f in forms if f.key in valid]
    if family:
        forms = [f for f in forms if f.fam in family.split(",")]
    return name_forms(forms)


def cmd_gen(args):
    os.makedirs(args.dir, exist_ok=True)
    forms = selected_forms(args.all, args.family)
    for fam, fs in families(forms).items():
        write_family(args.dir, fam, fs)
    print(f"gen: {len(forms)} forms in {len(families(forms))} families under {args.dir}")


# ---------------------------------------------------------------- filtering


def cmd_filter(args):
    forms = name_forms(FM.all_forms())
    valid = []
    with tempfile.TemporaryDirectory() as tmp:
        for fam, fs in families(forms).items():
            live = list(fs)
            while True:
                path = os.path.join(tmp, fam + ".ptx")
                lines = [PTX_HEADER]
                owner = []  # line number -> form
                text = PTX_HEADER
                for f in live:
                    k = kernel_text(f)
                    text += k
                with open(path, "w") as out:
                    out.write(text)
                # Map line numbers to kernels.
                owner, cur = [], None
                for line in text.split("\n"):
                    m = re.match(r"\.visible \.entry (\w+)\(", line)
                    if m:
                        cur = m.group(1)
                    owner.append(cur)
                p = subprocess.run([args.ptxas, "-arch=sm_90", "-O0", path, "-o", os.devnull],
                                   capture_output=True, text=True)
                bad = set()
                for m in re.finditer(r"line (\d+); error", p.stderr):
                    bad.add(owner[int(m.group(1)) - 1])
                if p.returncode == 0:
                    break
                if not bad:
                    sys.exit(f"filter: ptxas failed on {fam} without line numbers:\n{p.stderr[:2000]}")
                live = [f for f in live if f.name not in bad]
            print(f"filter: {fam}: {len(live)} of {len(fs)} accepted by ptxas", file=sys.stderr)
            valid += [f.key for f in live]
    with open(VALID, "w") as out:
        out.write("".join(k + "\n" for k in valid))
    print(f"filter: {len(valid)} of {len(forms)} candidates valid")


# ---------------------------------------------------------------- results


def parse_results(paths):
    """Runner output -> {kernel name: list of rows | ('E', code)}."""
    res, cur = {}, None
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("J "):
                    continue
                if line.startswith("K "):
                    parts = line.split()
                    cur = parts[1]
                    res[cur] = ("E", parts[3]) if len(parts) > 2 else []
                elif cur is not None and isinstance(res[cur], list):
                    res[cur].append(line.split())
    return res


def inputs_crc(form):
    """A checksum of the form's inputs: the goldens name it, so a change to
    the value generator shows as stale goldens, not as mismatches."""
    rows = FM.inputs_for(form)
    return f"{zlib.crc32(' '.join(f'{v:x}' for row in rows for v in row).encode()):08x}"


def cmd_record(args):
    forms = selected_forms(family=args.family)
    res = parse_results(args.results)
    os.makedirs(GOLDENS, exist_ok=True)
    missing = 0
    for fam, fs in families(forms).items():
        with open(os.path.join(GOLDENS, fam + ".txt"), "w") as out:
            for f in fs:
                r = res.get(f.name)
                if r is None:
                    missing += 1
                    continue
                if isinstance(r, tuple):
                    out.write(f"F {f.key}\nE {r[1]}\n")
                    continue
                out.write(f"F {f.key}\nI {inputs_crc(f)}\n" + "".join(" ".join(row) + "\n" for row in r))
    print(f"record: goldens written ({missing} forms without results)")


def load_goldens(crcs=None):
    gold = {}
    crcs = {} if crcs is None else crcs
    for name in sorted(os.listdir(GOLDENS)):
        if not name.endswith(".txt"):
            continue
        cur = None
        with open(os.path.join(GOLDENS, name)) as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("F "):
                    cur = line[2:]
                    gold[cur] = []
                elif line.startswith("E "):
                    gold[cur] = ("E", line[2:])
                elif line.startswith("I "):
                    crcs[cur] = line[2:]
                else:
                    gold[cur].append(line.split())
    return gold


# ---------------------------------------------------------------- comparison

def to_float(t, bits):
    if t == "f32":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if t == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if t == "f16":
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    if t == "bf16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    raise ValueError(t)


def ordinal(t, bits):
    """Monotonic integer of a float's bits, for ulp distances."""
    n = {"f32": 32, "f64": 64, "f16": 16, "bf16": 16}[t]
    sign = 1 << (n - 1)
    return -(bits & (sign - 1)) if bits & sign else bits


def close(t, tol, exp, got):
    """Whether got is within the PTX ISA's bound of exp (one scalar)."""
    fe, fg = to_float(t, exp), to_float(t, got)
    if math.isnan(fe) or math.isnan(fg):
        return math.isnan(fe) and math.isnan(fg)
    if math.isinf(fe) or math.isinf(fg):
        return fe == fg
    kind, v = tol
    if kind == "ulp":
        return abs(ordinal(t, exp) - ordinal(t, got)) <= v
    if kind == "rel":
        # Relative to the reference, with one ulp of the result's type as a
        # floor: NVIDIA's own result carries the approximation's error too.
        if fe == fg:
            return True
        ulp = abs(ordinal(t, exp) - ordinal(t, got))
        return abs(fg - fe) <= 2.0 ** v * abs(fe) * 2 or ulp <= 2
    if kind == "abs":
        return abs(fg - fe) <= 2.0 ** v * 2 or abs(ordinal(t, exp) - ordinal(t, got)) <= 2
    raise ValueError(kind)


def is_nan_bits(t, v):
    if t in ("f16x2", "bf16x2"):
        return None
    return math.isnan(to_float(t, v))


def nan_only(t, exp_hex, got_hex):
    """Whether exp and got differ only as NaNs (payload or sign bits): per
    half for the packed types."""
    if t not in ("f32", "f64", "f16", "bf16", "f16x2", "bf16x2"):
        return False
    e, g = int(exp_hex, 16), int(got_hex, 16)
    if t in ("f16x2", "bf16x2"):
        h = t[:-2]
        halves = [(e & 0xFFFF, g & 0xFFFF), (e >> 16, g >> 16)]
        return all(x == y or (math.isnan(to_float(h, x)) and math.isnan(to_float(h, y))) for x, y in halves)
    return math.isnan(to_float(t, e)) and math.isnan(to_float(t, g))


def reference(form, t, inputs):
    """The exact result (in double precision) of an approximate form for
    these inputs, or None: the ISA's bounds are about the true value, and
    NVIDIA's result carries its own error, so it is only the fallback."""
    op = form.key.split(".")[0]
    it = form.ins[0]
    if it in ("f16x2", "bf16x2") or t != it:
        return None
    xs = [to_float(it, v) for v in inputs]
    if ".ftz" in form.key:
        tiny = {"f32": 2.0 ** -126, "f64": 2.0 ** -1022}.get(it)
        if tiny:
            xs = [math.copysign(0.0, x) if abs(x) < tiny else x for x in xs]
    x = xs[0]
    r = exact(op, xs)
    if r is not None and ".ftz" in form.key:
        tiny = {"f32": 2.0 ** -126, "f64": 2.0 ** -1022}.get(it)
        if tiny and abs(r) < tiny:
            r = math.copysign(0.0, r)
    return r


def exact(op, xs):
    x = xs[0]
    try:
        if op == "div":
            return xs[0] / xs[1]
        if op == "rcp":
            return 1.0 / x
        if op == "sqrt":
            return math.sqrt(x)
        if op == "rsqrt":
            return 1.0 / math.sqrt(x)
        if op == "ex2":
            return 2.0 ** x
        if op == "lg2":
            return math.log2(x)
        if op == "sin":
            return math.sin(x)
        if op == "cos":
            return math.cos(x)
        if op == "tanh":
            return math.tanh(x)
    except (ZeroDivisionError, ValueError, OverflowError):
        return None
    return None


def within_bound(t, tol, ref, got_bits):
    """|got - ref| within the ISA's bound (ulp of the type, relative or
    absolute)."""
    g = to_float(t, got_bits)
    if math.isnan(g) or math.isinf(g) or math.isnan(ref) or math.isinf(ref):
        return False
    kind, v = tol
    err = abs(g - ref)
    if kind == "ulp":
        mant = {"f32": 23, "f64": 52, "f16": 10, "bf16": 7}[t]
        emin = {"f32": -126, "f64": -1022, "f16": -14, "bf16": -126}[t]
        e = max(math.frexp(ref)[1] - 1, emin) if ref else emin
        return err <= v * 2.0 ** (e - mant)
    if kind == "rel":
        return err <= 2.0 ** v * abs(ref)
    return err <= 2.0 ** v


def match_row(form, inputs, exp_row, got_row):
    """'ok', 'nan' (only NaN bits differ) or 'bad'."""
    if len(exp_row) != len(got_row):
        return "bad"
    verdict = "ok"
    for t, e, g in zip(form.views, exp_row, got_row):
        tol = form.tol
        if tol and tol[0] == "sincos":
            # The bound holds on [-pi, pi]; outside, an H100 is off by far
            # more (141 ulp at 255.5), so only the range is checked there:
            # any value in [-1, 1], NaN where NVIDIA gives NaN.
            x = to_float("f32", inputs[0])
            if not math.isnan(x) and abs(x) > math.pi:
                fe, fg = to_float(t, int(e, 16)), to_float(t, int(g, 16))
                if (math.isnan(fe) and math.isnan(fg)) or (not math.isnan(fe) and -1.0 <= fg <= 1.0):
                    continue
                return "bad"
            tol = ("abs", tol[1])
        if match_value(t, tol, e, g):
            continue
        if tol and t in ("f32", "f64", "f16", "bf16"):
            ref = reference(form, t, inputs)
            fe = to_float(t, int(e, 16))
            if ref is not None and not math.isnan(fe) and not math.isinf(fe) and within_bound(t, tol, ref, int(g, 16)):
                continue
        if nan_only(t, e, g):
            verdict = "nan"
            continue
        return "bad"
    return verdict


def match_value(t, tol, exp_hex, got_hex):
    if exp_hex == got_hex:
        return True
    if tol is None or t not in ("f32", "f64", "f16", "bf16", "f16x2", "bf16x2"):
        return False
    e, g = int(exp_hex, 16), int(got_hex, 16)
    if t in ("f16x2", "bf16x2"):
        h = t[:-2]
        return close(h, tol, e & 0xFFFF, g & 0xFFFF) and close(h, tol, e >> 16, g >> 16)
    return close(t, tol, e, g)


def load_expected(path):
    exp = {}
    if not os.path.exists(path):
        return exp
    name = os.path.basename(path)
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, kind, reason = (part.strip() for part in (line.split("|", 2) + ["", ""])[:3])
            if kind not in ("nan", "values"):
                sys.exit(f"{name}: '{line}': the second field must be 'nan' or 'values'")
            exp[key] = (kind, reason)
    return exp


def run_family(runner, work, fam, fs, env):
    """Run one family's job; after a kernel the runner's watchdog called
    hung (exit 3), run the kernels after it in a fresh process."""
    outs, part = [], 0
    while fs:
        write_family(work, fam, fs)
        out = os.path.join(work, f"{fam}.{part}.out")
        with open(out, "w") as o:
            p = subprocess.run([runner, os.path.join(work, fam + ".job")], stdout=o, env=env)
        outs.append(out)
        if p.returncode == 0:
            break
        done = parse_results([out])
        if p.returncode != 3 or not done:
            print(f"check: runner failed on {fam} (exit {p.returncode})")
            break
        last = max(i for i, f in enumerate(fs) if f.name in done)
        print(f"check: {fs[last].key} hung; going on after it")
        fs, part = fs[last + 1:], part + 1
    return outs


def cmd_check(args):
    forms = selected_forms(family=args.family)
    crcs = {}
    gold = load_goldens(crcs)
    forms = [f for f in forms if f.key in gold and not isinstance(gold[f.key], tuple)]
    stale = [f.key for f in forms if crcs.get(f.key) != inputs_crc(f)]
    if stale:
        print(f"check: the inputs of {len(stale)} forms differ from the recorded ones (first: {stale[0]}); "
              "record the goldens again on NVIDIA hardware")
        return 1
    work = args.work or tempfile.mkdtemp(prefix="ptx-conformance-")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ)
    if args.lib:
        env["LD_LIBRARY_PATH"] = args.lib + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    env.setdefault("FERRY_BACKEND", "host")
    results = []
    if args.reuse:  # compare again what an earlier run left in --work
        import glob
        results = sorted(glob.glob(os.path.join(work, "*.out")))
    else:
        for fam, fs in families(forms).items():
            results += run_family(args.runner, work, fam, fs, env)
    got = parse_results(results)
    expected = load_expected(args.expected)
    bad_forms, listed_ok, unlisted, listed_bad, total_rows, bad_rows = [], [], [], [], 0, 0
    for f in forms:
        g = got.get(f.name)
        ref = gold[f.key]
        problems = []
        if g is None:
            problems.append("no result (runner stopped?)")
        elif isinstance(g, tuple):
            problems.append(f"ferry rejected the form: CUDA error {g[1]}")
        else:
            inputs = FM.inputs_for(f)
            nan_rows = []
            for i, (er, gr) in enumerate(zip(ref, g)):
                total_rows += 1
                v = match_row(f, inputs[i], er, gr)
                if v == "ok":
                    continue
                bad_rows += 1
                ins = " ".join(f"{x:x}" for x in inputs[i])
                line = f"in [{ins}] expected [{' '.join(er)}] got [{' '.join(gr)}]"
                if v == "nan":
                    nan_rows.append(line)
                    continue
                if len(problems) < args.show:
                    problems.append(line)
                elif len(problems) == args.show:
                    problems.append("...")
            if len(g) != len(ref):
                problems.append(f"{len(g)} rows, golden has {len(ref)}")
            if not problems and nan_rows:
                kind = "nan"
                problems = [f"(only NaN bits differ) {p}" for p in nan_rows[:args.show]]
        kind = "nan" if problems and problems[0].startswith("(only NaN") else "values"
        listed = expected.get(f.key)
        if problems:
            bad_forms.append((f.key, kind))
            if listed and (listed[0] == kind or listed[0] == "values"):
                if listed[0] == "values" and kind == "nan":
                    listed_ok.append(f.key)
                    print(f"NOW ONLY NAN BITS DIFFER {f.key} (listed as 'values': make it 'nan')")
                else:
                    listed_bad.append(f.key)
                    if args.verbose:
                        print(f"KNOWN {f.key}  ({listed[1]})")
            else:
                unlisted.append(f.key)
                print(f"MISMATCH {f.key}  [{kind}]" + (f" (listed as '{listed[0]}')" if listed else ""))
                for p in problems:
                    print(f"    {p}")
        elif listed:
            listed_ok.append(f.key)
            print(f"NOW PASSES {f.key} (listed in {os.path.basename(args.expected)}: {listed[1]})")
    fams = {}
    bad_keys = {k for k, _ in bad_forms}
    for f in forms:
        s = fams.setdefault(f.fam, [0, 0])
        s[0] += 1
        s[1] += f.key in bad_keys
    print("summary by family (forms, mismatching):")
    for fam, (n, b) in fams.items():
        print(f"  {fam:10s} {n:5d} {b:5d}")
    print(f"summary: {len(forms)} forms, {len(forms) - len(bad_forms)} match "
          f"({sum(1 for _, k in bad_forms if k == 'nan')} differ only in NaN bits); {len(listed_bad)} known mismatches, "
          f"{len(unlisted)} unlisted, {len(listed_ok)} listed but passing; {bad_rows} of {total_rows} rows differ")
    if args.write_expected:
        with open(args.write_expected, "w") as o:
            for k, kind in bad_forms:
                o.write(f"{k} | {kind} | {expected.get(k, (kind, 'TODO'))[1]}\n")
    return 1 if unlisted or listed_ok else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("dir")
    g.add_argument("--all", action="store_true")
    g.add_argument("--family")
    f = sub.add_parser("filter")
    f.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    r = sub.add_parser("record")
    r.add_argument("results", nargs="+")
    r.add_argument("--family", help="write only these families' goldens (the others stay as they are)")
    c = sub.add_parser("check")
    c.add_argument("--runner")
    c.add_argument("--lib")
    c.add_argument("--work")
    c.add_argument("--family")
    c.add_argument("--show", type=int, default=4)
    c.add_argument("--verbose", action="store_true")
    c.add_argument("--write-expected")
    c.add_argument("--expected", default=EXPECTED,
                   help="the known mismatches of the backend under test (default: the host backend's)")
    c.add_argument("--reuse", action="store_true", help="compare the results already in --work")
    args = ap.parse_args()
    return {"gen": cmd_gen, "filter": cmd_filter, "record": cmd_record, "check": cmd_check}[args.cmd](args) or 0


if __name__ == "__main__":
    sys.exit(main())
