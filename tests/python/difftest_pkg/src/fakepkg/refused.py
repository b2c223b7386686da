"""A cuTile module the converter refuses: its host code reads the cuda.tile module itself."""

try:
    import cuda.tile as ct

    AVAILABLE = ct and True  # the module as a value, which the converted module does not import
except ImportError:
    AVAILABLE = False
