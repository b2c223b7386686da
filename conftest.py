"""pytest in this repository: the clone's cutile2triton package (python/) and
its plugin (--print-record) are the ones used, whether or not a version of the
package is installed.

pytest.ini blocks the installed package's plugin entry point; if it was loaded
anyway (pytest run with another ini file or `-p cutile2triton`), that plugin
stays the one registered (a second registration is an error) and only the
package that the tests import is switched to the clone's.
"""

import sys
from pathlib import Path

CLONE_PACKAGE = Path(__file__).resolve().parent / "python"
sys.path.insert(0, str(CLONE_PACKAGE))


def _imported_from_elsewhere():
    module = sys.modules.get("cutile2triton")
    if module is None:
        return False
    location = Path(getattr(module, "__file__", None) or ".").resolve()
    return CLONE_PACKAGE not in location.parents


if _imported_from_elsewhere():
    for name in [name for name in sys.modules if name == "cutile2triton" or name.startswith("cutile2triton.")]:
        del sys.modules[name]
    pytest_plugins = []
else:
    pytest_plugins = ["cutile2triton.pytest_plugin"]
