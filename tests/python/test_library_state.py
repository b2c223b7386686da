"""No static mutable state in the library (issue 8): the Python package calls it
from any thread, so every run keeps its state in its own Context / Lowerer.

objdump lists the data symbols of build/libcutile2triton.a with their sections.
Writable ones (.data, .bss, thread-local .tdata/.tbss, common) are refused, except
the tool's signal guard (src/cli/io.c): a signal handler can reach nothing but
static data, and those variables are taken under a mutex. Constant tables
(.rodata, and .data.rel.ro for tables of pointers, read-only after relocation)
are fine.
"""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "build" / "libcutile2triton.a"
WRITABLE = re.compile(r"^\.(data|bss|tdata|tbss)(\..*)?$")
# src/cli/io.c: the signal guard that removes temporary output files on SIGINT and the like
ALLOWED = {("io.o", name) for name in ("guard_lock", "guard_users", "guard_installed", "guard_previous",
                                         "guard_paths", "guard_taken", "guard_caught")}


def writable_symbols(archive):
    out = subprocess.run(["objdump", "-t", str(archive)], capture_output=True, text=True, check=True).stdout
    member, found = None, []
    for line in out.splitlines():
        head = re.match(r"^(\S+\.o):\s+file format", line)
        if head:
            member = head.group(1)
            continue
        # VALUE FLAGS SECTION SIZE NAME; flags "d" (a section's own symbol), "f" (file), "F" (function)
        # are not data; a static thread-local has no "O" flag, so every other symbol counts
        fields = re.match(r"^[0-9a-f]+ (.{7}) (\S+)\s+[0-9a-f]+\s+(\S+)$", line)
        if not fields or set(fields.group(1)) & set("dfF"):
            continue
        section, name = fields.group(2), fields.group(3)
        if WRITABLE.match(section) and not section.startswith(".data.rel.ro") or section == "*COM*":
            found.append((member, name, section))
    return found


@pytest.mark.skipif(not shutil.which("objdump"), reason="objdump is not installed")
def test_the_library_has_no_writable_static_data():
    assert LIBRARY.exists(), "run make first"
    found = writable_symbols(LIBRARY)
    assert found, "objdump listed no data symbol at all: the parse of its output is broken"
    unexpected = [(member, name, section) for member, name, section in found if (member, name) not in ALLOWED]
    assert not unexpected, f"static mutable state in the library: {unexpected}"
