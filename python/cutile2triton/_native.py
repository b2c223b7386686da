"""Loading libcutile2triton with ctypes and calling its public API
(include/cutile2triton.h)."""

import ctypes
import os
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent


class _Result(ctypes.Structure):
    _fields_ = [
        ("status", ctypes.c_int),
        ("output", ctypes.c_void_p),
        ("output_len", ctypes.c_size_t),
        ("diagnostics", ctypes.c_void_p),
        ("diagnostics_len", ctypes.c_size_t),
    ]


class ConversionError(Exception):
    """The input is invalid or holds something that cannot be converted
    faithfully; `diagnostics` holds the located messages."""

    def __init__(self, diagnostics: str):
        super().__init__(diagnostics.strip())
        self.diagnostics = diagnostics


def _candidates():
    if os.environ.get("C2T_LIB"):
        yield Path(os.environ["C2T_LIB"])
    yield _HERE / "libcutile2triton.so"           # installed package
    yield _HERE.parents[1] / "build" / "libcutile2triton.so"  # a built clone


def library_path() -> Path:
    """Where the C library is loaded from (C2T_LIB, the package, or build/)."""
    for path in _candidates():
        if path.is_file():
            return path
    raise ImportError("libcutile2triton.so not found: run `make` in the repository, install the package, "
                      "or set C2T_LIB")


_lib = ctypes.CDLL(str(library_path()))
for _name in ("c2t_convert", "c2t_roundtrip", "c2t_check_syntax"):
    getattr(_lib, _name).argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_Result)]
    getattr(_lib, _name).restype = ctypes.c_int
_lib.c2t_result_free.argtypes = [ctypes.POINTER(_Result)]
_lib.c2t_version.restype = ctypes.c_char_p
_lib.c2t_main.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
_lib.c2t_main.restype = ctypes.c_int


def _call(function, source, filename):
    data = source.encode("utf-8") if isinstance(source, str) else bytes(source)
    result = _Result()
    function(filename.encode(), data, len(data), ctypes.byref(result))
    try:
        output = ctypes.string_at(result.output, result.output_len) if result.output else b""
        diagnostics = ctypes.string_at(result.diagnostics, result.diagnostics_len) if result.diagnostics else b""
    finally:
        _lib.c2t_result_free(ctypes.byref(result))
    if result.status != 0:
        raise ConversionError(diagnostics.decode("utf-8", "replace"))
    return output.decode("utf-8", "surrogateescape")


def convert(source, filename: str = "<input>") -> str:
    """The Triton module converted from a cuTile module's source."""
    return _call(_lib.c2t_convert, source, filename)


def roundtrip(source, filename: str = "<input>") -> str:
    """The module re-emitted from its syntax tree (the parser's round trip)."""
    return _call(_lib.c2t_roundtrip, source, filename)


def check_syntax(source, filename: str = "<input>") -> None:
    """Raise ConversionError with located messages if `source` is not valid Python 3.12."""
    _call(_lib.c2t_check_syntax, source, filename)


def version() -> str:
    return _lib.c2t_version().decode()


def main(argv=None) -> int:
    """Run the command-line tool with `argv` (argv[0] is the program name;
    default: this process's command line) and return its exit status."""
    if argv is None:
        argv = ["cutile2triton", *sys.argv[1:]]
    sys.stdout.flush()
    sys.stderr.flush()
    encoded = [os.fsencode(arg) for arg in argv]
    array = (ctypes.c_char_p * (len(encoded) + 1))(*encoded, None)
    return _lib.c2t_main(len(encoded), array)


def console_main() -> None:
    """The installed `cutile2triton` command (setup.py's console script)."""
    sys.exit(main())
