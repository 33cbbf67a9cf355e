#!/usr/bin/env python3
"""Turns swift-argument-parser's generated man page into one that renders with
no warnings (`groff -ww -mandoc -z`, `mandoc -T lint -W warning`), then adds the
hand-written sections of man/sections.mdoc (JSON records, environment, files,
exit status, examples, see also) in place of the generic `.Ex -std`.

Usage: finish-man.py GENERATED.1 SECTIONS.mdoc > man/imgcache.1
"""
import re
import sys

SENTENCE_END = re.compile(r"(?<=[a-z0-9)\"'][.?!])\s+(?=[A-Z(\"'-])")


def text_lines(line):
    """One sentence per line; a line that would start with a control character is escaped."""
    for part in SENTENCE_END.split(line):
        yield "\\&" + part if part[:1] in (".", "'") else part


def main(generated, sections):
    out = []
    lines = open(generated).read().splitlines()
    skip = False
    for line in lines:
        if line == '.Sh "EXIT STATUS"':
            out.append(open(sections).read().rstrip("\n"))
            skip = True
            continue
        if skip:
            if line.startswith(".Sh "):
                skip = False
            else:
                continue
        if line.strip() == "":
            if out and out[-1] != ".Pp":
                out.append(".Pp")
        elif line.startswith(".Dt "):
            out.append(line)
            # groff 1.22 would head every page "BSD General Commands Manual".
            out.append(".ds doc-volume General Commands Manual")
        elif line.startswith("."):
            if out and out[-1] == ".Pp" and line.split()[0] in (".It", ".El", ".Sh", ".Ss"):
                out.pop()  # a paragraph break there is meaningless, and mandoc warns about it
            out.append(line)
        else:
            out.extend(text_lines(line))
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
