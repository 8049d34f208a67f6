#!/usr/bin/env python3
"""Fit the H100's scalar video instructions (issue 21).

NVIDIA's ptxas emulates the PTX video instructions on sm_90 with ordinary
integer instructions, and the emulation departs from the PTX ISA's text
where values carry bit 31. This script states the rules measured on an H100
(goldens/video.txt and goldens/videosweep.txt: every combination of the
VIDEO_SWEEP words of forms.py, plus random words) as a Python model, and
checks the model against every whole-word scalar vadd/vsub/vabsdiff/vmin/
vmax/vmad row of the goldens. ferry's lowering (ptx/lower/LowerMisc.cpp)
implements the same rules.

  fit_video.py            check the model; print the rows it gets wrong
  fit_video.py --isa      the same with the PTX ISA's rules, to see where
                          the H100 departs from them

The rules, for d = op.dtype.atype.btype{.sat}{.op2} a, b{, c}:
  1. ta, tb: a and b extended by their types; t = op(ta, tb), exact.
  2. .sat: an s32 destination clamps t to the s32 range; a u32 destination
     only raises a negative t to 0 (no upper clamp: t wraps modulo 2^32).
  3. Before a secondary min/max, vadd and vsub wrap t to 32 bits and
     sign-extend it (whatever the destination type); vabsdiff, vmin and vmax
     keep the exact t.
  4. The secondary min/max compares t with c (extended by the destination
     type) as signed 64-bit values for an s32 destination and as unsigned
     64-bit values for a u32 one: a negative t (or, from vadd/vsub, one with
     bit 31 set) is then larger than every c. The secondary add wraps.
  5. vmad with .sat and .shr7/.shr15 on an unsigned final type shifts the
     64-bit intermediate right logically, so a negative one saturates to
     0xffffffff (without a shift, or with a signed final type, the shift is
     arithmetic and a negative value saturates to 0, as the ISA says).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import conformance as C  # noqa: E402
import forms as FM  # noqa: E402

M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def sx(v):
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def ext(v, t):
    return sx(v) if t == "s32" else v & M32


def model(key, ins, isa=False):
    """d for a whole-word scalar video form (the first word of its key)."""
    p = key.split(" ")[0].split(".")
    op, dt, at, bt, mods = p[0], p[1], p[2], p[3], p[4:]
    sat = "sat" in mods
    a, b = ext(ins[0], at), ext(ins[1], bt)
    if op == "vmad":
        # Whole-word sources are signed 32-bit values whatever their type, c
        # is sign-extended, and .sat clamps to s32 when the final type is
        # signed (ferry's existing rules: LowerMisc.cpp, lowerVmad).
        signed = at == "s32" or bt == "s32"
        t = sx(ins[0]) * sx(ins[1]) + sx(ins[2])
        sh = 7 if "shr7" in mods else 15 if "shr15" in mods else 0
        if sh and sat and not signed and not isa:
            t = (t & M64) >> sh  # rule 5
        else:
            t >>= sh
        if sat:
            t = max(-(1 << 31), min(t, (1 << 31) - 1)) if signed else max(0, min(t, M32))
        return t & M32
    t = {"vadd": a + b, "vsub": a - b, "vabsdiff": abs(a - b), "vmin": min(a, b), "vmax": max(a, b)}[op]
    if sat:
        if dt == "s32":
            t = max(-(1 << 31), min(t, (1 << 31) - 1))
        elif isa:
            t = max(0, min(t, M32))
        else:
            t = max(t, 0)  # rule 2
    op2 = next((m for m in mods if m in ("add", "min", "max")), None)
    if op2 is None:
        return t & M32
    c = ext(ins[2], dt)
    if op2 == "add":
        return (t + c) & M32
    if isa:
        t = ext(t, dt)  # the ISA: the intermediate is already of dtype
        pick = min if op2 == "min" else max
        return pick(t, c) & M32
    if op in ("vadd", "vsub"):
        t = sx(t)  # rule 3
    if dt == "u32":
        t &= M64  # rule 4: unsigned 64-bit comparison
    pick = min if op2 == "min" else max
    return pick(t, c) & M32


def main():
    isa = "--isa" in sys.argv
    gold = C.load_goldens()
    forms = [f for f in FM.all_forms() if f.fam in ("video", "videosweep")]
    ops = ("vadd.", "vsub.", "vabsdiff.", "vmin.", "vmax.", "vmad.")
    checked = bad_forms = rows = 0
    for f in forms:
        if not f.key.startswith(ops) or f.key not in gold:
            continue
        if " " in f.key and not f.key.endswith(" sweep"):
            continue  # selectors, negated operands: not whole-word forms
        checked += 1
        bad = []
        for ins, g in zip(FM.inputs_for(f), gold[f.key]):
            rows += 1
            want = int(g[0], 16)
            got = model(f.key, ins, isa)
            if got != want:
                bad.append((ins, want, got))
        if bad:
            bad_forms += 1
            print(f"{f.key}: {len(bad)} rows differ, e.g.")
            for ins, want, got in bad[:3]:
                print("   ", " ".join(f"{v:08x}" for v in ins), f"H100 {want:08x} model {got:08x}")
    print(f"{'ISA' if isa else 'fitted'} model: {checked} forms, {rows} rows; {bad_forms} forms differ")
    return 1 if bad_forms and not isa else 0


if __name__ == "__main__":
    sys.exit(main())
