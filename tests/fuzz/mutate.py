"""Mutations for the fuzzer (tests/fuzz/fuzz.py): each takes (rng, data, pool) and returns new bytes.

`data` is the case so far, `pool` the list of seed texts (for splicing and for names taken from other
seeds). Every mutation is deterministic given the rng, so a case is reproducible from (seed, index).
"""
import re

TOKEN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?|'[^'\n]*'|\"[^\"\n]*\""
                   rb"|\*\*=?|//=?|==|!=|<=|>=|->|:=|<<|>>|[^\sA-Za-z0-9_]")
CT_NAME = re.compile(rb"\bct\.([A-Za-z_][A-Za-z0-9_]*)")
CT_CALL = re.compile(rb"\bct\.[A-Za-z_][A-Za-z0-9_.]*\s*\(")
OPEN_BRACKET = re.compile(rb"[(\[]")
KEYWORD_ARG = re.compile(rb"([(,]\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*=)(?!=)")
NUMBER = re.compile(rb"(?<![A-Za-z0-9_.])\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?")
KERNEL_DECORATOR = re.compile(rb"^@ct\.(kernel|function)\b", re.M)
CONSTANT_ANNOTATION = re.compile(rb"ct\.Constant\[[^\]]*\]")

# Depths around every nesting limit (README "Explicit limits": 100 indentation levels, 200 brackets,
# 150 f-strings, 1000 nested expressions or statements) and past them.
DEPTHS = (2, 10, 50, 98, 99, 100, 101, 149, 150, 151, 198, 199, 200, 201, 500, 998, 999, 1000, 1001, 3000)
REPLACEMENTS = (b'"s"', b"''", b'b"x"', b'f"{x}"', b"1.5", b"-0.0", b"1e308", b"1e999", b"float('nan')", b"(1, 2)",
                b"()", b"(1,)", b"(1, 2, 3, 4, 5, 6, 7, 8, 9)", b"[1]", b"{}", b"None", b"True", b"False", b"-1",
                b"0", b"2**31", b"2**63", b"-2**63", b"0x7fffffffffffffff", b"0xffffffffffffffff", b"4294967295",
                b"ct.float32", b"ct.int64", b"ct.bid", b"ct.bid(0)", b"ct", b"x", b"undefined_name", b"lambda: 0",
                b"*a", b"**k", b"...", b"1j", b"(yield)", b"x if y else z", b"[i for i in range(3)]",
                b"ct.PaddingMode.ZERO", b"ct.PaddingMode.NOPE", b"ct.Constant", b"ct.Constant[int]", b"-x", b"~x",
                b"not x", b"x.shape[0]", b"x[0]", b"x[:]", b"x[::-1]")
KEYWORDS = (b"index", b"shape", b"tile", b"padding_mode", b"axis", b"dtype", b"keepdims", b"order", b"latency",
            b"allow_tma", b"check_bounds", b"memory_order", b"memory_scope", b"rounding_mode", b"flush_to_zero",
            b"mask", b"indices", b"value", b"start", b"stop", b"occupancy", b"num_ctas", b"reverse", b"bogus",
            b"x", b"self", b"stream", b"grid")
PYTHON_WORDS = (b"if", b"else", b"elif", b"for", b"while", b"def", b"return", b"lambda", b"yield", b"await",
                b"async", b"import", b"from", b"as", b"with", b"class", b"global", b"nonlocal", b"pass", b"break",
                b"continue", b"match", b"case", b"type", b"_", b"not", b"and", b"or", b"is", b"in", b"None",
                b"(", b")", b"[", b"]", b"{", b"}", b":", b",", b".", b"=", b"==", b"+", b"-", b"*", b"**", b"/",
                b"//", b"%", b"@", b"->", b":=", b"\\", b"\n", b"    ", b"#", b"'", b'"', b'"""', b"f'", b"ct.")
INVALID_UTF8 = (b"\xff", b"\xfe", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80")
ODD_TEXT = ("é", "ß", "Ω", "日本", "\u00a0", "\u200b", "\u2028", "\U0001f600", "\ufeff", "\u0301", "\uff08")


def _pick(rng, seq):
    return seq[rng.randrange(len(seq))]


def _lines(data):
    return data.splitlines(keepends=True) or [b""]


def _random_spot(rng, data):
    return rng.randrange(len(data) + 1)


def _match_close(data, start):
    """Index of the bracket closing the one at data[start], or None; skips simple strings."""
    depth = 0
    quote = None
    i = start
    while i < len(data):
        c = data[i:i + 1]
        if quote:
            if c == b"\\":
                i += 2
                continue
            if c == quote or c == b"\n":
                quote = None
        elif c in (b"'", b'"'):
            quote = c
        elif c in (b"(", b"[", b"{"):
            depth += 1
        elif c in (b")", b"]", b"}"):
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _split_top(data):
    """Split the inside of a bracket group at its top-level commas: list of (start, end) spans."""
    spans = []
    depth = 0
    quote = None
    begin = 0
    i = 0
    while i < len(data):
        c = data[i:i + 1]
        if quote:
            if c == b"\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in (b"'", b'"'):
            quote = c
        elif c in (b"(", b"[", b"{"):
            depth += 1
        elif c in (b")", b"]", b"}"):
            depth -= 1
        elif c == b"," and depth == 0:
            spans.append((begin, i))
            begin = i + 1
        i += 1
    if data[begin:].strip() or spans:
        spans.append((begin, len(data)))
    return spans


# --- byte-level ---------------------------------------------------------------------------------

def byte_flip(rng, data, pool):
    if not data:
        return bytes([rng.randrange(256)])
    out = bytearray(data)
    for _ in range(rng.randrange(1, 4)):
        i = rng.randrange(len(out))
        out[i] = out[i] ^ (1 << rng.randrange(8)) if rng.random() < 0.6 else rng.randrange(256)
    return bytes(out)


def byte_insert_ascii(rng, data, pool):
    i = _random_spot(rng, data)
    return data[:i] + bytes(rng.randrange(32, 127) for _ in range(rng.randrange(1, 4))) + data[i:]


def truncate(rng, data, pool):
    return data[:rng.randrange(len(data) + 1)]


def nul_byte(rng, data, pool):
    i = _random_spot(rng, data)
    return data[:i] + b"\x00" + data[i:]


def invalid_utf8(rng, data, pool):
    i = _random_spot(rng, data)
    return data[:i] + _pick(rng, INVALID_UTF8) + data[i:]


def odd_unicode(rng, data, pool):
    """Non-ASCII text where identifiers, strings or whitespace are (columns count characters)."""
    spots = [m.start() for m in TOKEN.finditer(data)] or [0]
    i = _pick(rng, spots)
    return data[:i] + _pick(rng, ODD_TEXT).encode("utf-8") + data[i:]


def line_ends(rng, data, pool):
    choice = rng.randrange(4)
    if choice == 0:
        return data.replace(b"\n", b"\r\n")
    if choice == 1:
        return data.replace(b"\n", b"\r")
    if choice == 2:      # mixed: some lines only
        lines = _lines(data)
        for _ in range(rng.randrange(1, 4)):
            k = rng.randrange(len(lines))
            lines[k] = lines[k].rstrip(b"\n") + _pick(rng, (b"\r\n", b"\r", b"\r\r\n", b"\n\r"))
        return b"".join(lines)
    return data.rstrip(b"\n")        # no newline at the end


def bom(rng, data, pool):
    if rng.random() < 0.8:
        return b"\xef\xbb\xbf" + data
    i = _random_spot(rng, data)
    return data[:i] + b"\xef\xbb\xbf" + data[i:]


def coding_cookie(rng, data, pool):
    name = _pick(rng, (b"utf-8", b"utf8", b"UTF-8", b"latin-1", b"iso-8859-15", b"bogus-codec", b"utf-8-sig",
                       b"ascii", b"us-ascii", b"cp1252", b"koi8-r", b"utf-16", b"utf-32", b"shift_jis", b"euc-jp"))
    cookie = b"# -*- coding: " + name + b" -*-\n"
    return cookie + data if rng.random() < 0.7 else b"#!/usr/bin/env python3\n" + cookie + data


def form_feed_tab(rng, data, pool):
    lines = _lines(data)
    k = rng.randrange(len(lines))
    lines[k] = _pick(rng, (b"\t", b"\x0c", b" \t", b"\t ", b"\x0b", b"        \t")) + lines[k]
    return b"".join(lines)


# --- token / line level ---------------------------------------------------------------------------

def token_delete(rng, data, pool):
    tokens = list(TOKEN.finditer(data))
    if not tokens:
        return data
    m = _pick(rng, tokens)
    return data[:m.start()] + data[m.end():]


def token_duplicate(rng, data, pool):
    tokens = list(TOKEN.finditer(data))
    if not tokens:
        return data
    m = _pick(rng, tokens)
    return data[:m.end()] + (b" " if rng.random() < 0.5 else b"") + m.group() + data[m.end():]


def token_replace(rng, data, pool):
    tokens = list(TOKEN.finditer(data))
    if not tokens:
        return data
    m = _pick(rng, tokens)
    new = _pick(rng, PYTHON_WORDS) if rng.random() < 0.5 else _pick(rng, tokens).group()
    return data[:m.start()] + new + data[m.end():]


def line_swap(rng, data, pool):
    lines = _lines(data)
    if len(lines) < 2:
        return data
    a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[a], lines[b] = lines[b], lines[a]
    return b"".join(lines)


def line_delete(rng, data, pool):
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"".join(lines)


def line_duplicate(rng, data, pool):
    lines = _lines(data)
    k = rng.randrange(len(lines))
    lines.insert(k, lines[k])
    return b"".join(lines)


def indentation(rng, data, pool):
    lines = _lines(data)
    k = rng.randrange(len(lines))
    body = lines[k].lstrip(b" \t")
    indent = lines[k][:len(lines[k]) - len(body)]
    choice = rng.randrange(5)
    if choice == 0:
        indent += b" " * rng.randrange(1, 5)
    elif choice == 1:
        indent = indent[:max(0, len(indent) - rng.randrange(1, 5))]
    elif choice == 2:
        indent = indent.replace(b"    ", b"\t")
    elif choice == 3:
        indent = b""
    else:                                   # a whole block shifted
        end = min(len(lines), k + rng.randrange(1, 8))
        for j in range(k, end):
            lines[j] = b"    " + lines[j]
        return b"".join(lines)
    lines[k] = indent + body
    return b"".join(lines)


def splice(rng, data, pool):
    other = _lines(_pick(rng, pool))
    a = rng.randrange(len(other))
    piece = b"".join(other[a:a + rng.randrange(1, 12)])
    lines = _lines(data)
    k = rng.randrange(len(lines) + 1)
    return b"".join(lines[:k]) + piece + b"".join(lines[k:])


# --- nesting and literals -------------------------------------------------------------------------

def deep_nesting(rng, data, pool):
    n = _pick(rng, DEPTHS)
    kind = rng.randrange(7)
    if kind == 0:             # parentheses around an expression token
        tokens = [m for m in TOKEN.finditer(data) if m.group()[:1].isalnum()]
        if tokens:
            m = _pick(rng, tokens)
            return data[:m.start()] + b"(" * n + m.group() + b")" * n + data[m.end():]
    lines = _lines(data)
    k = rng.randrange(len(lines) + 1)
    if kind == 1:             # nested blocks
        block = b"".join(b"    " * i + b"if x:\n" for i in range(n)) + b"    " * n + b"pass\n"
    elif kind == 2:
        block = b"y = " + b"[" * n + b"]" * n + b"\n"
    elif kind == 3:
        block = b"y = " + b"f(" * n + b"0" + b")" * n + b"\n"
    elif kind == 4:
        block = b"y = " + b"-" * n + b"1\n"
    elif kind == 5:
        block = b"y = " + b'f"{' * min(n, 300) + b"1" + b'}"' * min(n, 300) + b"\n"
    else:                     # nested tile expressions
        block = b"    t = " + b"ct.exp(" * n + b"t" + b")" * n + b"\n"
    return b"".join(lines[:k]) + block + b"".join(lines[k:])


def huge_literal(rng, data, pool):
    numbers = list(NUMBER.finditer(data))
    choice = rng.randrange(7)
    if choice == 0:
        new = b"9" * rng.randrange(19, 6000)
    elif choice == 1:
        new = b"1" + b"0" * rng.randrange(1, 400) + b".5e" + str(rng.randrange(-400, 400)).encode()
    elif choice == 2:
        new = _pick(rng, (b"9223372036854775807", b"9223372036854775808", b"18446744073709551616",
                          b"0x8000000000000000", b"0o1777777777777777777777", b"0b" + b"1" * 65, b"2147483648",
                          b"1_000_000_000_000_000_000_000", b"0" * 50 + b"1", b"1e-400", b"0.0000001e-320"))
    elif choice == 3:
        new = b"'" + b"a" * rng.randrange(1000, 200000) + b"'"
    elif choice == 4:
        new = b"(" + b"1 * " * rng.randrange(1, 200) + b"2**62)"
    elif choice == 5:
        new = b"-" + _pick(rng, (b"9223372036854775808", b"2**63", b"0x7fffffffffffffff - 1 - 1"))
    else:
        new = b"1" + b"e" + b"9" * rng.randrange(3, 30)
    if not numbers:
        return data + b"y = " + new + b"\n"
    m = _pick(rng, numbers)
    return data[:m.start()] + new + data[m.end():]


# --- structure-aware ------------------------------------------------------------------------------

def _bracket_groups(data, only_ct):
    pattern = CT_CALL if only_ct else OPEN_BRACKET
    groups = []
    for m in pattern.finditer(data):
        start = m.end() - 1
        close = _match_close(data, start)
        if close is not None:
            groups.append((start + 1, close))
    return groups


def call_arguments(rng, data, pool):
    """Drop, add, duplicate, swap or replace arguments of a ct.* call (or of any bracket group)."""
    groups = _bracket_groups(data, only_ct=rng.random() < 0.8) or _bracket_groups(data, only_ct=False)
    if not groups:
        return data
    begin, end = _pick(rng, groups)
    inner = data[begin:end]
    args = [inner[a:b].strip() for a, b in _split_top(inner)]
    args = [a for a in args if a] if len(args) > 1 else args
    choice = rng.randrange(7)
    if choice == 0 and args:
        del args[rng.randrange(len(args))]
    elif choice == 1:
        extra = _pick(rng, REPLACEMENTS)
        if rng.random() < 0.4:
            extra = _pick(rng, KEYWORDS) + b"=" + extra
        args.insert(rng.randrange(len(args) + 1), extra)
    elif choice == 2 and len(args) >= 2:
        a, b = rng.randrange(len(args)), rng.randrange(len(args))
        args[a], args[b] = args[b], args[a]
    elif choice == 3 and args:
        k = rng.randrange(len(args))
        args.insert(k, args[k])
    elif choice == 4 and args:             # replace a value, keeping a keyword's name
        k = rng.randrange(len(args))
        m = re.match(rb"([A-Za-z_][A-Za-z0-9_]*\s*=)(?!=)", args[k])
        args[k] = (m.group(1) if m else b"") + _pick(rng, REPLACEMENTS)
    elif choice == 5 and args:             # keyword argument turned positional or the reverse
        k = rng.randrange(len(args))
        m = re.match(rb"[A-Za-z_][A-Za-z0-9_]*\s*=(?!=)\s*", args[k])
        args[k] = args[k][m.end():] if m else _pick(rng, KEYWORDS) + b"=" + args[k]
    else:
        args = []
    joined = b", ".join(args)
    if rng.random() < 0.1:
        joined += b","
    return data[:begin] + joined + data[end:]


def swap_ct_names(rng, data, pool):
    names = list(CT_NAME.finditer(data))
    if not names:
        return data
    a = _pick(rng, names)
    if rng.random() < 0.5 and len(names) > 1:
        b = _pick(rng, names)
        if a.start() > b.start():
            a, b = b, a
        if a.group(1) == b.group(1) or a.end() > b.start():
            return data
        return (data[:a.start(1)] + b.group(1) + data[a.end(1):b.start(1)] + a.group(1) + data[b.end(1):])
    everywhere = [m.group(1) for text in pool for m in CT_NAME.finditer(text)]
    new = _pick(rng, everywhere) if everywhere and rng.random() < 0.8 else _pick(rng, (b"nope", b"Array", b"tile",
                                                                                          b"__class__", b"kernel"))
    return data[:a.start(1)] + new + data[a.end(1):]


def keyword_name(rng, data, pool):
    keywords = list(KEYWORD_ARG.finditer(data))
    if not keywords:
        return data
    m = _pick(rng, keywords)
    return data[:m.start(2)] + _pick(rng, KEYWORDS) + data[m.end(2):]


def _kernel_blocks(data):
    lines = _lines(data)
    blocks = []
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    k = 0
    while k < len(lines):
        if KERNEL_DECORATOR.match(lines[k]):
            j = k + 1
            while j < len(lines) and (lines[j].startswith(b"@") or lines[j].startswith(b"def")
                                      or lines[j].startswith(b"async")):
                j += 1
            while j < len(lines) and (not lines[j].strip() or lines[j][:1] in (b" ", b"\t", b")")):
                j += 1
            blocks.append((offsets[k], offsets[j]))
            k = j
        else:
            k += 1
    return blocks


def duplicate_kernel(rng, data, pool):
    blocks = _kernel_blocks(data)
    if not blocks:
        return data
    a, b = _pick(rng, blocks)
    block = data[a:b]
    if rng.random() < 0.5:       # a renamed copy, also launched
        block = re.sub(rb"def ([A-Za-z_][A-Za-z0-9_]*)", rb"def \1_copy", block, count=1)
    at = b if rng.random() < 0.7 else a
    return data[:at] + b"\n" + block + data[at:]


def kernel_decorator(rng, data, pool):
    decorators = list(KERNEL_DECORATOR.finditer(data))
    if not decorators:
        return data
    m = _pick(rng, decorators)
    line_end = data.find(b"\n", m.start())
    line_end = len(data) if line_end < 0 else line_end
    new = _pick(rng, (b"@ct.kernel", b"@ct.function", b"@ct.kernel()", b"@ct.kernel(occupancy=0)",
                      b"@ct.kernel(num_ctas=3)", b"@ct.kernel(bogus=1)", b"@ct.kernel(1, 2)", b"@ct.function()",
                      b"@ct.kernel\n@ct.kernel", b"@staticmethod", b"", b"@ct.kernel(occupancy='x')"))
    return data[:m.start()] + new + data[line_end:]


def constant_annotation(rng, data, pool):
    annotations = list(CONSTANT_ANNOTATION.finditer(data))
    if not annotations:
        return data
    m = _pick(rng, annotations)
    new = _pick(rng, (b"ct.Constant[float]", b"ct.Constant[bool]", b"ct.Constant", b"ct.Constant[]",
                      b"ct.Constant[int, int]", b"int", b"ct.Array", b"ct.Constant[ct.float32]", b"'str'",
                      b"ct.Constant[ct.Constant[int]]", b"ct.Constant[int] = 4"))
    return data[:m.start()] + new + data[m.end():]


def imports(rng, data, pool):
    line = _pick(rng, (b"import cuda.tile as ct\n", b"import cuda.tile\n", b"from cuda import tile as ct\n",
                       b"from cuda.tile import load, store\n", b"import cuda.tile as ct, math\n",
                       b"import cuda.tile as ct2\n", b"from cuda.tile import *\n", b"ct = 1\n", b"del ct\n",
                       b"import cuda\n", b"from cuda import tile\n", b"import torch as ct\n"))
    lines = _lines(data)
    if rng.random() < 0.5:
        found = [k for k, text in enumerate(lines) if b"cuda" in text and b"import" in text]
        if found:
            lines[_pick(rng, found)] = line
            return b"".join(lines)
    lines.insert(rng.randrange(len(lines) + 1), line)
    return b"".join(lines)


MUTATIONS = (
    (byte_flip, 6), (byte_insert_ascii, 3), (truncate, 3), (nul_byte, 1), (invalid_utf8, 1), (odd_unicode, 2),
    (line_ends, 2), (bom, 1), (coding_cookie, 1), (form_feed_tab, 1),
    (token_delete, 8), (token_duplicate, 6), (token_replace, 8), (line_swap, 4), (line_delete, 4),
    (line_duplicate, 4), (indentation, 5), (splice, 3),
    (deep_nesting, 3), (huge_literal, 3),
    (call_arguments, 16), (swap_ct_names, 8), (keyword_name, 6), (duplicate_kernel, 4), (kernel_decorator, 4),
    (constant_annotation, 4), (imports, 2),
)
_WEIGHTED = [m for m, w in MUTATIONS for _ in range(w)]


def mutate(rng, data, pool):
    """Apply 1 to 5 random mutations (fewer more often); return (new bytes, names of the mutations)."""
    names = []
    count = 1
    while count < 5 and rng.random() < 0.45:
        count += 1
    for _ in range(count):
        mutation = _pick(rng, _WEIGHTED)
        data = mutation(rng, data, pool)
        names.append(mutation.__name__)
    return data, names
