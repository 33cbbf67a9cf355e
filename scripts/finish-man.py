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

# mdoc's callable macros: as a word of a macro line's arguments, each is
# called rather than printed (".Ql write error: No space" printed "write
# error: space"). `.Ql` quotes literal text, so there they are escaped.
CALLABLE = set("""Ac Ad An Ao Ap Aq Ar At Bc Bo Bq Brc Bro Brq Bsx Bx Cd Cm Dc Do Dq Dv Dx Ec Em En Eo Er Es
Ev Fa Fc Fl Fn Fo Fr Ft Fx Ic Li Lk Ms Mt Nm No Ns Nx Oc Oo Op Ox Pa Pc Pf Po Pq Qc Ql Qo Qq Sc So Sq St Sx
Sy Tn Ux Va Vt Xc Xo Xr""".split())


def literal_quote(line):
    """A `.Ql` line whose words that name macros are printed, not called."""
    words = line.split(" ")
    return " ".join(words[:1] + ["\\&" + w if w in CALLABLE else w for w in words[1:]])


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
            for written in open(sections).read().rstrip("\n").split("\n"):
                out.append(literal_quote(written) if written.startswith(".Ql ") else written)
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
            # No hyphenation: a reader searching the page for a JSON field
            # (bytes_downloaded) or an option must find it whole, never
            # "bytes_down-" at a line's end. groff's mdoc re-applies
            # doc-hyphen-flags at every section; mandoc never hyphenates.
            out.append(".nr doc-hyphen-flags 0")
            out.append(".nh")
            # Nor a break after a word's own hyphen: "If-" at a line's end
            # and "None-Match" on the next, or an option split after "--max-".
            # mandoc ignores the request (and breaks there still).
            out.append(".cflags 0 -")
        elif line.startswith(".Ql "):
            out.append(literal_quote(line))
        elif line.startswith("."):
            if out and out[-1] == ".Pp" and line.split()[0] in (".It", ".El", ".Sh", ".Ss"):
                out.pop()  # a paragraph break there is meaningless, and mandoc warns about it
            out.append(line)
        else:
            out.extend(text_lines(line))
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
