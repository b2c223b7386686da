#!/usr/bin/env python3
"""gen_helpers.py — generate src/lower/helper_text.h from src/lower/helpers/*.py.

The Python code that generated modules carry (the runtime helpers: small
@triton.jit functions such as ct_floordiv, and the host-side functions such as
_kernel_stream) is written as Python files under src/lower/helpers/, one file
per family. In each file a line

    # helper: NAME
    # helper: NAME needs OTHER ...

starts a helper; it runs to the next such line (or the end of the file), its
trailing blank lines left off. NAME is the name the generated module defines
(the C code refers to it as HELPER_NAME). What comes before the first marker
(the file's docstring, the imports that make the file importable for tests)
is not part of any helper. `needs` lists the helpers this one calls, in the
order the module gets them (before this one, each with its own needs); the
generator checks that the list, with what those need in turn, covers every
helper the text refers to, and names none it does not. A helper whose text calls
`libdevice.` or reads INTERPRETED makes the module import libdevice / define
INTERPRETED, one that uses a name of HELPER_IMPORTS below (`random.`,
TensorDescriptor) makes it import that (flags derived here, not listed by hand). Own-line comments inside a helper are carried into
the generated code; trailing comments are not.

Files named *_templates.py hold the rank-parameterized helpers instead
(ct_load_Nd, ...): a line

    # template: NAME from rank N

starts one, and the comment lines right under it,

    #   WORD = TEXT

declare its placeholder words (uppercase names, valid Python where they
stand). The converter asks for ranks N and up. In the template, RANK (also
inside a name: ct_load_RANKd) is the rank, and each WORD, as a whole name, is
its TEXT, where {ITEM|SEP} (SEP optional) is ITEM once per axis with SEP
between, `$` in ITEM is the axis and `[^]` the subscript that lays a 1-D range
along axis $ ("[:, None]" of rank 2; nothing at rank 1). A WORD alone on its
line (its TEXT without braces) is that line once per axis. The generator
replaces the words, so the header holds only RANK, {ITEM|SEP}, $ and [^]:
fill_template (src/lower/runtime.c) does the rest per rank, and fill() here
is its twin for the tests. Templates call no other helper.

The header is committed, so `make` needs no Python; tests/helpers checks that
it is not stale. Run after editing a helper:

    python3 tools/gen_helpers.py > src/lower/helper_text.h
"""
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FOLDER = REPO / "src" / "lower" / "helpers"
MARKER = re.compile(r"^# helper: ([A-Za-z_][A-Za-z0-9_]*)((?: needs(?: [A-Za-z_][A-Za-z0-9_]*)+)?)\s*$")
MAX_NEEDS = 6
# What a helper's text uses (a regular expression) and the import that gives it to the module.
HELPER_IMPORTS = [
    (r"\brandom\.", "import random"),
    (r"\bthreading\.", "import threading"),
    (r"\binspect\.", "import inspect"),
    (r"\bTensorDescriptor\b", "from triton.tools.tensor_descriptor import TensorDescriptor"),
]


def helpers_of(path):
    """[(name, text)] of one helper file, in file order."""
    found = []
    name, needs, lines = None, [], []
    for line in path.read_text().splitlines(keepends=True):
        match = MARKER.match(line)
        if line.startswith("# helper:") and not match:
            raise SystemExit(f"{path.name}: malformed marker {line!r}")
        if match:
            if name:
                found.append((name, needs, lines))
            name, needs, lines = match.group(1), match.group(2).split()[1:], []
        elif name:
            lines.append(line)
    if name:
        found.append((name, needs, lines))
    result = []
    for name, needs, lines in found:
        while lines and not lines[-1].strip():
            lines.pop()
        text = "".join(lines)
        if not text.endswith("\n"):
            text += "\n"
        result.append((name, needs, text))
    return result


def all_helpers():
    """[(file, name, text)] of every helper file, sorted by file name."""
    result, seen = [], {}
    for path in sorted(FOLDER.glob("*.py")):
        if path.name.endswith("_templates.py"):
            continue
        for name, needs, text in helpers_of(path):
            if name in seen:
                raise SystemExit(f"{path.name}: helper {name} is also in {seen[name]}")
            seen[name] = path.name
            result.append((path.name, name, needs, text))
    names = set(seen)
    needs_of = {name: needs for _, name, needs, _ in result}

    def closure(needs):
        found = set()
        for need in needs:
            if need not in needs_of:
                raise SystemExit(f"no helper {need}")
            found |= {need} | closure(needs_of[need])
        return found

    for file, name, needs, text in result:
        used = {word for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text) if word in names} - {name}
        used -= {"INTERPRETED"}  # a flag of the module, not a call
        if len(needs) > MAX_NEEDS:
            raise SystemExit(f"{file}: {name} needs more than {MAX_NEEDS} helpers")
        if not set(needs) <= used or not used <= closure(needs) or len(set(needs)) != len(needs):
            raise SystemExit(f"{file}: {name} says it needs {needs}; its text calls {sorted(used)}")
    return result


TEMPLATE = re.compile(r"^# template: ([A-Za-z_][A-Za-z0-9_]*) from rank ([0-9])\s*$")
WORD = re.compile(r"^#   ([A-Z][A-Z_]*) = (.+)$")
REPEAT = re.compile(r"\{([^{}|]*)(?:\|([^{}]*))?\}")


def template_of(file, name, lines):
    """The embedded form of one template: its words replaced (see the docstring)."""
    words = {}
    while lines and WORD.match(lines[0]):
        word, text = WORD.match(lines.pop(0)).groups()
        outside = REPEAT.sub("", text)
        if word in words or word == "RANK" or "{" in outside or "}" in outside:
            raise SystemExit(f"{file}: {name}: bad word {word} = {text}")
        words[word] = text
    while lines and not lines[-1].strip():
        lines.pop()
    body = "".join(lines)
    if "RANK" not in name or any(c in body for c in "{}$") or "[^]" in body or "# template" in body:
        raise SystemExit(f"{file}: {name}: RANK in the name, no {{ }} $ [^] in the code")
    used = set()

    def replace(match):
        used.add(match.group(0))
        return words[match.group(0)]

    pattern = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(sorted(words, key=len, reverse=True)) + r")(?![A-Za-z0-9_])")
    out = []
    for line in body.splitlines(keepends=True):
        stripped = line.strip()
        if stripped in words:
            if "{" in words[stripped]:
                raise SystemExit(f"{file}: {name}: {stripped} stands alone on its line: one line per axis, no braces")
            used.add(stripped)
            out.append("{" + line[: len(line) - len(line.lstrip())] + words[stripped] + "\n}")
        else:
            out.append(pattern.sub(replace, line) if words else line)
    if used != set(words):
        raise SystemExit(f"{file}: {name}: unused words {sorted(set(words) - used)}")
    text = "".join(out)
    outside = REPEAT.sub("", text)
    if "$" in outside or "[^]" in outside:
        raise SystemExit(f"{file}: {name}: $ and [^] only inside {{ITEM|SEP}} (or in a word alone on its line)")
    if not text.endswith("\n"):
        text += "\n"
    return text


def all_templates():
    """[(file, name, min_rank, text)] of every *_templates.py, in embedded form."""
    result = []
    helper_names = {name for _, name, _, _ in all_helpers()}
    for path in sorted(FOLDER.glob("*_templates.py")):
        name, lines = None, []
        found = []
        for line in path.read_text().splitlines(keepends=True):
            match = TEMPLATE.match(line)
            if (line.startswith("# template:") or line.startswith("# helper:")) and not match:
                raise SystemExit(f"{path.name}: malformed marker {line!r}")
            if match:
                if name:
                    found.append((name, rank, lines))
                name, rank, lines = match.group(1), int(match.group(2)), []
            elif name:
                lines.append(line)
        if name:
            found.append((name, rank, lines))
        for name, rank, lines in found:
            text = template_of(path.name, name, lines)
            calls = {w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text) if w in helper_names}
            if calls or "libdevice." in text or "INTERPRETED" in text:
                raise SystemExit(f"{path.name}: {name}: templates call no helper, libdevice or INTERPRETED")
            result.append((path.name, name, rank, text))
    return result


def subscript(axis, rank):
    """The subscript that lays a 1-D range along `axis` of `rank` (none at rank 1)."""
    if rank == 1:
        return ""
    return "[" + ", ".join(":" if d == axis else "None" for d in range(rank)) + "]"


def fill(text, rank):
    """A template's embedded text for one rank: the twin of fill_template in runtime.c."""
    def repeat(match):
        item, sep = match.group(1), match.group(2) or ""
        return sep.join(item.replace("[^]", subscript(a, rank)).replace("$", str(a)) for a in range(rank))

    return REPEAT.sub(repeat, text).replace("RANK", str(rank))


def c_string(text):
    """`text` as C string literals, one per line of Python."""
    out = []
    for line in text.splitlines(keepends=True):
        escaped = line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        if any(ord(c) < 0x20 or ord(c) > 0x7E for c in line.rstrip("\n")):
            raise SystemExit(f"only printable ASCII in helpers: {line!r}")
        out.append(f'    "{escaped}"')
    return "\n".join(out)


def generate():
    helpers = all_helpers()
    lines = [
        "/*",
        " * helper_text.h — the Python text of the runtime helpers (generated).",
        " *",
        " * Generated by tools/gen_helpers.py from the files of src/lower/helpers/; do",
        " * not edit: edit the Python file and run",
        " *",
        " *     python3 tools/gen_helpers.py > src/lower/helper_text.h",
        " *",
        " * HelperId names each helper; HELPER_SOURCES (defined where",
        " * C2T_HELPER_TEXT is defined before the include: runtime.c) holds its",
        " * name and text. TemplateId and TEMPLATE_SOURCES: the same for the",
        " * rank-parameterized helpers (*_templates.py), filled in per rank.",
        " */",
        "#ifndef C2T_HELPER_TEXT_H",
        "#define C2T_HELPER_TEXT_H",
        "",
        "typedef enum HelperId {",
    ]
    for file, name, _, _ in helpers:
        lines.append(f"  HELPER_{name}, /* {file} */")
    lines += [
        "  HELPER_COUNT",
        "} HelperId;",
        "",
        "typedef struct HelperSource {",
        "  const char *name;    /* the name the generated module defines */",
        "  const char *text;    /* Python source, one or more top-level statements */",
        f"  int needs[{MAX_NEEDS}];        /* helpers it calls, emitted before it; -1 ends the list */",
        "  bool libdevice;      /* calls libdevice: the module imports it */",
        "  bool interpreted;    /* reads INTERPRETED: the module defines it */",
        "  unsigned imports;    /* bit i: its text uses what HELPER_IMPORTS[i] imports */",
        "} HelperSource;",
        "",
        "typedef enum TemplateId {",
    ]
    templates = all_templates()
    for file, name, _, _ in templates:
        lines.append(f"  TEMPLATE_{name}, /* {file} */")
    lines += [
        "  TEMPLATE_COUNT",
        "} TemplateId;",
        "",
        "typedef struct TemplateSource {",
        "  const char *name;    /* the name it defines, RANK for the rank */",
        "  const char *text;    /* Python source: RANK, {ITEM|SEP}, $ and [^] (tools/gen_helpers.py) */",
        "  int min_rank;        /* the smallest rank it is filled for */",
        "} TemplateSource;",
        "",
        "#endif",
        "",
        "#ifdef C2T_HELPER_TEXT",
        "static const HelperSource HELPER_SOURCES[HELPER_COUNT] = {",
    ]
    for _, name, needs, text in helpers:
        ids = ", ".join([f"HELPER_{need}" for need in needs] + ["-1"] * (MAX_NEEDS - len(needs)))
        libdevice = "true" if "libdevice." in text else "false"
        interpreted = "true" if re.search(r"\bINTERPRETED\b", text) and name != "INTERPRETED" else "false"
        lines.append(f'  [HELPER_{name}] = {{"{name}",')
        lines.append(c_string(text) + ",")
        imports = sum(1 << i for i, (used, _) in enumerate(HELPER_IMPORTS) if re.search(used, text))
        lines.append(f"    {{{ids}}}, {libdevice}, {interpreted}, {imports}u}},")
    lines += ["};", "", "/* the imports a helper's text may need (HelperSource.imports), NULL-terminated */",
              "static const char *const HELPER_IMPORTS[] = {"]
    lines += [f'  "{line}",' for _, line in HELPER_IMPORTS]
    lines += ["  NULL,", "};", "", "static const TemplateSource TEMPLATE_SOURCES[TEMPLATE_COUNT] = {"]
    for _, name, rank, text in templates:
        lines.append(f'  [TEMPLATE_{name}] = {{"{name}",')
        lines.append(c_string(text) + ",")
        lines.append(f"    {rank}}},")
    lines += ["};", "#endif", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(generate())
