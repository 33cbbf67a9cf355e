#!/bin/sh
# Makes the project's own small test images from generated pixels, with the
# libraries' reference encoders, and their reference decodes (*.truth.pam or
# *.truth.ppm) with the reference decoders. Run from this directory; the
# results are checked in, so tests need none of these tools.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
def write(name, w, h, depth, f, tupltype):
    with open(f"{d}/{name}", "wb") as out:
        out.write(f"P7\nWIDTH {w}\nHEIGHT {h}\nDEPTH {depth}\nMAXVAL 255\nTUPLTYPE {tupltype}\nENDHDR\n".encode())
        out.write(bytes(c for y in range(h) for x in range(w) for c in f(x, y)))
def ppm(name, w, h, f):
    with open(f"{d}/{name}", "wb") as out:
        out.write(f"P6\n{w} {h}\n255\n".encode())
        out.write(bytes(c for y in range(h) for x in range(w) for c in f(x, y)))
ppm("gradient.ppm", 24, 16, lambda x, y: (x * 10, y * 15, 255 - x * 5))
with open(f"{d}/gray.pgm", "wb") as out:
    out.write(b"P5\n20 12\n255\n" + bytes((x * 12 + y * 3) % 256 for y in range(12) for x in range(20)))
write("rgba.pam", 16, 10, 4, lambda x, y: (x * 16, 255 - y * 20, 90, (x * 17 + y * 5) % 256), "RGB_ALPHA")
for i in range(3):
    ppm(f"frame{i}.ppm", 16, 16, lambda x, y, i=i: (0, 0, 0) if (x + y + i) % 5 == 0 else ((x * 16) % 256, i * 120, (y * 16) % 256))
PY

cjpeg -quality 90 "$tmp/gradient.ppm" > baseline.jpg
cjpeg -quality 90 -progressive "$tmp/gradient.ppm" > progressive.jpg
cjpeg -quality 90 -grayscale "$tmp/gray.pgm" > gray.jpg
pamtopng "$tmp/rgba.pam" > rgba.png
pnmtopng -interlace "$tmp/gradient.ppm" > interlaced.png 2>/dev/null
pamdepth 65535 "$tmp/gray.pgm" | pnmtopng > gray16.png 2>/dev/null
ppmquant 32 "$tmp/gradient.ppm" 2>/dev/null | ppmtogif > still.gif 2>/dev/null
cwebp -quiet -q 80 "$tmp/gradient.ppm" -o lossy.webp
cwebp -quiet -lossless -exact rgba.png -o lossless-alpha.webp
for i in 0 1 2; do ppmtogif -transparent=black "$tmp/frame$i.ppm" > "$tmp/frame$i.gif" 2>/dev/null; done
# A 3-frame animation, each frame's black pixels transparent, restoring to
# the background between frames (disposal 2), looping forever.
python3 - anim3.gif "$tmp/frame0.gif" "$tmp/frame1.gif" "$tmp/frame2.gif" <<'PY'
import sys
def blocks(data, pos):
    out = b""
    while data[pos]:
        out += data[pos:pos + data[pos] + 1]
        pos += data[pos] + 1
    return out + b"\0", pos + 1
out = None
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    flags = data[10]
    gct_size = 3 * (2 ** ((flags & 7) + 1)) if flags & 0x80 else 0
    gct = data[13:13 + gct_size]
    pos = 13 + gct_size
    transparent = None
    while data[pos] == 0x21:
        if data[pos + 1] == 0xF9 and data[pos + 3] & 1:
            transparent = data[pos + 6]
        _, pos = blocks(data, pos + 2)
    if out is None:
        out = bytearray(b"GIF89a" + bytes([16, 0, 16, 0, 0x70, 0, 0]))
        out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    packed = 0x09 | (1 if transparent is not None else 0)  # disposal 2
    out += bytes([0x21, 0xF9, 4, packed, 8, 0, transparent or 0, 0])
    desc = bytearray(data[pos:pos + 10])
    desc[9] = 0x80 | (flags & 7)
    out += desc + gct
    out += data[pos + 10:pos + 11]
    lzw, _ = blocks(data, pos + 11)
    out += lzw
open(sys.argv[1], "wb").write(bytes(out) + b"\x3b")
PY
img2webp -loop 0 -lossless -d 80 "$tmp/frame0.ppm" -d 120 "$tmp/frame1.ppm" "$tmp/frame2.ppm" -o anim3.webp >/dev/null 2>&1

for f in baseline progressive gray; do djpeg -rgb -ppm "$f.jpg" > "$f.truth.ppm"; done
for f in rgba interlaced gray16; do pngtopam -alphapam "$f.png" | pamdepth 255 > "$f.truth.pam"; done
giftopnm -alphaout="$tmp/still.alpha" still.gif > "$tmp/still.ppm" 2>/dev/null
pamdepth 255 "$tmp/still.alpha" > "$tmp/still.alpha255" 2>/dev/null
pamstack -tupletype=RGB_ALPHA "$tmp/still.ppm" "$tmp/still.alpha255" > still.truth.pam
for f in lossy lossless-alpha; do dwebp -quiet -pam "$f.webp" -o "$f.truth.pam"; done
ls -l
