#!/usr/bin/env python3
"""Fails when a folder of ImageCore refers to a folder it may not.

The allowed direction is LAYERS below, drawn in docs/ARCHITECTURE.md: a
folder may refer only to folders on lower layers; folders on one layer are
peers and may not refer to each other. An edge is a file in folder A that
names a type, protocol or top-level function declared in folder B, or
extends a type declared there. `make lint` runs this; it prints each edge
against the direction with the file and line that makes it.

Usage: scripts/check-layers.py [--edges]   (--edges lists every edge found)
"""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "ImageCore")

# Top to bottom. "facade" is the files directly in Sources/ImageCore.
LAYERS = [
    ["Batch"],
    ["facade"],
    ["Pipeline"],
    ["Remote", "Maintenance"],
    ["Loading"],
    ["Coordination", "Caching"],
    ["HTTPCaching"],
    ["Decoding", "Encoding"],
    ["Codec", "Colour"],
    ["Support"],
    ["System"],
    ["Model"],
]

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|open|indirect|"
    r"nonisolated|static)\s+)*(class|struct|enum|protocol|actor|typealias|func)\s+([A-Za-z_]\w*)"
)
EXTENSION = re.compile(r"^(?:(?:public|package|internal|private|fileprivate)\s+)*extension\s+([A-Za-z_]\w*)")
# A name not after a dot (a member); `label` marks one used as an argument label.
IDENTIFIER = re.compile(r"(?<![.\w])([A-Za-z_]\w*)\b(?P<label>\s*:(?!:))?")


def folder_of(path):
    relative = os.path.relpath(path, ROOT)
    parts = relative.split(os.sep)
    return "facade" if len(parts) == 1 else parts[0]


def strip(text):
    """The code without comments and string literals (line breaks kept);
    the code inside a string's interpolations `\\(...)` is kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text[i] == '"':
            quote = '"""' if text.startswith('"""', i) else '"'
            j = i + len(quote)
            out.append('""')
            while j < n and not text.startswith(quote, j):
                if text.startswith("\\(", j):
                    depth, k = 1, j + 2
                    while k < n and depth:
                        depth += {"(": 1, ")": -1}.get(text[k], 0)
                        k += 1
                    out.append(" " + text[j + 2 : k - 1] + " ")
                    j = k
                elif text[j] == "\\":
                    j += 2
                else:
                    if text[j] == "\n":
                        out.append("\n")
                        if quote == '"':
                            break
                    j += 1
            i = j + len(quote)
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def main():
    files = []
    for directory, _, names in os.walk(ROOT):
        for name in sorted(names):
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as handle:
                    files.append((path, folder_of(path), strip(handle.read())))

    layer_of = {folder: index for index, folders in enumerate(LAYERS) for folder in folders}
    declared = {}  # name -> folder
    functions = set()
    for path, folder, code in files:
        if folder not in layer_of:
            print(f"check-layers: {os.path.relpath(path, ROOT)}: folder {folder} is in no layer", file=sys.stderr)
            return 1
        for line in code.split("\n"):
            match = DECLARATION.match(line)  # column 0 only: top-level declarations
            if match:
                declared.setdefault(match.group(2), folder)
                if match.group(1) == "func":
                    functions.add(match.group(2))

    edges = {}  # (from, to) -> first "file:line: name"
    for path, folder, code in files:
        for number, line in enumerate(code.split("\n"), 1):
            extended = EXTENSION.match(line)
            names = [extended.group(1)] if extended else []
            for used in IDENTIFIER.finditer(line):
                # A function's name as a label or a member's declaration is not a use.
                if used.group(1) in functions and (used.group("label") or line[: used.start()].endswith("func ")):
                    continue
                names.append(used.group(1))
            for name in names:
                target = declared.get(name)
                if target and target != folder:
                    where = f"{os.path.relpath(path, ROOT)}:{number}: {name}"
                    edges.setdefault((folder, target), where)

    if "--edges" in sys.argv:
        for (source, target), where in sorted(edges.items()):
            print(f"{source} -> {target}   ({where})")
    wrong = [(s, t, w) for (s, t), w in sorted(edges.items()) if layer_of[s] >= layer_of[t]]
    for source, target, where in wrong:
        kind = "peers" if layer_of[source] == layer_of[target] else "upward"
        print(f"check-layers: {source} -> {target} ({kind}) at {where}", file=sys.stderr)
    if wrong:
        print("check-layers: see the allowed edges in docs/ARCHITECTURE.md and scripts/check-layers.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
