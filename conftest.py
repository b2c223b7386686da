"""pytest in this repository: the cutile2triton plugin (--print-record) is
active without installing the package."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "python"))

pytest_plugins = ["cutile2triton.pytest_plugin"]
