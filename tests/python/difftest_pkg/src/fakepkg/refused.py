"""A cuTile module the converter refuses: its host code reads the cuda.tile module itself."""

try:
    import cuda.tile as ct

    AVAILABLE = ct is not None
except ImportError:
    AVAILABLE = False
