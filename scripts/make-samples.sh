#!/bin/sh
# Makes small sample images from generated pixels with the reference encoders
# (cjpeg, pnmtopng, cwebp, ppmtogif): the project's own, licence-free images.
set -eu
out=${1:?usage: make-samples.sh DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import sys, math
d = sys.argv[1]
def ppm(name, w, h, f):
    with open(f"{d}/{name}", "wb") as o:
        o.write(f"P6\n{w} {h}\n255\n".encode())
        o.write(bytes(c for y in range(h) for x in range(w) for c in f(x, y)))
ppm("photo.ppm", 320, 240, lambda x, y: (x * 255 // 319, y * 255 // 239, int(128 + 127 * math.sin(x / 17.0 + y / 23.0))))
ppm("gradient.ppm", 64, 48, lambda x, y: (x * 4, y * 5, 255 - x * 2))
for i in range(3):
    ppm(f"frame{i}.ppm", 32, 32, lambda x, y, i=i: ((x * 8 + i * 80) % 256, (y * 8) % 256, i * 100))
with open(f"{d}/alpha.pam", "wb") as o:
    o.write(b"P7\nWIDTH 40\nHEIGHT 30\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n")
    o.write(bytes(c for y in range(30) for x in range(40) for c in (x * 6, 200, y * 8, (x + y) * 3)))
PY
cjpeg -quality 85 "$tmp/photo.ppm" > "$out/photo.jpg"
pnmtopng "$tmp/gradient.ppm" > "$out/gradient.png" 2>/dev/null
pamtopng "$tmp/alpha.pam" > "$tmp/alpha.png" 2>/dev/null
cwebp -quiet -lossless "$tmp/alpha.png" -o "$out/alpha.webp"
for i in 0 1 2; do ppmquant 64 "$tmp/frame$i.ppm" 2>/dev/null | ppmtogif > "$tmp/frame$i.gif" 2>/dev/null; done
gifsicle_free() { python3 - "$@" <<'PY'
import sys
# Joins single-frame GIFs into one looping animation (NETSCAPE2.0 loop block,
# 100 ms delays) by copying their image blocks: no GIF tool needed.
frames = [open(p, "rb").read() for p in sys.argv[2:]]
first = frames[0]
flags = first[10]
gct = 3 * (2 ** ((flags & 7) + 1)) if flags & 0x80 else 0
out = bytearray(first[:13 + gct])
out[3:6] = b"89a"
out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
for data in frames:
    f = data[10]
    g = 3 * (2 ** ((f & 7) + 1)) if f & 0x80 else 0
    pos = 13
    local = data[pos:pos + g] if g else b""
    pos += g
    while data[pos] == 0x21:  # skip extensions of the single-frame file
        pos += 2
        while data[pos]:
            pos += data[pos] + 1
        pos += 1
    assert data[pos] == 0x2C
    out += b"\x21\xf9\x04\x00\x0a\x00\x00\x00"
    desc = bytearray(data[pos:pos + 10])
    if g:
        desc[9] = 0x80 | (f & 7)  # the frame's own palette becomes a local one
    out += desc
    out += local
    pos += 10
    if data[pos - 1] & 0x80 and not g:
        pos += 3 * (2 ** ((data[pos - 1] & 7) + 1))
    end = len(data) - 1
    out += data[pos:end]
out += b"\x3b"
open(sys.argv[1], "wb").write(out)
PY
}
gifsicle_free "$out/anim.gif" "$tmp/frame0.gif" "$tmp/frame1.gif" "$tmp/frame2.gif"
