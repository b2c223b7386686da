"""Installing the package (setup.py) into a virtual environment, offline, and
then running the clone's tests with that environment's Python: the installed
plugin must not clash with the clone's (pytest.ini, conftest.py), the tests
must import the clone's package even though another version is installed, and
the `cutile2triton` console script must run the tool.

The package is installed from a copy of the sources (with the library already
built by `make`, so nothing is compiled again), so the clone gets no
egg-info or build/lib; the copy's version is changed, as an installed release
differs from a clone.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "build" / "cutile2triton"
SAMPLE = ROOT / "corpus" / "cutile" / "vector_add.py"


def clean_env(venv):
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYTEST_ADDOPTS", "C2T_LIB", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", VIRTUAL_ENV=str(venv),
               PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    return env


def run(command, **kwargs):
    return subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=300, **kwargs)


def copy_sources(destination):
    """What setup.py needs: setup.py, Makefile, include/, src/, python/, and the
    built library with its objects (mtimes kept, so make finds them current)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    destination.mkdir()
    for name in ("setup.py", "Makefile"):
        shutil.copy2(ROOT / name, destination / name)
    for name in ("include", "src", "python"):
        shutil.copytree(ROOT / name, destination / name, ignore=ignore)
    (destination / "build").mkdir()
    if (ROOT / "build" / "pic").is_dir():
        shutil.copytree(ROOT / "build" / "pic", destination / "build" / "pic")
    if (ROOT / "build" / "libcutile2triton.so").is_file():
        shutil.copy2(ROOT / "build" / "libcutile2triton.so", destination / "build")
    # an installed version that differs from the clone's
    setup = destination / "setup.py"
    text = setup.read_text()
    assert "version=VERSION," in text
    setup.write_text(text.replace("version=VERSION,", 'version=VERSION + ".post1",'))
    plugin = destination / "python" / "cutile2triton" / "pytest_plugin.py"
    plugin.write_text(plugin.read_text() + "\nINSTALLED_COPY = True\n")


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    probe = run([sys.executable, "-c", "import setuptools, pip; print(setuptools.__version__)"])
    assert probe.returncode == 0, f"setuptools and pip must be importable by {sys.executable}: {probe.stderr}"
    base = tmp_path_factory.mktemp("install")
    sources = base / "src"
    copy_sources(sources)
    venv = base / "venv"
    # --without-pip: the venv uses this Python's pip and setuptools (system site
    # packages), not the older ones a venv bundles, and needs no network
    made = run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv])
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    env = clean_env(venv)
    installed = run([python, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index", "-q",
                     sources], env=env, cwd=base)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    where = run([python, "-c", "import cutile2triton, cutile2triton.pytest_plugin as p; "
                               "print(cutile2triton.__file__); print(p.INSTALLED_COPY)"], env=env, cwd=base)
    assert where.returncode == 0, where.stderr
    location, marker = where.stdout.split()
    assert str(venv) in location and marker == "True", where.stdout
    return venv, env


def test_console_script(venv):
    venv, env = venv
    script = venv / "bin" / "cutile2triton"
    assert script.is_file(), "no console script `cutile2triton` installed"
    mine, theirs = run([script, "--version"], env=env), run([TOOL, "--version"])
    assert (mine.returncode, mine.stdout) == (0, theirs.stdout), mine.stderr
    mine, theirs = run([script, SAMPLE], env=env), run([TOOL, SAMPLE])
    assert (mine.returncode, mine.stdout, mine.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr)
    assert mine.returncode == 0
    bad = run([script, "--no-such-option"], env=env)
    assert bad.returncode == 2


SESSION = ["tests/python/test_api.py", "-k", "clone_package or test_version or exports", "--print-record"]


def test_clone_tests_run_with_the_package_installed(venv):
    venv, env = venv
    session = run([venv / "bin" / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *SESSION], env=env,
                  cwd=ROOT)
    assert session.returncode == 0, session.stdout + session.stderr
    assert "3 passed" in session.stdout, session.stdout


def test_clone_tests_run_with_the_installed_plugin_loaded(venv):
    """pytest.ini's block overridden: the installed plugin is loaded, the clone's
    is not registered a second time, and the tests still import the clone's package."""
    venv, env = venv
    session = run([venv / "bin" / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                   *SESSION], env=env, cwd=ROOT)
    assert session.returncode == 0, session.stdout + session.stderr
    assert "3 passed" in session.stdout, session.stdout
