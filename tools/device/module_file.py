"""Import a Python file as a module (the device tools load converted modules this way)."""
import importlib.util
import sys


def load(path, name):
    """The module of `path`, registered as `name` in sys.modules (Triton's autotuner and
    dataclass helpers look a kernel's module up by name)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
