#!/usr/bin/env python3
"""Writes a math library's API table (libs/<lib>/<lib>.api), every symbol
NVIDIA's library exports, from NVIDIA's installed headers (run once per
toolkit; the build reads only the committed table, never NVIDIA's files).
Shared by scripts/extract-cublas-api, extract-curand-api, extract-cufft-api.

Each header is preprocessed with the C++ compiler on its own (cublas.h and
cublasXt.h cannot share one translation unit), and every top-level
`extern "C"` declaration of a function named with the library's prefix is
read back as one row. The C++-only inline overloads the headers add (static
inline) are not symbols and are skipped. When NVIDIA's library is given, the
table is checked against its exports, and the few exported symbols no header
declares get a row with no parameters and a note, so they still exist (and
return NOT_SUPPORTED) in ferry's library.

Row format (see scripts/gen-lib-api): symbol | return type | parameters.
Facts only: names and C types, in NVIDIA's spelling, sorted by symbol.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

def preprocess(cxx, include, header, defines=()):
    with tempfile.NamedTemporaryFile('w', suffix='.cpp', delete=False) as f:
        f.write(''.join('#define %s\n' % d for d in defines))
        f.write('#include <%s>\n' % header)
        src = f.name
    try:
        return subprocess.run([cxx, '-E', '-P', '-I', include, src], check=True,
                              capture_output=True, text=True).stdout
    finally:
        os.unlink(src)


def top_level_statements(text):
    """Statements at namespace scope: `extern "C" {` does not open a scope;
    any other brace does (function bodies, enums, structs)."""
    text = re.sub(r'extern\s+"C"\s*\{', ' ', text)
    depth = 0
    cur = []
    for ch in text:
        if ch == '{':
            depth += 1
            cur = []
            continue
        if ch == '}':
            depth = max(0, depth - 1)
            cur = []
            continue
        if depth:
            continue
        if ch == ';':
            yield ' '.join(''.join(cur).split())
            cur = []
        else:
            cur.append(ch)


def norm_type(t):
    """C type in one spelling: `const float *const *` (a star binds to what
    follows it, as in NVIDIA's prototypes written `const float *x`)."""
    out = ''
    for tok in re.findall(r'\*|\w+', t):
        if tok == '*':
            out += '*' if out.endswith('*') else ' *'
        elif out.endswith('*') or not out:
            out += tok
        else:
            out += ' ' + tok
    return out


def parse_param(p, symbol, index):
    p = ' '.join(p.split())
    if p in ('', 'void'):
        return None
    arr = p.endswith('[]')
    if arr:
        p = p[:-2].rstrip()
    m = re.match(r'^(.*?[\s\*])([A-Za-z_]\w*)$', p)
    if not m or m.group(2) in ('int', 'float', 'double', 'char', 'size_t', 'int64_t'):
        # An unnamed parameter: name it by position.
        typ, name = p, 'p%d' % index
    else:
        typ, name = m.group(1), m.group(2)
    typ = norm_type(typ + ('*' if arr else ''))
    return typ + ('' if typ.endswith('*') else ' ') + name


def strip_attributes(st):
    """Drops GNU `__attribute__((...))` (cuFFT's CUFFTAPI expands to one) and
    C++11 `[[...]]` attributes (cuSOLVER's CUSOLVER_DEPRECATED)."""
    st = re.sub(r'\[\[.*?\]\]', ' ', st)
    while '__attribute__' in st:
        i = st.index('__attribute__')
        j = st.index('(', i)
        depth = 0
        for k in range(j, len(st)):
            depth += {'(': 1, ')': -1}.get(st[k], 0)
            if depth == 0:
                break
        st = st[:i] + st[k + 1:]
    return st


def declarations(text, prefix):
    rows = {}
    for st in top_level_statements(text):
        st = strip_attributes(st)
        if 'static' in st.split() or 'inline' in st.split() or 'typedef' in st:
            continue
        m = re.match(r'^(?:extern\s+)?(.+?)\b(' + prefix + r'\w+)\s*\((.*)\)$', st)
        if not m:
            continue
        ret, name, params = norm_type(m.group(1)), m.group(2), m.group(3)
        ps = [parse_param(p, name, i) for i, p in enumerate(params.split(',')) if params.strip()]
        rows[name] = (ret, ', '.join(p for p in ps if p))
    return rows


def exports(lib):
    out = subprocess.run(['readelf', '--dyn-syms', '-W', lib], check=True,
                         capture_output=True, text=True).stdout
    syms = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == 'FUNC' and f[6] != 'UND':
            syms.add(f[7].split('@')[0])
    return syms


def extract(lib, headers, prefix, status, version_header, version_prefix, soname_major=None,
            argv=None, defines=(), soname=None):
    """Writes libs/LIB/LIB.api. The version comes from #defines
    VERSION_PREFIX{MAJOR,MINOR,PATCH} in VERSION_HEADER; the library checked
    against is lib64/lib<LIB>.so.<major> (SONAME_MAJOR when it differs;
    SONAME names another file; --exports a list of names, one a line, in
    place of a library). DEFINES are set before each header."""
    ap = argparse.ArgumentParser(description='Writes libs/%s/%s.api' % (lib, lib))
    ap.add_argument('--cuda', default='/usr/local/cuda')
    ap.add_argument('--cxx', default='g++')
    ap.add_argument('--exports', help='exported names, one a line, instead of the library')
    ap.add_argument('--out', default=os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), 'libs', lib, '%s.api' % lib))
    args = ap.parse_args(argv)
    inc = os.path.join(args.cuda, 'include')
    rows = {}
    for h in headers:
        for k, v in declarations(preprocess(args.cxx, inc, h, defines), prefix).items():
            rows.setdefault(k, v)
    ver = {}
    with open(os.path.join(inc, version_header)) as f:
        for m in re.finditer(r'#define %s(\w+)\s+(\d+)' % version_prefix, f.read()):
            ver[m.group(1)] = m.group(2)
    for k in ('MAJOR', 'MINOR', 'PATCH'):
        ver.setdefault(k, '0')
    major = soname_major or ver['MAJOR']
    notes = {}
    so = os.path.join(args.cuda, 'lib64', soname or 'lib%s.so.%s' % (lib, major))
    if args.exports or os.path.exists(so):
        syms = {l.strip() for l in open(args.exports) if l.strip()} if args.exports else exports(so)
        extra = sorted(set(rows) - syms)
        if extra:
            print('extract-lib-api: declared but not exported (dropped): %s' % extra,
                  file=sys.stderr)
            for k in extra:
                del rows[k]
        for k in sorted(syms - set(rows)):
            if not k.startswith(prefix):
                continue
            rows[k] = (status, '')
            notes[k] = 'exported but in no NVIDIA header; signature unknown'
    script = 'extract-%s-api' % lib
    with open(args.out, 'w', newline='\n') as f:
        f.write('# Every symbol of NVIDIA\'s %s (%s %s.%s.%s), %d rows.\n' %
                (soname or 'lib%s.so.%s' % (lib, major), lib, ver['MAJOR'], ver['MINOR'], ver['PATCH'], len(rows)))
        f.write('#\n# Written by scripts/%s from NVIDIA\'s headers (%s)\n' % (script, ', '.join(headers)) +
                '# and checked against the library\'s exports; scripts/gen-lib-api turns\n'
                '# it into the prototypes, the linker version script and the NOT_SUPPORTED\n'
                '# stubs of ferry\'s lib%s. Nothing else may list these functions.\n#\n' % lib +
                '# Row: symbol | return type | parameters ("type name" pairs separated by ", ").\n')
        for k in sorted(rows):
            ret, ps = rows[k]
            line = '%s | %s | %s' % (k, ret, ps)
            if k in notes:
                line += ' # ' + notes[k]
            f.write(line.rstrip() + '\n')
    print('%s: %d rows -> %s' % (script, len(rows), args.out))
    return 0
