#!/usr/bin/env python3
"""The AMD compiler's acceptance check over every kernel of the PTX corpus
and of apps/ (ctest hsa.corpus).

1. Runs hsa-corpus-check over the images: each corpus PTX file alone, each
   app's PTX files linked together (as libcuda links an image's modules).
   It compiles every entry for the five targets and checks each code object
   with LLVM's object library against the facts ferry computes from the
   SIMT IR (see CorpusCheck.cpp), writing the objects and a manifest.
2. Checks every written code object again with LLVM's command-line tools,
   independently of ferry's own metadata reader:
     llvm-readelf -h --notes --syms --dyn-syms: Type DYN, OS/ABI AMDGPU_HSA,
       ABI Version 3 (code object v5), and in the metadata note each kernel's
       .wavefront_size, .kernarg_segment_size and .group_segment_fixed_size
       as the manifest says; no UND symbol;
     llvm-objdump -d: the code disassembles for the object's processor
       (no <unknown> words) and every kernel has its symbol.
Exit 0 when both steps pass; 77 (skip) without nvcc-made PTX.
"""
import argparse
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys


def images(corpus_dir, apps_dir):
    out = []
    for p in sorted(pathlib.Path(corpus_dir).glob("*.ptx")):
        out.append(str(p))
    for app in sorted(pathlib.Path(apps_dir).iterdir()) if os.path.isdir(apps_dir) else []:
        files = sorted(str(p) for p in app.glob("*.ptx"))
        if not files:
            continue
        # Separate programs in one app dir (driver_fatbin's kernels.cu is a
        # fatbin the host program loads) still link fine: names are distinct.
        out.append("+".join(files))
    return out


def check_object(path, kernels, readelf, objdump):
    """Problems found by llvm-readelf/llvm-objdump in one code object."""
    bad = []
    r = subprocess.run([readelf, "-h", "--notes", "--syms", "--dyn-syms", path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return [f"{path}: llvm-readelf failed: {r.stderr.strip()}"]
    t = r.stdout
    if not re.search(r"Type:\s+DYN", t):
        bad.append(f"{path}: ELF type is not DYN")
    if not re.search(r"OS/ABI:\s+AMDGPU - HSA", t):
        bad.append(f"{path}: OS/ABI is not AMDGPU_HSA")
    if not re.search(r"ABI Version:\s+3\b", t):
        bad.append(f"{path}: ABI version is not 3 (code object v5)")
    if re.search(r"^[ \t]*\d+:[ \t]+[0-9a-f]+[ \t]+\d+[ \t]+\w+[ \t]+\w+[ \t]+\w+[ \t]+UND[ \t]+\S",
                 t, re.M):
        bad.append(f"{path}: undefined symbol")
    # The metadata note, as YAML: one "- .args:" item per kernel.
    note = t[t.find("amdhsa.kernels:"):]
    blocks = re.split(r"\n  - ", note)[1:]
    found = {}
    for b in blocks:
        # Kernel-level keys are indented 4 spaces (argument keys deeper).
        name = re.search(r"^    \.name:[ \t]+'?([^'\n]+?)'?$", b, re.M)
        if not name:
            continue
        def num(key):
            m = re.search(r"^    \.%s:[ \t]+(\d+)" % re.escape(key), b, re.M)
            return int(m.group(1)) if m else None
        found[name.group(1)] = (num("wavefront_size"), num("kernarg_segment_size"),
                                num("group_segment_fixed_size"))
    for k, (wave, kernarg, group) in kernels.items():
        if k not in found:
            bad.append(f"{path}: {k} not in the metadata note")
            continue
        # LLVM may pad the LDS variables to their alignment, so the note's
        # group size (what the dispatch uses: hsa/HsaBackend.cpp takes the
        # symbol's KERNEL_GROUP_SEGMENT_SIZE) can exceed ferry's own sum by
        # a few bytes (cub_block_warp's WarpLoad/WarpStore kernels: 8-16);
        # never less, and never by more than that padding can explain.
        fw, fk, fg = found[k]
        if (fw, fk) != (wave, kernarg) or fg is None or not (group <= fg < group + 64):
            bad.append(f"{path}: {k}: note says wave/kernarg/group {found[k]}, "
                       f"expected {(wave, kernarg, group)}")
    d = subprocess.run([objdump, "-d", path], capture_output=True, text=True)
    if d.returncode != 0:
        bad.append(f"{path}: llvm-objdump failed: {d.stderr.strip()}")
    else:
        if "<unknown>" in d.stdout:
            bad.append(f"{path}: llvm-objdump finds undecodable words")
        for k in kernels:
            if f"<{k}>:" not in d.stdout:
                bad.append(f"{path}: no code for {k} in the disassembly")
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--apps", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--readelf", required=True)
    ap.add_argument("--objdump", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    imgs = images(a.corpus, a.apps)
    if not imgs:
        print("no PTX (nvcc missing): skipped")
        return 77
    os.makedirs(a.out, exist_ok=True)
    for f in pathlib.Path(a.out).glob("*"):
        f.unlink()
    r = subprocess.run([a.tool, "--jobs", str(a.jobs), "--out", a.out] + imgs)
    manifest = {}
    with open(os.path.join(a.out, "manifest.tsv")) as m:
        for line in m:
            f, k, wave, kernarg, _params, group = line.rstrip("\n").split("\t")
            manifest.setdefault(f, {})[k] = (int(wave), int(kernarg), int(group))
    problems = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for bad in ex.map(lambda kv: check_object(os.path.join(a.out, kv[0]), kv[1],
                                                   a.readelf, a.objdump), manifest.items()):
            problems += bad
    for p in problems:
        print("FAIL (llvm tools)", p)
    print(f"llvm-readelf/llvm-objdump: {len(manifest)} code objects, "
          f"{sum(len(v) for v in manifest.values())} kernel entries, {len(problems)} problems")
    return 0 if r.returncode == 0 and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
