"""A cuTile module the converter refuses: cuda.tile is imported inside a try block."""

try:
    import cuda.tile as ct  # noqa: F401

    AVAILABLE = True
except ImportError:
    AVAILABLE = False
