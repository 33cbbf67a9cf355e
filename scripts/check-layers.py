#!/usr/bin/env python3
"""Fails when a folder of ImageCore refers to a folder it may not, or
calls a C library it does not own.

The allowed direction is LAYERS below, drawn in docs/ARCHITECTURE.md: a
folder may refer only to folders on lower layers; folders on one layer are
peers and may not refer to each other. An edge is a file in folder A that
names something folder B declares at the top level (a type, protocol,
function, global `let` or `var`, inside `#if` or not), extends a type
declared there, or uses a member that an extension in folder B adds to a
type of ImageCore (a method, property or case by its name when no other
member in ImageCore has that name; an initialiser as `Type(label:`). The compiler
sees all of these; a check that saw fewer would pass edges it does not.

Names are matched as a small script can, without types: a declaration
(`let open`, `func stat`, `case name`) and an argument label or parameter
(`open:`, `_ stat:`) are not uses; a name a file declares for itself
(a local or member `let`/`var`, a parameter, a closure's or a `for`'s
names) is that file's own there, so only a call of it (`open(path, ...)`)
still reads as a use of a function another folder declares. A function
passed by name (`map(open)`) in a file with a local of that name (or an
argument label that begins a line) is missed.

C stays in one place per library (OWNERS): a file may import a C module,
or call a `CImageCoreShims` function, only for a library its folder owns.

`make lint` runs this; it prints each edge against the direction, and each
C use outside its owner, with the file and line that makes it.

Usage: scripts/check-layers.py [--edges] [--root DIR]
  --edges   list every edge found
  --root    check DIR instead of Sources/ImageCore (scripts/test-check-layers.py plants violations there)
"""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "ImageCore")
if "--root" in sys.argv:
    ROOT = sys.argv[sys.argv.index("--root") + 1]

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

# The libraries each folder may call, by C module or by the prefix of a
# CImageCoreShims function (or, for that module's system headers, a name).
OWNERS = {
    "curl": ["Loading"],
    "hiredis": ["Remote"],
    "jpeg": ["Decoding", "Encoding", "Codec"],
    "png": ["Decoding", "Encoding", "Codec"],
    "gif": ["Decoding", "Encoding", "Codec"],
    "webp": ["Decoding", "Encoding", "Codec"],
    "avif": ["Decoding", "Encoding"],
    "jxl": ["Decoding", "Encoding"],
    "heif": ["Decoding"],
    "hevc": ["Decoding"],
    "zlib": ["Codec", "Colour", "Encoding"],
    "crc32": ["Codec"],
    "lcms": ["Colour"],
    "digest": ["Support"],
    "malloc": ["System"],
    "xattr": ["System"],
    "dirent": ["System"],
}
# A C module and the libraries it brings (png.h includes zlib.h).
C_MODULES = {
    "CCurl": ["curl"],
    "CHiredis": ["hiredis"],
    "CJPEG": ["jpeg"],
    "CPNG": ["png", "zlib"],
    "CGIF": ["gif"],
    "CWebP": ["webp"],
    "CAVIF": ["avif"],
    "CJXL": ["jxl"],
    "CHEIF": ["heif"],
}
SHIMS = "CImageCoreShims"
SHIM_CALLS = [
    (re.compile(r"\bimgcache_curl_"), "curl"),
    (re.compile(r"\bimgcache_jpeg"), "jpeg"),
    (re.compile(r"\bimgcache_png"), "png"),
    (re.compile(r"\bimgcache_avif_"), "avif"),
    (re.compile(r"\bimgcache_jxl_"), "jxl"),
    (re.compile(r"\bimgcache_heif_"), "heif"),
    (re.compile(r"\bimgcache_hevc_"), "hevc"),
    (re.compile(r"\bimgcache_lcms_"), "lcms"),
    (re.compile(r"\bimgcache_zlib_"), "zlib"),
    (re.compile(r"\bimgcache_crc32"), "crc32"),
    (re.compile(r"\bimgcache_gif_"), "gif"),
    (re.compile(r"\bimgcache_webp"), "webp"),
    (re.compile(r"\bimgcache_hiredis_"), "hiredis"),
    (re.compile(r"\bimgcache_(?:sha256|xxh3)"), "digest"),
    (re.compile(r"\bimgcache_limit_"), "malloc"),
    (re.compile(r"\bimgcache_getdents"), "dirent"),
    (re.compile(r"\b[fl]?(?:get|set|list|remove)xattr\b"), "xattr"),
    (re.compile(r"\bCURL[A-Z]*_"), "curl"),
]
IMPORT = re.compile(r"^\s*(?:@\w+\s+)?(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(C\w+)")

MODIFIERS = (
    r"(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|open|indirect|"
    r"nonisolated|static|class|mutating|override|convenience|required|lazy|weak|unowned)\s+)*"
)
DECLARATION = re.compile(
    r"^\s*" + MODIFIERS + r"(class|struct|enum|protocol|actor|typealias|func|let|var)\s+([A-Za-z_]\w*)"
)
EXTENSION = re.compile(r"^\s*(?:(?:public|package|internal|private|fileprivate)\s+)*extension\s+([A-Za-z_]\w*)")
# A member declared in a type or extension body: its kind and name.
MEMBER = re.compile(r"^\s*" + MODIFIERS + r"(func|let|var|case|init)\b\s*([A-Za-z_]\w*)?\s*(\(\s*([A-Za-z_]\w*))?")
# A name not after a dot (a member); `label` marks one used as an argument label.
IDENTIFIER = re.compile(r"(?<![.\w])([A-Za-z_]\w*)\b(?P<label>\s*:(?!:))?")
# What makes the name after it a declaration, not a use.
DECLARES = re.compile(r"\b(?:let|var|func|class|struct|enum|protocol|actor|typealias|associatedtype)\s+$")
# An enum's case (`case open`); a switch's `case Type.member` is a use.
DECLARES_CASE = re.compile(r"^\s*(?:indirect\s+)?case\s+(?:[a-z_]\w*(?:\([^)]*\))?\s*,\s*)*$")
# Names a file declares for itself: `let`/`var` (and their tuples), a
# closure's parameters (`{ a, b in`), a `for`'s (`for (a, b) in`), and a
# function's parameters (`(label name: Type`, `(_ name: Type`, `(name: Type`).
LOCAL_BINDING = re.compile(r"\b(?:let|var)\s+(?:([a-z_]\w*)|\(([^)]*)\))")
LOCAL_LIST = re.compile(r"(?:\{|\bfor\s+(?:case\s+)?)\s*\(?\s*([a-z_]\w*(?:\s*,\s*[a-z_]\w*)*)\s*\)?\s+in\b")
PARAMETER = re.compile(r"(?:^|[(,])\s*(?:[a-z_]\w*\s+)?([a-z_]\w*)\s*:(?!:)")


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


def with_depth(code):
    """Each line of `code` with the brace depth at its start: 0 is file
    scope, whatever the indentation (a declaration inside `#if` is indented)."""
    depth = 0
    for number, line in enumerate(code.split("\n"), 1):
        yield number, line, depth
        depth += line.count("{") - line.count("}")


def local_names(code):
    """The names `code` declares for itself: locals, members, parameters,
    closures' and loops' names (and, taken for parameters, the labels of
    arguments that begin a line)."""
    names = set()
    for line in code.split("\n"):
        for binding in LOCAL_BINDING.finditer(line):
            if binding.group(1):
                names.add(binding.group(1))
            else:
                names.update(re.findall(r"[a-z_]\w*", binding.group(2)))
        for listed in LOCAL_LIST.finditer(line):
            names.update(re.findall(r"[a-z_]\w*", listed.group(1)))
        names.update(parameter.group(1) for parameter in PARAMETER.finditer(line))
    return names - {"_", "let", "var", "inout"}


def is_use(line, start, end, name, locals_, functions, labelled):
    """Whether the name at line[start:end] uses what a folder declares
    under `name` at file scope: not its declaration, not a label, and, for
    a name the file declares for itself, only a call of a function."""
    if DECLARES.search(line[:start]) or name[0].islower() and DECLARES_CASE.search(line[:start]):
        return False
    if labelled and name[0].islower():
        return False
    if name in locals_:
        return name in functions and re.match(r"\s*\(", line[end:]) is not None
    return True


def c_uses(path, code):
    """Each C use in a file, with its line and the libraries it may be for
    (a module that brings two is used for either): an imported C module,
    or a CImageCoreShims function (or system header) called; None for an
    import that serves no known library."""
    imports = [(number, IMPORT.match(line).group(1)) for number, line, _ in with_depth(code) if IMPORT.match(line)]
    locals_ = local_names(code)
    uses = []
    for number, module in imports:
        if module == SHIMS:
            found = False
            for call_number, line, _ in with_depth(code):
                if IMPORT.match(line):
                    continue
                for pattern, library in SHIM_CALLS:
                    for match in pattern.finditer(line):
                        # The whole identifier: a C name is a function of the
                        # shims or of a system header, so a local is no use of it.
                        start = match.start()
                        end = start + re.match(r"\w*", line[start:]).end()
                        # A member is not the C function, unless qualified by a C module.
                        qualifier = re.search(r"(\w+)\.$", line[:start])
                        if qualifier and qualifier.group(1) not in [SHIMS, "Glibc", *C_MODULES]:
                            continue
                        labelled = re.match(r"\s*:(?!:)", line[end:]) is not None
                        if not is_use(line, start, end, line[start:end], locals_, {line[start:end]}, labelled):
                            continue
                        uses.append((call_number, [library], match.group(0)))
                        found = True
                        break
            if not found:
                uses.append((number, None, module))
        elif module in C_MODULES:
            uses.append((number, C_MODULES[module], module))
        else:
            uses.append((number, None, module))
    return uses


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
    member_count = {}  # member name -> how many members in ImageCore have it
    added = {}  # member name -> folder of the extension that adds it
    initialisers = {}  # (type, first label) -> folder of the extension that adds it
    for path, folder, code in files:
        if folder not in layer_of:
            print(f"check-layers: {os.path.relpath(path, ROOT)}: folder {folder} is in no layer", file=sys.stderr)
            return 1
        extended = None
        for _, line, depth in with_depth(code):
            if depth == 0:
                extension = EXTENSION.match(line)
                extended = extension.group(1) if extension else None
                match = DECLARATION.match(line)
                if match and not extension:
                    declared.setdefault(match.group(2), folder)
                    if match.group(1) == "func":
                        functions.add(match.group(2))
                continue
            member = MEMBER.match(line)
            if not member:
                continue
            kind, name, label = member.group(1), member.group(2), member.group(4)
            if kind == "init":
                if extended and depth == 1 and label:
                    initialisers[(extended, label)] = folder
            elif name:
                member_count[name] = member_count.get(name, 0) + 1
                if extended and depth == 1:
                    added[name] = (folder, extended)
    # A member name shared with another member is not followed: which one a
    # use means is the type checker's to say.
    # Nor is a member added to a type from outside ImageCore (`Array`): the
    # standard library's members share its names.
    added = {
        name: folder for name, (folder, type_) in added.items() if member_count[name] == 1 and type_ in declared
    }
    member_use = re.compile(r"\.(" + "|".join(map(re.escape, sorted(added))) + r")\b") if added else None
    initialiser_use = [
        (re.compile(r"\b" + re.escape(type_) + r"(?:\.init)?\s*\(\s*" + re.escape(label) + r"\s*:"), folder, f"{type_}(" + label + ":")
        for (type_, label), folder in initialisers.items()
    ]

    edges = {}  # (from, to) -> first "file:line: name"
    for path, folder, code in files:
        locals_ = local_names(code)
        for number, line, _ in with_depth(code):
            extended = EXTENSION.match(line)
            names = [(extended.group(1), declared.get(extended.group(1)))] if extended else []
            for used in IDENTIFIER.finditer(line):
                name = used.group(1)
                if name in declared and not is_use(
                    line, used.start(1), used.end(1), name, locals_, functions, used.group("label")
                ):
                    continue
                names.append((name, declared.get(name)))
            if member_use and not MEMBER.match(line):
                names += [("." + used.group(1), added[used.group(1)]) for used in member_use.finditer(line)]
            for pattern, target, name in initialiser_use:
                if pattern.search(line):
                    names.append((name, target))
            for name, target in names:
                if target and target != folder:
                    where = f"{os.path.relpath(path, ROOT)}:{number}: {name}"
                    edges.setdefault((folder, target), where)

    misplaced = []
    for path, folder, code in files:
        for number, libraries, name in c_uses(path, code):
            if libraries is None or not any(folder in OWNERS[library] for library in libraries):
                owners = sorted({owner for library in libraries or [] for owner in OWNERS[library]})
                owner = f"owned by {', '.join(owners)}" if owners else "no library of a folder's"
                where = f"{os.path.relpath(path, ROOT)}:{number}: {name}"
                misplaced.append(f"check-layers: C in {folder} ({owner}) at {where}")

    if "--edges" in sys.argv:
        for (source, target), where in sorted(edges.items()):
            print(f"{source} -> {target}   ({where})")
    wrong = [(s, t, w) for (s, t), w in sorted(edges.items()) if layer_of[s] >= layer_of[t]]
    for source, target, where in wrong:
        kind = "peers" if layer_of[source] == layer_of[target] else "upward"
        print(f"check-layers: {source} -> {target} ({kind}) at {where}", file=sys.stderr)
    for line in misplaced:
        print(line, file=sys.stderr)
    if wrong or misplaced:
        print("check-layers: see the allowed edges in docs/ARCHITECTURE.md and scripts/check-layers.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
