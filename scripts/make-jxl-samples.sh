#!/bin/sh
# Makes the JPEG XL test images with cjxl (libjxl-tools) from generated pixels:
# what the JPEG XL tests decode and compare with djxl, and the seeds of
# `make fuzz`'s FuzzJXL. Each file is a case the decoder must get right:
#   lossy.jxl          VarDCT (XYB), sRGB            lossless.jxl    modular, -d 0
#   alpha.jxl          RGBA, lossless                 alpha-lossy.jxl RGBA, VarDCT
#   alpha-groups.jxl   600 × 520 RGBA, lossless: stripes of alpha 0 over colour, across 3 × 3 groups
#   alpha-opaque.jxl   RGBA whose alpha is all 255 (cjxl keeps the channel)
#   icc.jxl            Adobe RGB ICC profile, lossless (pixels stay in its space)
#   icc-lossy.jxl      Adobe RGB ICC profile, XYB (libjxl decodes it to sRGB for us)
#   16bit.jxl          16-bit samples, lossless       gray.jxl        one channel
#   animation.jxl      three frames of 100, 250 and 400 ms, looping forever
#   recompressed.jxl   a JPEG recompressed losslessly (jbrd box) by cjxl
#   groups.jxl         600 × 520, VarDCT: libjxl renders it in 3 × 3 groups of 256 × 256
#   truncated.jxl      lossy.jxl cut short            huge-header.jxl 50 000 × 50 000 in its size header
set -eu
out=${1:?usage: make-jxl-samples.sh DIR}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import sys, math, zlib, struct
d = sys.argv[1]
def write(name, header, w, h, f, size=1):
    with open(f"{d}/{name}", "wb") as o:
        o.write(header.encode())
        o.write(bytes(b for y in range(h) for x in range(w) for c in f(x, y) for b in c.to_bytes(size, "big")))
photo = lambda x, y: (x * 255 // 199, y * 255 // 149, int(128 + 127 * math.sin(x / 9.0 + y / 13.0)))
write("photo.ppm", "P6\n200 150\n255\n", 200, 150, photo)
write("groups.ppm", "P6\n600 520\n255\n", 600, 520, lambda x, y: (x * 255 // 599, (x ^ y) & 255, y * 255 // 519))
write("rgba.pam", "P7\nWIDTH 64\nHEIGHT 48\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n", 64, 48,
      lambda x, y: (x * 4, 200, y * 5, (x * 4 + y * 3) % 256))
rgba = lambda w, h: f"P7\nWIDTH {w}\nHEIGHT {h}\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
write("rgba-groups.pam", rgba(600, 520), 600, 520,
      lambda x, y: (x * 255 // 599, (x ^ y) & 255, y * 255 // 519, 0 if (x // 7 + y // 5) % 3 == 0 else (x + 2 * y) % 256))
write("rgba-opaque.pam", rgba(64, 48), 64, 48, lambda x, y: (x * 4, 200, y * 5, 255))
write("deep.ppm", "P6\n48 32\n65535\n", 48, 32, lambda x, y: (x * 1365, y * 2047, (x * y * 37) % 65536), 2)
write("gray.pgm", "P5\n40 30\n255\n", 40, 30, lambda x, y: ((x * 6 + y * 2) % 256,))
for i in range(3):
    write(f"frame{i}.ppm", "P6\n32 24\n255\n", 32, 24, lambda x, y, i=i: ((x * 8 + i * 80) % 256, y * 10, i * 100))
PY
pnmtopng "$tmp/photo.ppm" > "$tmp/photo.png" 2>/dev/null
# An Adobe RGB PNG: pnmtopng cannot write iCCP, so the chunk is added here.
python3 - "$tmp/photo.png" /usr/share/color/icc/compatibleWithAdobeRGB1998.icc "$tmp/adobe.png" <<'PY'
import sys, zlib, struct
png = open(sys.argv[1], "rb").read(); icc = open(sys.argv[2], "rb").read()
data = b"Adobe RGB\0\0" + zlib.compress(icc)
chunk = struct.pack(">I", len(data)) + b"iCCP" + data + struct.pack(">I", zlib.crc32(b"iCCP" + data))
open(sys.argv[3], "wb").write(png[:33] + chunk + png[33:])
PY
for i in 0 1 2; do pnmtopng "$tmp/frame$i.ppm" > "$tmp/frame$i.png" 2>/dev/null; done
jxl() { cjxl "$@" >/dev/null 2>&1 || { echo "make-jxl-samples.sh: cjxl $* failed" >&2; exit 1; }; }
jxl "$tmp/photo.png" "$out/lossy.jxl" -d 1
jxl "$tmp/photo.png" "$out/lossless.jxl" -d 0
jxl "$tmp/groups.ppm" "$out/groups.jxl" -d 1
jxl "$tmp/rgba.pam" "$out/alpha.jxl" -d 0
jxl "$tmp/rgba.pam" "$out/alpha-lossy.jxl" -d 1
jxl "$tmp/rgba-groups.pam" "$out/alpha-groups.jxl" -d 0
jxl "$tmp/rgba-opaque.pam" "$out/alpha-opaque.jxl" -d 0
jxl "$tmp/adobe.png" "$out/icc.jxl" -d 0
jxl "$tmp/adobe.png" "$out/icc-lossy.jxl" -d 1
jxl "$tmp/deep.ppm" "$out/16bit.jxl" -d 0
jxl "$tmp/gray.pgm" "$out/gray.jxl" -d 0
cjpeg -quality 85 "$tmp/photo.ppm" > "$tmp/photo.jpg"
jxl "$tmp/photo.jpg" "$out/recompressed.jxl"
# An APNG of the three frames (100, 250, 400 ms, looping forever) for cjxl to read.
python3 - "$tmp" "$tmp/animation.png" <<'PY'
import sys, struct, zlib
d, out = sys.argv[1], sys.argv[2]
def chunks(png):
    i = 8
    while i < len(png):
        n = struct.unpack(">I", png[i:i + 4])[0]
        yield png[i + 4:i + 8], png[i + 8:i + 8 + n]
        i += 12 + n
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
frames = [dict(chunks(open(f"{d}/frame{i}.png", "rb").read())) for i in range(3)]
ihdr = frames[0][b"IHDR"]
w, h = struct.unpack(">II", ihdr[:8])
body, seq = b"", 0
for i, (f, delay) in enumerate(zip(frames, (100, 250, 400))):
    body += chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, w, h, 0, 0, delay, 1000, 0, 0)); seq += 1
    if i == 0:
        body += chunk(b"IDAT", f[b"IDAT"])
    else:
        body += chunk(b"fdAT", struct.pack(">I", seq) + f[b"IDAT"]); seq += 1
open(out, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"acTL", struct.pack(">II", 3, 0))
                      + body + chunk(b"IEND", b""))
PY
jxl "$tmp/animation.png" "$out/animation.jxl" -d 0
head -c "$(( $(wc -c < "$out/lossy.jxl") * 2 / 3 ))" "$out/lossy.jxl" > "$out/truncated.jxl"
# A bare codestream whose size header says 50 000 × 50 000 (then default
# metadata and nothing else): bits are written least significant first.
python3 - "$out/huge-header.jxl" <<'PY'
import sys
bits = []
def put(value, count):
    bits.extend((value >> i) & 1 for i in range(count))
put(0, 1)                 # SizeHeader.small = false
put(2, 2); put(49999, 18) # ysize - 1 in the third U32 distribution (18 bits)
put(1, 3)                 # ratio 1: xsize = ysize
put(1, 1)                 # ImageMetadata.all_default
bits.extend([0] * (-len(bits) % 8))
body = bytes(sum(bits[i + j] << j for j in range(8)) for i in range(0, len(bits), 8))
open(sys.argv[1], "wb").write(b"\xff\x0a" + body + bytes(64))
PY
