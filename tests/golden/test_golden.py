"""Golden tests: cuTile in, Triton out, compared as text.

Each tests/golden/cases/NAME.py is converted and compared with
tests/golden/cases/NAME.expected; a change in generated code shows up here
in review. To accept new output after reviewing it:

    C2T_UPDATE_GOLDEN=1 python -m pytest tests/golden
"""

import os
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CONVERTER = Path(os.environ.get("C2T_BIN", REPO / "build" / "cutile2triton"))
CASES = sorted((HERE / "cases").glob("*.py"))


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_golden(case):
    proc = subprocess.run([str(CONVERTER), str(case.relative_to(REPO))], capture_output=True, text=True,
                          timeout=60, cwd=REPO)
    actual = proc.stdout if proc.returncode == 0 else f"exit {proc.returncode}\n{proc.stderr}"
    expected_path = case.with_suffix(".expected")
    if os.environ.get("C2T_UPDATE_GOLDEN") == "1":
        expected_path.write_text(actual)
    assert expected_path.exists(), f"no {expected_path.name}: run with C2T_UPDATE_GOLDEN=1 after review"
    assert actual == expected_path.read_text()
