#!/bin/sh
# Makes the AVIF and APNG fixtures and their reference decodes. AVIFs come
# from avifenc (libavif-bin) and are decoded by avifdec --depth 8, frame by
# frame (--index); APNGs are written chunk by chunk below (so each dispose
# and blend op, an offset region and a default image outside the animation
# are exactly as intended) and decoded by ffmpeg's apng decoder, which
# follows the APNG specification. Run from this directory; the results are
# checked in, so tests need none of these tools.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p malformed

python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
def pam(name, w, h, f):
    with open(f"{d}/{name}", "wb") as out:
        out.write(f"P7\nWIDTH {w}\nHEIGHT {h}\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".encode())
        out.write(bytes(c for y in range(h) for x in range(w) for c in f(x, y)))
pam("gradient.pam", 24, 16, lambda x, y: (x * 10, y * 15, 255 - x * 5, 255))
pam("alpha.pam", 16, 10, lambda x, y: (x * 16, 255 - y * 20, 90, (x * 17 + y * 5) % 256))
pam("wide.pam", 12, 8, lambda x, y: (x * 20, y * 30, 128 if x < 6 else 0, 255))
for i in range(3):
    pam(f"seq{i}.pam", 16, 12, lambda x, y, i=i: ((x * 16 + i * 60) % 256, (y * 20) % 256, 200 - i * 70, 255))
PY
for f in gradient alpha wide seq0 seq1 seq2; do pamtopng "$tmp/$f.pam" > "$tmp/$f.png"; done

avifenc -s 8 "$tmp/gradient.png" avif-still.avif >/dev/null
avifenc -s 8 "$tmp/alpha.png" avif-alpha.avif >/dev/null
avifenc -s 8 -d 10 -y 420 "$tmp/gradient.png" avif-10bit.avif >/dev/null
avifenc -s 8 --irot 1 --imir 1 "$tmp/wide.png" avif-irot.avif >/dev/null
avifenc -s 8 -y 420 --timescale 1000 --duration 100 "$tmp/seq0.png" --duration 250 "$tmp/seq1.png" "$tmp/seq2.png" avif-sequence.avif >/dev/null

truth() {  # file frames [pamflip args]
    out="${1%.avif}.truth.pam"
    : > "$out"
    i=0
    while [ "$i" -lt "$2" ]; do
        avifdec -d 8 --index "$i" "$1" "$tmp/frame.png" >/dev/null
        # -alphapam gives an opaque alpha plane to an RGB PNG too.
        if [ $# -gt 2 ]; then pngtopam -alphapam "$tmp/frame.png" | pamflip "$3" | pamflip "$4" >> "$out"
        else pngtopam -alphapam "$tmp/frame.png" >> "$out"; fi
        i=$((i + 1))
    done
}
truth avif-still.avif 1
truth avif-alpha.avif 1
truth avif-10bit.avif 1
# irot 1 is a quarter turn anticlockwise, then imir 1 swaps left and right.
truth avif-irot.avif 1 -r90 -lr
truth avif-sequence.avif 3

# An AVIF whose ispe claims 100000 x 100000 pixels.
python3 - avif-still.avif malformed/huge-ispe.avif <<'PY'
import sys, struct
data = bytearray(open(sys.argv[1], "rb").read())
at = data.index(b"ispe") + 8  # past the type and version/flags
data[at:at + 8] = struct.pack(">II", 100000, 100000)
open(sys.argv[2], "wb").write(data)
PY

python3 - "$tmp" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
def ihdr(w, h, color=6):
    return chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0))
def idat(w, h, f, bpp=4):
    raw = b"".join(b"\0" + bytes(c for x in range(w) for c in f(x, y)) for y in range(h))
    return zlib.compress(raw)
class APNG:
    def __init__(self, w, h, plays=0, color=6, extra=b""):
        self.w, self.h, self.plays, self.color, self.extra = w, h, plays, color, extra
        self.body, self.seq, self.frames = b"", 0, 0
    def fctl(self, w, h, x, y, num, den, dispose, blend):
        self.body += chunk(b"fcTL", struct.pack(">IIIIIHHBB", self.seq, w, h, x, y, num, den, dispose, blend))
        self.seq += 1
        self.frames += 1
    def idat(self, data):
        self.body += chunk(b"IDAT", data)
    def fdat(self, data):
        self.body += chunk(b"fdAT", struct.pack(">I", self.seq) + data)
        self.seq += 1
    def frame(self, w, h, x, y, ms, dispose, blend, f, default=False, bpp=4):
        self.fctl(w, h, x, y, ms, 1000, dispose, blend)
        (self.idat if default else self.fdat)(idat(w, h, f, bpp))
    def write(self, name, frames=None):
        actl = chunk(b"acTL", struct.pack(">II", frames if frames is not None else self.frames, self.plays))
        png = b"\x89PNG\r\n\x1a\n" + ihdr(self.w, self.h, self.color) + actl + self.extra + self.body + chunk(b"IEND", b"")
        open(name, "wb").write(png)
        return png

NONE, BACKGROUND, PREVIOUS = 0, 1, 2
SOURCE, OVER = 0, 1
W, H = 8, 6
base = lambda x, y: (x * 30, y * 40, 200, 255)
half = lambda x, y: (250, 20 * x, 10, 128)
clear_edge = lambda x, y: (0, 200, 90, 0 if x == 0 else 180)

# Every dispose op, both blend ops over partly transparent pixels, regions
# offset inside the canvas; the default image is the first frame.
a = APNG(W, H, plays=3)
a.frame(W, H, 0, 0, 100, NONE, SOURCE, base, default=True)
a.frame(4, 3, 2, 1, 50, BACKGROUND, OVER, half)
a.frame(3, 4, 5, 2, 200, PREVIOUS, OVER, clear_edge)
a.frame(5, 2, 1, 3, 70, NONE, SOURCE, half)
a.frame(2, 2, 0, 0, 30, PREVIOUS, OVER, clear_edge)
a.frame(W, 3, 0, 3, 40, NONE, OVER, lambda x, y: (10, 10, 240, 60))
good = a.write("apng-ops.png")

# The default image (IDAT with no fcTL before it) is not part of the
# animation: only the two fdAT frames play. The first frame's dispose op is
# PREVIOUS, which the specification says to treat as BACKGROUND. ffmpeg
# cannot decode such a file, so its reference comes from a twin whose first
# frame is the default image: by the specification both show the same.
for twin in (False, True):
    b = APNG(W, H, plays=0)
    if not twin:
        b.idat(idat(W, H, lambda x, y: (255, 0, 0, 255)))
    b.frame(W, H, 0, 0, 120, PREVIOUS, OVER, half, default=twin)
    b.frame(6, 4, 1, 1, 80, NONE, OVER, clear_edge)
    b.write(f"{sys.argv[1]}/apng-hidden-default.png" if twin else "apng-hidden-default.png")

# Palette colour with tRNS: PLTE and tRNS must reach every frame's decode.
plte = chunk(b"PLTE", bytes([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]))
trns = chunk(b"tRNS", bytes([0, 255, 128, 255]))
c = APNG(6, 4, plays=1, color=3, extra=plte + trns)
c.frame(6, 4, 0, 0, 100, NONE, SOURCE, lambda x, y: ((x + y) % 4,), default=True)
c.frame(3, 2, 2, 1, 100, NONE, OVER, lambda x, y: ((x + 1) % 4,))
c.write("apng-palette.png")

# Malformed: a frame region past the canvas; a skipped sequence number; an
# fdAT before any fcTL; more frames promised than there are.
m = APNG(W, H)
m.frame(W, H, 0, 0, 100, NONE, SOURCE, base, default=True)
m.frame(4, 4, 6, 0, 100, NONE, SOURCE, half)
m.write("malformed/apng-outside-canvas.png")
m = APNG(W, H)
m.frame(W, H, 0, 0, 100, NONE, SOURCE, base, default=True)
m.seq += 1
m.frame(4, 3, 0, 0, 100, NONE, SOURCE, half)
m.write("malformed/apng-bad-sequence.png")
m = APNG(W, H)
m.idat(idat(W, H, base))
m.fdat(idat(W, H, half))
m.frames = 1
m.write("malformed/apng-fdat-before-fctl.png")
m = APNG(W, H)
m.frame(W, H, 0, 0, 100, NONE, SOURCE, base, default=True)
m.write("malformed/apng-missing-frames.png", frames=3)
PY

for f in apng-ops apng-hidden-default apng-palette; do
    input="$f.png"
    [ -f "$tmp/$f.png" ] && input="$tmp/$f.png"
    ffmpeg -v error -f apng -i "$input" -fps_mode passthrough -f rawvideo -pix_fmt rgba - > "$tmp/$f.rgba"
    set -- $(python3 -c "import struct;d=open('$f.png','rb').read();print(*struct.unpack('>II',d[16:24]))")
    python3 - "$tmp/$f.rgba" "$1" "$2" "$f.truth.pam" <<'PY'
import sys
data, w, h = open(sys.argv[1], "rb").read(), int(sys.argv[2]), int(sys.argv[3])
size = w * h * 4
with open(sys.argv[4], "wb") as out:
    for i in range(0, len(data), size):
        out.write(f"P7\nWIDTH {w}\nHEIGHT {h}\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".encode() + data[i:i + size])
PY
done
ls -l avif-* apng-* malformed
