"""cutile2triton: convert cuTile Python kernels into Triton kernels.

A thin layer over the C library (libcutile2triton): the same code as the
`cutile2triton` executable.

    import cutile2triton
    triton_source = cutile2triton.convert(cutile_source, filename="kernels.py")

`python -m cutile2triton ...` takes the command line of the executable. The
library is loaded on first use, so the pytest plugin (pytest_plugin.py) works
without it.
"""

__all__ = ["ConversionError", "check_syntax", "convert", "library_path", "main", "roundtrip", "version"]


def __getattr__(name):
    if name in __all__:
        from . import _native

        return getattr(_native, name)
    raise AttributeError(f"module 'cutile2triton' has no attribute {name!r}")
