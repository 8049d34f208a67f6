"""The instruction forms of the PTX conformance suite, and their inputs.

Each Form is one PTX instruction form (opcode, type, modifiers) with the
operands it reads and writes. The candidates are generated generously (the
cross product of the modifiers the PTX ISA lists for the opcode); the ones
NVIDIA's ptxas rejects for sm_90 are dropped by `conformance.py filter`
before recording, so the goldens define which forms exist.

Inputs are deterministic: an edge-value list per type (zeros of both signs,
denormals, infinities, NaNs with and without payload, the ends of the integer
ranges, shift amounts around the width, divisors 0 and -1) crossed pairwise,
then seeded random values (uniform bit patterns and values of nearby
magnitudes, so that rounding is exercised). The seed is the form's key, so
adding a form does not change the inputs of another.

Tolerances: a form is compared bit for bit unless it is an .approx form (or
div.full), where `tol` names the PTX ISA's stated bound (see TOLERANCES).
"""

import random
import re
import zlib

ROUNDS = ["rn", "rz", "rm", "rp"]
IROUNDS = ["rni", "rzi", "rmi", "rpi"]
INT_TYPES = ["u16", "s16", "u32", "s32", "u64", "s64"]
CMP_INT = ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]
CMP_FLOAT = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]

BITS = {"pred": 1, "b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
        "b32": 32, "u32": 32, "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32, "u16x2": 32, "s16x2": 32,
        "tf32": 32, "b64": 64, "u64": 64, "s64": 64, "f64": 64, "e4m3x2": 16, "e5m2x2": 16}


def tbits(t):
    return BITS[t]


class Form:
    """One instruction form. `body` is PTX with {d0}.. for results and {a0}..
    for operands; `outs`/`ins` are their PTX types; `tol` the comparison."""

    def __init__(self, fam, key, body, outs, ins, tol=None, pool=None, count=128, cross=False):
        self.fam, self.key, self.body, self.outs, self.ins = fam, key, body, outs, ins
        self.tol = tol
        # cross: every combination of the operands' pools first (then random
        # tuples up to count), instead of edges paired with rotating edges.
        self.cross = cross
        self.pool = pool or {}  # operand index -> custom value list generator
        self.count = count
        self.name = None  # kernel name, set by the generator
        # How results are read when comparing (NaN detection, tolerances):
        # the output types unless a bit type holds a float (tf32).
        self.views = list(outs)


# ---------------------------------------------------------------- values

def int_edges(bits):
    m = (1 << bits) - 1
    v = [0, 1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF,
         m, m - 1, m - 2, m >> 1, (m >> 1) + 1, (m >> 1) + 2, (m >> 1) - 1, 0x5555555555555555 & m,
         0xAAAAAAAAAAAAAAAA & m, 1 << (bits // 2), (1 << (bits // 2)) - 1, 0x12345678 & m, 0x0F0F0F0F0F0F0F0F & m,
         (-100) & m, (-7) & m, 100, 1000 & m]
    out = []
    for x in v:
        x &= m
        if x not in out:
            out.append(x)
    return out


F32_EDGES = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000,
             0x3F800000, 0xBF800000, 0x3F000000, 0xBF000000, 0x40000000, 0x3FC00000, 0xC0200000, 0x40200000,
             0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FA00001, 0xFFC00123,
             0x3EAAAAAB, 0x40490FDB, 0xC0490FDB, 0x4B800001, 0x4F000000, 0xCF000000, 0x4EFFFFFF, 0x4F800000,
             0x5F000000, 0xDF000000, 0x437F8000, 0x43800000, 0xC3010000, 0x477FFF80, 0x3EFFFFFF, 0x3F7FFFFF,
             0x3F800001, 0x7149F2CA, 0x0DA24260, 0x33800000, 0x4B000001, 0x3F400000, 0x40400000, 0xBFC00000]
F64_EDGES = [0x0, 0x8000000000000000, 0x1, 0x8000000000000001, 0x000FFFFFFFFFFFFF, 0x0010000000000000,
             0x8010000000000000, 0x3FF0000000000000, 0xBFF0000000000000, 0x3FE0000000000000, 0x4000000000000000,
             0x3FF8000000000000, 0xC004000000000000, 0x4004000000000000, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF,
             0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000000, 0x7FF4000000000001,
             0x3FD5555555555555, 0x400921FB54442D18, 0x41E0000000000000, 0xC1E0000000000000, 0x41DFFFFFFFC00000,
             0x41F0000000000000, 0x43E0000000000000, 0xC3E0000000000000, 0x43F0000000000000, 0x47EFFFFFE0000000,
             0x47F0000000000000, 0x36A0000000000000, 0x3810000000000000, 0x380FFFFFFFFFFFFF, 0x3FEFFFFFFFFFFFFF,
             0x3FF0000000000001, 0x4330000000000001, 0x40EFFFE000000000, 0x40EFFFF000000000]
F16_EDGES = [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x8400, 0x3C00, 0xBC00, 0x3800, 0x4000, 0x3E00, 0xC100,
             0x4100, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7D01, 0x3555, 0x4248, 0x3BFF, 0x3C01,
             0x6400, 0x7800, 0xC900, 0x1400, 0x0200, 0x5BFF, 0x3A00]
BF16_EDGES = [0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x8080, 0x3F80, 0xBF80, 0x3F00, 0x4000, 0x3FC0,
              0xC020, 0x4020, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7FA1, 0x3EAB, 0x4049, 0x3F7F,
              0x3F81, 0x4B80, 0x4F00, 0xCF00, 0x437F, 0x0D00, 0x3F40, 0x4040]


def moderate_float(rng, t):
    """A value of moderate magnitude with random mantissa (bits)."""
    sign = rng.getrandbits(1)
    if t == "f32":
        e = 127 + rng.randint(-6, 8)
        return (sign << 31) | (e << 23) | rng.getrandbits(23)
    if t == "f64":
        e = 1023 + rng.randint(-6, 8)
        return (sign << 63) | (e << 52) | rng.getrandbits(52)
    if t == "f16":
        e = 15 + rng.randint(-4, 5)
        return (sign << 15) | (e << 10) | rng.getrandbits(10)
    if t == "bf16":
        e = 127 + rng.randint(-6, 8)
        return (sign << 15) | (e << 7) | rng.getrandbits(7)
    raise ValueError(t)


def edges_of(t):
    if t == "pred":
        return [0, 1]
    if t == "f32":
        return F32_EDGES
    if t == "f64":
        return F64_EDGES
    if t == "f16":
        return F16_EDGES
    if t == "bf16":
        return BF16_EDGES
    if t in ("f16x2", "bf16x2"):
        e = edges_of(t[:-2])
        return [e[i] | (e[(i * 7 + 3) % len(e)] << 16) for i in range(len(e))]
    if t == "tf32":
        return F32_EDGES
    return int_edges(tbits(t))


def random_of(rng, t):
    if t == "pred":
        return rng.getrandbits(1)
    if t in ("f32", "f64", "f16", "bf16", "tf32"):
        base = "f32" if t == "tf32" else t
        r = rng.random()
        if r < 0.45:
            return moderate_float(rng, base)
        if r < 0.55:  # small integers and halves: conversions and rounding ties
            v = rng.randint(-300, 300) / 2.0
            return float_bits(base, v)
        return rng.getrandbits(tbits(base))
    if t in ("f16x2", "bf16x2"):
        return random_of(rng, t[:-2]) | (random_of(rng, t[:-2]) << 16)
    bits = tbits(t)
    if rng.random() < 0.3:
        return rng.randint(-70, 70) & ((1 << bits) - 1)
    return rng.getrandbits(bits)


def float_bits(t, v):
    import struct
    if t == "f32":
        return struct.unpack("<I", struct.pack("<f", v))[0]
    if t == "f64":
        return struct.unpack("<Q", struct.pack("<d", v))[0]
    if t == "f16":
        return struct.unpack("<H", struct.pack("<e", v))[0]
    if t == "bf16":
        return struct.unpack("<I", struct.pack("<f", v))[0] >> 16
    raise ValueError(t)


def widen(t, v):
    """The 64-bit slot holding operand value v of type t: narrow signed
    integers are sign-extended to their register (16 bits for 8-bit types)."""
    if t in ("s8",):
        v &= 0xFF
        return v | 0xFF00 if v & 0x80 else v
    return v


def inputs_for(form):
    rng = random.Random(zlib.crc32(form.key.encode()))
    n = form.count
    ins = form.ins
    pools = []
    for i, t in enumerate(ins):
        pools.append(form.pool[i](t) if i in form.pool else edges_of(t))
    rows = []
    if form.cross:
        rows = [[]]
        for p in pools:
            rows = [r + [v] for r in rows for v in p]
    elif len(ins) == 1:
        rows = [[v] for v in pools[0]]
    elif ins:
        # Pairs of edges first (every edge of each operand against a rotating
        # edge of the others), then random tuples.
        limit = n * 5 // 8
        for i, t in enumerate(ins):
            for j, v in enumerate(pools[i]):
                row = [pools[k][(j * (2 * k + 3) + i) % len(pools[k])] for k in range(len(ins))]
                row[i] = v
                rows.append(row)
        rng.shuffle(rows)
        rows = rows[:limit]
    rows = rows[:n]
    while len(rows) < n:
        row = []
        for i, t in enumerate(ins):
            if i in form.pool and rng.random() < 0.5:
                row.append(rng.choice(pools[i]))
            else:
                row.append(random_of(rng, t))
        rows.append(row)
    return [[widen(t, v) for t, v in zip(ins, row)] for row in rows]


def shift_pool(t):
    return [0, 1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]


def small_pool(limit):
    return lambda t: list(range(0, limit)) + [0xFFFFFFFF, 0x80000000, 256, 255]


def bool_pool(t):
    return [0, 1]


# ---------------------------------------------------------------- tolerances
# The PTX ISA's stated bounds for the approximate forms (PTX ISA 9.0, 9.7.3):
#   div.approx.f32, div.full.f32    max 2 ulp
#   rcp.approx.f32                  max 1 ulp
#   rcp.approx.ftz.f64              "bound ~ 2^-22" relative (approximation of
#                                   1/x to ~20 bits of the mantissa)
#   sqrt.approx.f32                 max relative error 2^-23 (1 ulp)
#   rsqrt.approx.f32                max relative error 2^-22.9
#   rsqrt.approx.f64, .ftz.f64      max relative error 2^-22.9 (approx. to float)
#   ex2.approx.f32                  max 2 ulp
#   lg2.approx.f32                  max absolute error 2^-22 (mantissa range)
#   sin/cos.approx.f32              max absolute error 2^-20.5 in -100pi..100pi
#   tanh.approx.f32                 max relative error 2^-10.987
#   ex2/tanh .approx f16, bf16      max relative error 2^-9.9 (half) / 2^-7 (bf16)
# ISA wording is per instruction; where it states an absolute bound for a
# range only, outside it the result must still have the right class (NaN,
# infinity, sign), and the relative bound below is applied as a backstop.
TOLERANCES = {}


# ---------------------------------------------------------------- families

def unop(fam, op, outs_t, in_t, **kw):
    return Form(fam, op, op + " {d0}, {a0};", [outs_t], [in_t], **kw)


def binop(fam, op, out_t, in_t, in_t2=None, **kw):
    return Form(fam, op, op + " {d0}, {a0}, {a1};", [out_t], [in_t, in_t2 or in_t], **kw)


def ternop(fam, op, out_t, a, b, c, **kw):
    return Form(fam, op, op + " {d0}, {a0}, {a1}, {a2};", [out_t], [a, b, c], **kw)


def wide(t):
    return {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64"}.get(t)


def int_arith():
    F = []
    for t in INT_TYPES + ["u16x2", "s16x2"]:
        for op in ["add", "sub"]:
            for sat in ["", ".sat"]:
                F.append(binop("intarith", f"{op}{sat}.{t}", t, t))
        for op in ["min", "max"]:
            for relu in ["", ".relu"]:
                F.append(binop("intarith", f"{op}{relu}.{t}", t, t))
    for t in INT_TYPES:
        for mode in ["lo", "hi", "wide"]:
            d = wide(t) if mode == "wide" else t
            if d is None:
                continue
            F.append(binop("intarith", f"mul.{mode}.{t}", d, t))
            for sat in ["", ".sat"]:
                F.append(ternop("intarith", f"mad.{mode}{sat}.{t}", d, t, t, d))
        F.append(ternop("intarith", f"sad.{t}", t, t, t, t))
        for op in ["div", "rem"]:
            F.append(binop("intarith", f"{op}.{t}", t, t))
        if t[0] == "s":
            F.append(unop("intarith", f"abs.{t}", t, t))
            F.append(unop("intarith", f"neg.{t}", t, t))
    for t in ["u32", "s32"]:
        for mode in ["lo", "hi"]:
            F.append(binop("intarith", f"mul24.{mode}.{t}", t, t))
            for sat in ["", ".sat"]:
                F.append(ternop("intarith", f"mad24.{mode}{sat}.{t}", t, t, t, t))
    for ta in ["u32", "s32"]:
        for tb in ["u32", "s32"]:
            F.append(ternop("intarith", f"dp4a.{ta}.{tb}", "u32" if ta == tb == "u32" else "s32", ta, tb,
                            "u32" if ta == tb == "u32" else "s32"))
            for mode in ["lo", "hi"]:
                F.append(ternop("intarith", f"dp2a.{mode}.{ta}.{tb}", "u32" if ta == tb == "u32" else "s32",
                                ta, tb, "u32" if ta == tb == "u32" else "s32"))
    return F


def carry():
    """Extended-precision chains. CC.CF is not a register, so each form is a
    short chain: set the carry from a predicate operand, run the form, read
    the carry out with addc 0+0."""
    F = []
    for t in ["u32", "s32", "u64", "s64"]:
        z = "0"
        setc = f"add.cc.{t} {{t}}, {{a2}}, -1;"  # carry in = (a2 != 0)
        getc = f"addc.{t} {{d1}}, {z}, {z};"
        for op in ["add", "sub"]:
            F.append(Form("carry", f"{op}.cc.{t}", f"{op}.cc.{t} {{d0}}, {{a0}}, {{a1}}; {getc}",
                          [t, t], [t, t]))
            for cc in ["", ".cc"]:
                c = f"{op}c{cc}.{t}"
                tail = getc if cc else ""
                outs = [t, t] if cc else [t]
                F.append(Form("carry", c, f"{setc} {c} {{d0}}, {{a0}}, {{a1}}; {tail}", outs, [t, t, t],
                              pool={2: lambda _t: [0, 1]}))
        for mode in ["lo", "hi"]:
            F.append(Form("carry", f"mad.{mode}.cc.{t}",
                          f"mad.{mode}.cc.{t} {{d0}}, {{a0}}, {{a1}}, {{a2}}; {getc}", [t, t], [t, t, t]))
            for cc in ["", ".cc"]:
                c = f"madc.{mode}{cc}.{t}"
                tail = getc if cc else ""
                outs = [t, t] if cc else [t]
                F.append(Form("carry", c, f"add.cc.{t} {{t}}, {{a3}}, -1; {c} {{d0}}, {{a0}}, {{a1}}, {{a2}}; {tail}",
                              outs, [t, t, t, t], pool={3: lambda _t: [0, 1]}))
    return F


def bits():
    F = []
    for t in ["b16", "b32", "b64", "pred"]:
        for op in ["and", "or", "xor"]:
            F.append(binop("bits", f"{op}.{t}", t, t))
        F.append(unop("bits", f"not.{t}", t, t))
        if t != "pred":
            F.append(unop("bits", f"cnot.{t}", t, t))
    for t in ["b16", "b32", "b64"]:
        F.append(binop("bits", f"shl.{t}", t, t, "u32", pool={1: shift_pool}))
    for t in ["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"]:
        F.append(binop("bits", f"shr.{t}", t, t, "u32", pool={1: shift_pool}))
    for t in ["b32", "b64"]:
        F.append(unop("bits", f"popc.{t}", "u32", t))
        F.append(unop("bits", f"clz.{t}", "u32", t))
        F.append(unop("bits", f"brev.{t}", t, t))
        F.append(Form("bits", f"bfi.{t}", "bfi.%s {d0}, {a0}, {a1}, {a2}, {a3};" % t, [t], [t, t, "u32", "u32"],
                      pool={2: shift_pool, 3: shift_pool}))
    for t in ["u32", "s32", "u64", "s64"]:
        for sa in ["", ".shiftamt"]:
            F.append(unop("bits", f"bfind{sa}.{t}", "u32", t))
        F.append(ternop("bits", f"bfe.{t}", t, t, "u32", "u32", pool={1: shift_pool, 2: shift_pool}))
    for mode in ["wrap", "clamp"]:
        for t in ["u32", "s32"]:
            F.append(binop("bits", f"szext.{mode}.{t}", t, t, "u32", pool={1: shift_pool}))
        F.append(binop("bits", f"bmsk.{mode}.b32", "b32", "b32", "u32", pool={0: shift_pool, 1: shift_pool}))
        for d in ["l", "r"]:
            F.append(ternop("bits", f"shf.{d}.{mode}.b32", "b32", "b32", "b32", "u32", pool={2: shift_pool}))
    F.append(ternop("bits", "fns.b32", "b32", "b32", "u32", "s32", pool={1: shift_pool}))
    for mode in ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]:
        F.append(ternop("bits", f"prmt.b32{mode}", "b32", "b32", "b32", "b32"))
    F.append(Form("bits", "mov.b32 {h,h}", "mov.b32 {d0}, {{{a0}, {a1}}};", ["b32"], ["b16", "b16"], count=32))
    F.append(Form("bits", "mov.b64 {r,r}", "mov.b64 {d0}, {{{a0}, {a1}}};", ["b64"], ["b32", "b32"], count=32))
    F.append(Form("bits", "mov.b32 {h,h}=", "mov.b32 {{{d0}, {d1}}}, {a0};", ["b16", "b16"], ["b32"], count=32))
    F.append(Form("bits", "mov.b64 {r,r}=", "mov.b64 {{{d0}, {d1}}}, {a0};", ["b32", "b32"], ["b64"], count=32))
    for lut in [0x00, 0xFF, 0x96, 0xE8, 0xCA, 0x80, 0xFE, 0x01, 0x3C, 0x5A, 0xF0, 0xCC, 0xAA, 0x6A, 0xB4, 0x1E]:
        F.append(Form("bits", f"lop3.b32 0x{lut:02x}", f"lop3.b32 {{d0}}, {{a0}}, {{a1}}, {{a2}}, 0x{lut:02x};",
                      ["b32"], ["b32", "b32", "b32"], count=64))
    for bop in ["and", "or"]:
        F.append(Form("bits", f"lop3.{bop}.b32 0x96", f"lop3.{bop}.b32 {{d0}}|{{d1}}, {{a0}}, {{a1}}, {{a2}}, 0x96, {{a3}};",
                      ["b32", "pred"], ["b32", "b32", "b32", "pred"]))
    return F


def compare():
    F = []
    for t in INT_TYPES + ["b16", "b32", "b64"]:
        cmps = CMP_INT if t[0] != "b" else ["eq", "ne"]
        for c in cmps:
            F.append(binop("compare", f"setp.{c}.{t}", "pred", t, count=64))
    ftypes = [("f32", ["", ".ftz"]), ("f64", [""]), ("f16", ["", ".ftz"]), ("bf16", [""])]
    for t, ftzs in ftypes:
        for c in CMP_FLOAT:
            for ftz in ftzs:
                F.append(binop("compare", f"setp.{c}{ftz}.{t}", "pred", t, count=96))
    for t in ["f16x2", "bf16x2"]:
        for c in CMP_FLOAT:
            F.append(Form("compare", f"setp.{c}.{t}", f"setp.{c}.{t} {{d0}}|{{d1}}, {{a0}}, {{a1}};",
                          ["pred", "pred"], [t, t], count=96))
    for bop in ["and", "or", "xor"]:
        for t in ["s32", "f32"]:
            for c in (["lt", "ne"] if t == "s32" else ["lt", "nan", "geu"]):
                F.append(Form("compare", f"setp.{c}.{bop}.{t}",
                              f"setp.{c}.{bop}.{t} {{d0}}|{{d1}}, {{a0}}, {{a1}}, {{a2}};",
                              ["pred", "pred"], [t, t, "pred"], count=96))
    for dt in ["u32", "s32", "f32"]:
        for t, cs in [("s32", ["lt", "eq"]), ("u32", ["hi"]), ("f32", ["lt", "equ", "nan"]), ("f64", ["ge"]),
                      ("u64", ["lo"])]:
            for c in cs:
                F.append(binop("compare", f"set.{c}.{dt}.{t}", dt, t, count=64))
            if t == "f32":
                F.append(binop("compare", f"set.lt.ftz.{dt}.{t}", dt, t, count=64))
        F.append(Form("compare", f"set.lt.and.{dt}.s32", f"set.lt.and.{dt}.s32 {{d0}}, {{a0}}, {{a1}}, {{a2}};",
                      [dt], ["s32", "s32", "pred"], count=64))
    for t in ["f16", "bf16", "f16x2", "bf16x2"]:
        for dt in ["u32", "s32", "f32", t]:
            for c in ["lt", "equ"]:
                F.append(binop("compare", f"set.{c}.{dt}.{t}", dt if dt in ("f32", "u32", "s32") else t, t, count=64))
    for t in ["b16", "b32", "b64", "u32", "s32", "u64", "f32", "f64", "u16", "s16"]:
        F.append(ternop("compare", f"selp.{t}", t, t, t, "pred", count=32))
    for dt in ["b32", "u32", "s32", "f32", "b64", "u64", "s64", "f64", "b16", "u16", "s16"]:
        for st, ftzs in [("s32", [""]), ("f32", ["", ".ftz"])]:
            for ftz in ftzs:
                F.append(ternop("compare", f"slct{ftz}.{dt}.{st}", dt, dt, dt, st, count=64))
    return F


def float_arith():
    F = []
    fl = lambda *a, **k: F.append(binop("float", *a, **k))
    for op in ["add", "sub", "mul"]:
        for r in [""] + ["." + x for x in ROUNDS]:
            for ftz in ["", ".ftz"]:
                for sat in ["", ".sat"]:
                    fl(f"{op}{r}{ftz}{sat}.f32", "f32", "f32")
            fl(f"{op}{r}.f64", "f64", "f64")
        for t in ["f16", "f16x2"]:
            for r in ["", ".rn"]:
                for ftz in ["", ".ftz"]:
                    for sat in ["", ".sat"]:
                        fl(f"{op}{r}{ftz}{sat}.{t}", t, t)
        for t in ["bf16", "bf16x2"]:
            for r in ["", ".rn"]:
                fl(f"{op}{r}.{t}", t, t)
    for r in ROUNDS:
        for ftz in ["", ".ftz"]:
            for sat in ["", ".sat"]:
                F.append(ternop("float", f"fma.{r}{ftz}{sat}.f32", "f32", "f32", "f32", "f32"))
                F.append(ternop("float", f"mad.{r}{ftz}{sat}.f32", "f32", "f32", "f32", "f32"))
                F.append(ternop("float", f"mad{ftz}{sat}.f32", "f32", "f32", "f32", "f32"))
        F.append(ternop("float", f"fma.{r}.f64", "f64", "f64", "f64", "f64"))
        F.append(ternop("float", f"mad.{r}.f64", "f64", "f64", "f64", "f64"))
    for t in ["f16", "f16x2"]:
        for mod in ["", ".ftz", ".sat", ".ftz.sat", ".relu", ".ftz.relu"]:
            F.append(ternop("float", f"fma.rn{mod}.{t}", t, t, t, t))
    for t in ["bf16", "bf16x2"]:
        for mod in ["", ".relu"]:
            F.append(ternop("float", f"fma.rn{mod}.{t}", t, t, t, t))
    for op in ["min", "max"]:
        for t, ftzs in [("f32", ["", ".ftz"]), ("f64", [""]), ("f16", ["", ".ftz"]), ("f16x2", ["", ".ftz"]),
                        ("bf16", [""]), ("bf16x2", [""])]:
            for ftz in ftzs:
                for nan in ["", ".NaN"]:
                    for xs in ["", ".xorsign.abs"]:
                        fl(f"{op}{ftz}{nan}{xs}.{t}", t, t)
    for op in ["abs", "neg"]:
        for t, ftzs in [("f32", ["", ".ftz"]), ("f64", [""]), ("f16", ["", ".ftz"]), ("f16x2", ["", ".ftz"]),
                        ("bf16", [""]), ("bf16x2", [""])]:
            for ftz in ftzs:
                F.append(unop("float", f"{op}{ftz}.{t}", t, t))
    for t in ["f32", "f64"]:
        fl(f"copysign.{t}", t, t)
        for c in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]:
            F.append(unop("float", f"testp.{c}.{t}", "pred", t))
    return F


def special():
    F = []
    A = lambda op, t, tol, n=2: F.append(Form("special", op, (op + " {d0}, " + ", ".join(
        "{a%d}" % i for i in range(n)) + ";"), [t], [t] * n, tol=tol))
    for ftz in ["", ".ftz"]:
        A(f"div.approx{ftz}.f32", "f32", ("ulp", 2))
        A(f"div.full{ftz}.f32", "f32", ("ulp", 2))
        for r in ROUNDS:
            A(f"div.{r}{ftz}.f32", "f32", None)
            A(f"rcp.{r}{ftz}.f32", "f32", None, 1)
            A(f"sqrt.{r}{ftz}.f32", "f32", None, 1)
        A(f"rcp.approx{ftz}.f32", "f32", ("ulp", 1), 1)
        A(f"sqrt.approx{ftz}.f32", "f32", ("rel", -23), 1)
        A(f"rsqrt.approx{ftz}.f32", "f32", ("rel", -22.9), 1)
        A(f"ex2.approx{ftz}.f32", "f32", ("ulp", 2), 1)
        A(f"lg2.approx{ftz}.f32", "f32", ("abs", -22), 1)
        A(f"sin.approx{ftz}.f32", "f32", ("sincos", -20.9), 1)
        A(f"cos.approx{ftz}.f32", "f32", ("sincos", -20.9), 1)
    for r in ROUNDS:
        A(f"div.{r}.f64", "f64", None)
        A(f"rcp.{r}.f64", "f64", None, 1)
        A(f"sqrt.{r}.f64", "f64", None, 1)
    for op, n in [("div", 2), ("rcp", 1), ("sqrt", 1)]:
        A(f"{op}.f32", "f32", None, n)
        A(f"{op}.f64", "f64", None, n)
    A("rcp.approx.ftz.f64", "f64", ("rel", -20), 1)
    A("rsqrt.approx.f64", "f64", ("rel", -22.9), 1)
    A("rsqrt.approx.ftz.f64", "f64", ("rel", -22.9), 1)
    A("tanh.approx.f32", "f32", ("rel", -10.987), 1)
    for t in ["f16", "f16x2"]:
        A(f"tanh.approx.{t}", t, ("rel", -9.9), 1)
        A(f"ex2.approx.{t}", t, ("rel", -9.9), 1)
        A(f"ex2.approx.ftz.{t}", t, ("rel", -9.9), 1)
    for t in ["bf16", "bf16x2"]:
        A(f"tanh.approx.{t}", t, ("rel", -7), 1)
        A(f"ex2.approx.ftz.{t}", t, ("rel", -7), 1)
    return F


CVT_TYPES = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "bf16", "f32", "f64"]


def cvt():
    F = []
    for d in CVT_TYPES:
        for s in CVT_TYPES:
            df, sf = d[0] in "fb", s[0] in "fb"
            if df and sf:
                rounds = [""] + ["." + r for r in ROUNDS + IROUNDS]
            elif df:
                rounds = [""] + ["." + r for r in ROUNDS]
            elif sf:
                rounds = [""] + ["." + r for r in IROUNDS]
            else:
                rounds = [""]
            ftzs = ["", ".ftz"] if "f32" in (d, s) and (df or sf) else [""]
            sats = ["", ".sat"]
            relus = ["", ".relu"] if d in ("f16", "bf16") and sf else [""]
            for r in rounds:
                for ftz in ftzs:
                    for sat in sats:
                        for relu in relus:
                            if relu and sat:
                                continue
                            F.append(unop("cvt", f"cvt{r}{ftz}{sat}{relu}.{d}.{s}", d, s, count=96))
    for d in ["f16x2", "bf16x2"]:
        for mod in ["", ".relu", ".satfinite", ".relu.satfinite"]:
            F.append(binop("cvt", f"cvt.rn{mod}.{d}.f32", d, "f32", count=96))
    for r in ["rna", "rn", "rz"]:
        for sf in ["", ".satfinite"]:
            F.append(unop("cvt", f"cvt.{r}{sf}.tf32.f32", "b32", "f32", count=96))
            F[-1].views = ["f32"]
    for d in ["e4m3x2", "e5m2x2"]:
        for relu in ["", ".relu"]:
            F.append(unop("cvt", f"cvt.rn.satfinite{relu}.{d}.f16x2", "b16", "f16x2", count=96))
            F.append(binop("cvt", f"cvt.rn.satfinite{relu}.{d}.f32", "b16", "f32", count=96))
            F.append(unop("cvt", f"cvt.rn{relu}.f16x2.{d}", "f16x2", "b16", count=96))
    for dt in ["u16", "s16"]:
        for s in ["s32", "u32"]:
            F.append(binop("cvt", f"cvt.pack.sat.{dt}.{s}", "b32", s, count=64))
    for dt in ["u8", "s8"]:
        for s in ["s32", "u32"]:
            F.append(ternop("cvt", f"cvt.pack.sat.{dt}.{s}.b32", "b32", s, s, "b32", count=64))
    return F


def warp():
    """Warp-wide forms on a full warp (the launch is whole warps). Lane and
    offset operands come from small pools so that they land in range, on the
    clamp and past it."""
    F = []
    lanes = lambda t: list(range(0, 40))
    clamps = lambda t: [0x1F, 0x0, 0x1C1F, 0x181F, 0x101F, 0x1F00, 0x3, 0x1F1F]
    for mode in ["up", "down", "bfly", "idx"]:
        F.append(Form("warp", f"shfl.sync.{mode}.b32", f"shfl.sync.{mode}.b32 {{d0}}|{{d1}}, {{a0}}, {{a1}}, {{a2}}, 0xffffffff;",
                      ["b32", "pred"], ["b32", "u32", "u32"], pool={1: lanes, 2: clamps}))
    for mode in ["all", "any", "uni"]:
        F.append(Form("warp", f"vote.sync.{mode}.pred", f"vote.sync.{mode}.pred {{d0}}, {{a0}}, 0xffffffff;",
                      ["pred"], ["pred"]))
    F.append(Form("warp", "vote.sync.ballot.b32", "vote.sync.ballot.b32 {d0}, {a0}, 0xffffffff;", ["b32"], ["pred"]))
    few = lambda t: [0, 1, 2, 3]
    for t in ["b32", "b64"]:
        F.append(Form("warp", f"match.sync.any.{t}", f"match.sync.any.{t} {{d0}}, {{a0}}, 0xffffffff;",
                      ["b32"], [t], pool={0: few}))
        F.append(Form("warp", f"match.sync.all.{t}", f"match.sync.all.{t} {{d0}}|{{d1}}, {{a0}}, 0xffffffff;",
                      ["b32", "pred"], [t], pool={0: lambda _t: [7]}, count=64))
    for op, types in [("add", ["u32", "s32"]), ("min", ["u32", "s32"]), ("max", ["u32", "s32"]),
                      ("and", ["b32"]), ("or", ["b32"]), ("xor", ["b32"])]:
        for t in types:
            F.append(Form("warp", f"redux.sync.{op}.{t}", f"redux.sync.{op}.{t} {{d0}}, {{a0}}, 0xffffffff;", [t], [t]))
    for op in ["min", "max"]:
        for mod in ["", ".abs", ".NaN", ".abs.NaN"]:
            F.append(Form("warp", f"redux.sync.{op}{mod}.f32", f"redux.sync.{op}{mod}.f32 {{d0}}, {{a0}}, 0xffffffff;",
                          ["f32"], ["f32"]))
    F.append(Form("warp", "activemask.b32", "activemask.b32 {d0};", ["b32"], ["pred"]))
    return F


def atom():
    """Atomics on each thread's own word (global: the second result slot;
    shared: the thread's word of a shared array), so results are
    deterministic: the old value and the memory afterwards."""
    F = []
    ops = [("add", ["u32", "s32", "u64", "f32", "f64", "noftz.f16", "noftz.f16x2", "noftz.bf16", "noftz.bf16x2"]),
           ("min", ["u32", "s32", "u64", "s64", "f32"]), ("max", ["u32", "s32", "u64", "s64", "f32"]),
           ("inc", ["u32"]), ("dec", ["u32"]), ("and", ["b32", "b64"]), ("or", ["b32", "b64"]),
           ("xor", ["b32", "b64"]), ("exch", ["b32", "b64"])]
    for space in ["global", "shared"]:
        for op, types in ops:
            for ty in types:
                t = ty.split(".")[-1]
                st = {16: "b16", 32: "b32", 64: "b64"}[FM_bits(t)]
                pre = f"st.{space}.{st} [{{m}}], {{a0}}; "
                post = f" ld.{space}.{st} {{d1}}, [{{m}}];"
                F.append(Form("atom", f"atom.{space}.{op}.{ty}", pre + f"atom.{space}.{op}.{ty} {{d0}}, [{{m}}], {{a1}};" + post,
                              [t, t], [t, t], pool={1: shift_pool} if op in ("inc", "dec") else None))
                if op != "exch":
                    F.append(Form("atom", f"red.{space}.{op}.{ty}", pre + f"red.{space}.{op}.{ty} [{{m}}], {{a1}}; mov.{st} {{d0}}, 0;" + post,
                                  [t, t], [t, t], pool={1: shift_pool} if op in ("inc", "dec") else None))
        for t in ["b16", "b32", "b64"]:
            F.append(Form("atom", f"atom.{space}.cas.{t}",
                          f"st.{space}.{t} [{{m}}], {{a0}}; selp.{t} {{t}}, {{a0}}, {{a1}}, {{a3}}; "
                          f"atom.{space}.cas.{t} {{d0}}, [{{m}}], {{t}}, {{a2}}; ld.{space}.{t} {{d1}}, [{{m}}];",
                          [t, t], [t, t, t, "pred"]))
    return F


def FM_bits(t):
    return BITS[t]


def video():
    """The scalar (9.7.18) and SIMD (9.7.19) video instructions: operand
    signedness combinations, saturation, the secondary operation, byte and
    half selectors, and the SIMD destination masks."""
    F = []
    V = lambda key, body, n: F.append(Form("video", key, body, ["u32"], ["u32"] * n, count=96))
    combos = [("u32", "u32", "u32"), ("s32", "s32", "s32"), ("s32", "u32", "s32"), ("u32", "s32", "u32")]
    for op in ["vadd", "vsub", "vabsdiff", "vmin", "vmax"]:
        for dt, at, bt in combos:
            for sat in ["", ".sat"]:
                k = f"{op}.{dt}.{at}.{bt}{sat}"
                V(k, k + " {d0}, {a0}, {a1};", 2)
                for op2 in ["add", "min", "max"]:
                    V(f"{k}.{op2}", f"{k}.{op2} {{d0}}, {{a0}}, {{a1}}, {{a2}};", 3)
        k = f"{op}.s32.s32.s32"
        V(k + " sel", k + " {d0}, {a0}.b1, {a1}.h1;", 2)
        V(k + " dsel", k + " {d0}.b2, {a0}.b3, {a1}.b0, {a2};", 3)
    for op in ["vshl", "vshr"]:
        for dt, at in [("u32", "u32"), ("s32", "s32"), ("s32", "u32"), ("u32", "s32")]:
            for sat in ["", ".sat"]:
                for mode in ["wrap", "clamp"]:
                    k = f"{op}.{dt}.{at}.u32{sat}.{mode}"
                    F.append(Form("video", k, k + " {d0}, {a0}, {a1};", ["u32"], ["u32", "u32"], pool={1: shift_pool}))
    for dt, at, bt in combos:
        for sat in ["", ".sat"]:
            for scale in ["", ".shr7", ".shr15"]:
                k = f"vmad.{dt}.{at}.{bt}{sat}{scale}"
                V(k, k + " {d0}, {a0}, {a1}, {a2};", 3)
        V(f"vmad.{dt}.{at}.{bt} neg", f"vmad.{dt}.{at}.{bt} {{d0}}, -{{a0}}, {{a1}}, -{{a2}};", 3)
    for at, bt in [("u32", "u32"), ("s32", "s32"), ("s32", "u32")]:
        for c in ["eq", "ne", "lt", "le", "gt", "ge"]:
            V(f"vset.{at}.{bt}.{c}", f"vset.{at}.{bt}.{c} {{d0}}, {{a0}}, {{a1}};", 2)
        V(f"vset.{at}.{bt}.lt.add", f"vset.{at}.{bt}.lt.add {{d0}}, {{a0}}, {{a1}}, {{a2}};", 3)
    for n in ["2", "4"]:
        for op in ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"]:
            for dt, at, bt in combos:
                for sat in ["", ".sat"]:
                    k = f"{op}{n}.{dt}.{at}.{bt}{sat}"
                    V(k, k + " {d0}, {a0}, {a1}, {a2};", 3)
                V(f"{op}{n}.{dt}.{at}.{bt}.add", f"{op}{n}.{dt}.{at}.{bt}.add {{d0}}, {{a0}}, {{a1}}, {{a2}};", 3)
            mask = ".h1" if n == "2" else ".b0b2"
            sel = ".h10" if n == "2" else ".b7362"
            k = f"{op}{n}.u32.u32.u32"
            V(k + " mask", f"{k} {{d0}}{mask}, {{a0}}{sel}, {{a1}}, {{a2}};", 3)
        for at, bt in [("u32", "u32"), ("s32", "s32"), ("s32", "u32")]:
            for c in ["eq", "ne", "lt", "le", "gt", "ge"]:
                V(f"vset{n}.{at}.{bt}.{c}", f"vset{n}.{at}.{bt}.{c} {{d0}}, {{a0}}, {{a1}}, {{a2}};", 3)
            V(f"vset{n}.{at}.{bt}.lt.add", f"vset{n}.{at}.{bt}.lt.add {{d0}}, {{a0}}, {{a1}}, {{a2}};", 3)
    return F


# Words that tell the video emulation's rules apart: the ends of the s32 and
# u32 ranges and their neighbours (bit 31 set or not), halfway points, and
# small values; every combination of them for each operand.
VIDEO_SWEEP3 = [0, 1, 0x7FFF, 0x40000000, 0x7FFFFFFE, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xC0000000, 0xFFFFFFFF]
VIDEO_SWEEP2 = VIDEO_SWEEP3 + [2, 0x80, 0xFF, 0x8000, 0xFFFF, 0x3FFFFFFF, 0x7FFF0000, 0xFFFF0000, 0xFFFFFFFE]


def video_sweep():
    """The scalar video forms (whole words, no selectors) again, on every
    combination of VIDEO_SWEEP words plus random ones: ptxas emulates them
    on sm_90 and departs from the PTX ISA's text where values carry bit 31
    (saturation, the secondary min/max), so their rules are fitted to these
    rows (fit_video.py) rather than read from the ISA."""
    F = []
    for f in video():
        if " " in f.key or not re.match(r"v(add|sub|absdiff|min|max|shl|shr|mad|set)\.", f.key):
            continue
        n = len(f.ins)
        if f.key.startswith(("vshl", "vshr")):
            pool = {0: lambda t: VIDEO_SWEEP2, 1: shift_pool}
            count = len(VIDEO_SWEEP2) * len(shift_pool("u32")) + 128
        elif n == 2:
            pool = {0: lambda t: VIDEO_SWEEP2, 1: lambda t: VIDEO_SWEEP2}
            count = len(VIDEO_SWEEP2) ** 2 + 128
        else:
            pool = {i: (lambda t: VIDEO_SWEEP3) for i in range(n)}
            count = len(VIDEO_SWEEP3) ** n + 256
        F.append(Form("videosweep", f.key + " sweep", f.body, f.outs, f.ins, pool=pool, count=count, cross=True))
    return F


# NaNs of both signs, quiet and signalling, with and without payload, and
# the non-NaN values that make an invalid operation (0, the infinities) or
# pass a NaN on (1).
F64_NAN_SWEEP = [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFF4000000000002,
                 0x7FFC00000000ABCD, 0xFFF800000000DEAD, 0x7FF123456789ABCD, 0x3FF0000000000000,
                 0x7FF0000000000000, 0xFFF0000000000000, 0x0]


def f64_nan_sweep():
    """The f64 arithmetic forms on every combination of F64_NAN_SWEEP values:
    which NaN an H100 returns when several operands are NaN (x86 returns the
    first; the float family's inputs meet two NaNs only twice per form)."""
    F = []
    pool = lambda t: F64_NAN_SWEEP
    n = len(F64_NAN_SWEEP)
    for op in ["add", "sub", "mul"]:
        for r in [""] + ["." + x for x in ROUNDS]:
            k = f"{op}{r}.f64"
            F.append(Form("f64nan", k + " nan", k + " {d0}, {a0}, {a1};", ["f64"], ["f64", "f64"],
                          pool={0: pool, 1: pool}, count=n * n, cross=True))
    for k in ["min.f64", "max.f64"] + [f"div.{r}.f64" for r in ROUNDS]:
        F.append(Form("f64nan", k + " nan", k + " {d0}, {a0}, {a1};", ["f64"], ["f64", "f64"],
                      pool={0: pool, 1: pool}, count=n * n, cross=True))
    for r in ROUNDS:
        for op in ["fma", "mad"]:
            k = f"{op}.{r}.f64"
            F.append(Form("f64nan", k + " nan", k + " {d0}, {a0}, {a1}, {a2};", ["f64"], ["f64"] * 3,
                          pool={0: pool, 1: pool, 2: pool}, count=n ** 3, cross=True))
    return F


def all_forms():
    forms = int_arith() + carry() + bits() + compare() + float_arith() + special() + cvt() + warp() + atom() + video()
    forms += video_sweep() + f64_nan_sweep()
    seen, out = set(), []
    for f in forms:
        if f.key in seen:
            continue
        seen.add(f.key)
        out.append(f)
    return out
