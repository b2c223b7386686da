"""Coding cookies (PEP 263; issue 7, defect 5), judged by CPython.

For each case the tool must agree with `ast.parse(bytes)`: where CPython
accepts the file, `roundtrip` exits 0 and its output -- always UTF-8 --
parses to the same AST, and any cookie left in it does not contradict
UTF-8 (a latin-1 source with non-ASCII bytes comes out transcoded, its
cookie naming utf-8); where CPython rejects it, the tool exits 1 with a
located error. The one deliberate difference: a multi-byte codec (euc-jp)
with non-ASCII bytes is not decoded but refused, naming the encoding.
Before the fix, utf-16 and ascii-with-\\xe9 files exited 0 and latin-1 ones
kept their cookie over UTF-8 output.
"""

import ast
import codecs
import io
import re
import subprocess
import tokenize

import ops_common
import pytest

BOM = b"\xef\xbb\xbf"
BODY = b'x = "caf\xe9"\n'          # latin-1 / cp1252 bytes
BODY_ASCII = b"x = 1\n"

CASES = {
    "utf-8": b"# coding: utf-8\nx = 'caf\xc3\xa9'\n",
    "utf8": b"# coding: utf8\nx = 'caf\xc3\xa9'\n",
    "utf-8 BOM": BOM + b"x = 'caf\xc3\xa9'\n",
    "utf-8 BOM + cookie": BOM + b"# coding: utf-8\nx = 1\n",
    "BOM + latin-1 cookie": BOM + b"# coding: latin-1\nx = 1\n",
    "latin-1": b"# coding: latin-1\n" + BODY,
    "latin-1 ascii only": b"# coding: latin-1\n" + BODY_ASCII,
    "iso-8859-1": b"# -*- coding: iso-8859-1 -*-\n" + BODY,
    "iso-8859-15": b"# coding: iso-8859-15\nx = '\xa4'\n",
    "koi8-r": b"#!/usr/bin/env python\n# coding: koi8-r\nx = '\xc1\xc2'\n",
    "ascii": b"# coding: ascii\n" + BODY_ASCII,
    "ascii non-ascii": b"# coding: ascii\n" + BODY,
    "ascii non-ascii in comment": b"# coding: ascii\n\n\nx = 1  # \xe9\n",
    "us-ascii non-ascii": b"# coding: us-ascii\n" + BODY,
    "utf-16": b"# coding: utf-16\n" + BODY_ASCII,
    "utf-32": b"# coding: utf-32\n" + BODY_ASCII,
    "utf-7": b"# coding: utf-7\nx = 'a+b'\n",
    "cp1252": b"# coding: cp1252\nx = '\x80\x93'\n",
    "cp1252 undefined byte": b"# coding: cp1252\nx = '\x81'\n",
    "cp037": b"# coding: cp037\n" + BODY_ASCII,
    "euc-jp ascii only": b"# coding: euc-jp\n" + BODY_ASCII,
    "bogus": b"# coding: bogus-codec\n" + BODY_ASCII,
    "rot13": b"# coding: rot13\n" + BODY_ASCII,
    "cookie on line 3 is ignored": b"#!/usr/bin/env python\n#\n# coding: latin-1\nx = 'caf\xc3\xa9'\n",
    "cookie on line 3, latin-1 bytes": b"#\n#\n# coding: latin-1\n" + BODY,
    "cookie after code is ignored": b"x = 1\n# coding: latin-1\ny = 'caf\xc3\xa9'\n",
    "vim fileencoding": b"# vim: set fileencoding=latin-1 :\n" + BODY,
    "emacs utf-8": b"# -*- coding: utf-8 -*-\nx = 'caf\xc3\xa9'\n",
    "latin-1, utf-8 bytes": b"# coding: latin-1\nx = '\xc3\xa9'\n",
    "utf-8 cookie, latin-1 bytes": b"# coding: utf-8\n" + BODY,
}

REFUSED = {  # CPython decodes these; the tool refuses them with a located error
    "euc-jp non-ascii": (b"# coding: euc-jp\nx = '\xa4\xa2'\n", "encoding not supported: euc-jp"),
}

LOCATED = re.compile(rb"^\S+:\d+:\d+: error: ", re.M)


def cpython(source):
    try:
        return ast.dump(ast.parse(source))
    except (SyntaxError, ValueError, UnicodeError):
        return None


def run(tmp_path, source, job="roundtrip"):
    path = tmp_path / "case.py"
    path.write_bytes(source)
    return subprocess.run([str(ops_common.CONVERTER), job, str(path)], capture_output=True, timeout=60)


@pytest.mark.parametrize("case", list(CASES))
def test_cookie_handling_agrees_with_cpython(tmp_path, case):
    source = CASES[case]
    expected = cpython(source)
    proc = run(tmp_path, source)
    if expected is None:
        assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
        assert LOCATED.search(proc.stderr), proc.stderr
        assert proc.stdout == b""
        return
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    out.decode("utf-8")  # the output is UTF-8
    encoding, _ = tokenize.detect_encoding(io.BytesIO(out).readline)
    if any(b >= 0x80 for b in out):
        assert codecs.lookup(encoding).name == "utf-8", (encoding, out)
    assert cpython(out) == expected
    # the output, read as the UTF-8 it is, is the program CPython read
    assert ast.dump(ast.parse(out.decode("utf-8-sig"))) == expected


@pytest.mark.parametrize("case", list(REFUSED))
def test_unsupported_multibyte_source_is_refused_by_name(tmp_path, case):
    source, message = REFUSED[case]
    assert cpython(source) is not None
    proc = run(tmp_path, source, "check")
    assert proc.returncode == 1
    assert LOCATED.search(proc.stderr) and message.encode() in proc.stderr, proc.stderr


def test_ascii_error_is_at_the_byte(tmp_path):
    proc = run(tmp_path, b"# coding: ascii\n\n\nx = 1  # \xe9\n", "check")
    assert proc.returncode == 1
    assert re.search(rb":4:\d+: error: C2T\d+: \(unicode error\) 'ascii' codec can't decode byte 0xe9", proc.stderr), proc.stderr


def test_latin1_cookie_is_rewritten_only_when_transcoded(tmp_path):
    out = run(tmp_path, b"# -*- coding: latin-1 -*-\n" + BODY).stdout
    assert out.startswith(b"# -*- coding: utf-8 -*-\n") and "café".encode() in out, out
    out = run(tmp_path, b"# -*- coding: latin-1 -*-\n" + BODY_ASCII).stdout
    assert out.startswith(b"# -*- coding: latin-1 -*-\n"), out
