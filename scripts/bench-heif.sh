#!/usr/bin/env bash
# HEIC and placeholders (issue 33), run by scripts/bench.sh or alone:
#   bash scripts/bench-heif.sh PATH/TO/imgcache
# Prints markdown table rows ("| 20…") on stdout, then GOAL|name|ratio|goal|note
# lines for bench.sh's goals table; progress on stderr. One throwaway nginx on
# 127.0.0.1 serves the images with max-age=86400, so warm runs send nothing.
#  20  a 12 MP HEIC (the corpus's 20 MP photo scaled to 4000×3000, heif-enc -q 80)
#      decoded from the cache to PPM, against heif-convert to PNG (its only
#      RGB output) and to Y4M, informational: libheif 1.15 converts every image to
#      RGB as it decodes (decode_image_planar), so Y4M costs YCbCr to RGB and back
#      (callgrind: 9.37 G instructions, 2.2 G of them libheif's, against PNG's 28.5 G);
#  20b the same HEIC to a 1024 px thumbnail against vipsthumbnail (Debian's
#      libvips reads HEIC through the same libheif), both writing PPM;
#  20d the same photo as a phone writes it, a grid of 48 tiles of 512 × 512
#      (each coded by heif-enc, joined by scripts/make-heif-grid.py), to a 1024 px
#      thumbnail against vipsthumbnail: its tiles are decoded on the CPUs' share
#      (HEVCGridStrips); CPU time beside wall, as hyperfine's user + system;
#  20c a warm `prefetch --json --placeholder` of 1000 entries whose
#      placeholders are kept, against a warm `prefetch --json`.
set -euo pipefail
IMGCACHE=$(readlink -f "${1:?usage: bench-heif.sh PATH/TO/imgcache}")
HERE=$(cd "$(dirname "$0")/.." && pwd)
. "$HERE/scripts/lib/corpus.sh"
W=$(mktemp -d /tmp/imgcache-bench-heif.XXXXXX)
chmod 755 "$W"
. "$HERE/scripts/lib/ports.sh"
PORT=$(free_ports 1)
say() { printf '%s\n' "$*" >&2; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
stop() { [ -f "$W/nginx.pid" ] && kill "$(cat "$W/nginx.pid")" 2>/dev/null; sleep 0.3; }
trap 'stop; rm -rf "$W"' EXIT

# hyperfine's median (ms) of each command, in order, one per line: "median|min|max".
hf() {
	hyperfine -N --warmup 2 --runs "${HF_RUNS:-10}" --export-json "$W/hf.json" "$@" >/dev/null 2>&1
	python3 - "$W/hf.json" <<'PY'
import json, sys, statistics
for r in json.load(open(sys.argv[1]))["results"]:
    t = [x * 1000 for x in r["times"]]
    print(f'{statistics.median(t):.1f}|{min(t):.1f}|{max(t):.1f}')
PY
}

mkdir -p "$W/www" "$W/logs" "$W/tmp"
say "20. a 12 MP HEIC"
src=$CORPUS/jpeg_large-20MP_photo_lomiri-kleiber.jpg
if [ -f "$src" ]; then
	djpeg -ppm "$src" | pamscale -xsize 4000 -ysize 3000 | pnmtopng > "$W/12mp.png"
else
	python3 -c 'import sys; w, h = 4000, 3000; sys.stdout.buffer.write(b"P6 %d %d 255\n" % (w, h) + bytes((x * 7 + y * 3) % 256 for y in range(h) for x in range(w * 3)))' \
		| pnmtopng > "$W/12mp.png"
fi
heif-enc -q 80 -o "$W/www/12mp.heic" "$W/12mp.png" >/dev/null
# 1000 small images for the placeholder rows: one fixture under 1000 names.
mkdir -p "$W/www/p"
for i in $(seq -w 0 999); do cp "$HERE/Tests/ImageCoreTests/Fixtures/rgba.png" "$W/www/p/$i.png"; done
cat > "$W/nginx.conf" <<CONF
worker_processes 1;
pid $W/nginx.pid;
error_log $W/logs/error.log warn;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $W/tmp; proxy_temp_path $W/tmp; fastcgi_temp_path $W/tmp;
	uwsgi_temp_path $W/tmp; scgi_temp_path $W/tmp;
	types { image/png png; image/heic heic; }
	root $W/www;
	add_header Cache-Control "max-age=86400";
	server { listen 127.0.0.1:$PORT; }
}
CONF
/usr/sbin/nginx -c "$W/nginx.conf" -p "$W" -e "$W/logs/error.log"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.1; done
u="http://127.0.0.1:$PORT"

"$IMGCACHE" fetch -q --cache-dir "$W/c" -o /dev/null "$u/12mp.heic"
mapfile -t decode < <(hf "$IMGCACHE fetch --cache-dir $W/c --offline --decode ppm -o $W/out.ppm $u/12mp.heic" \
	"heif-convert $W/www/12mp.heic $W/out.png" "heif-convert $W/www/12mp.heic $W/out.y4m")
ic=${decode[0]%%|*} png=${decode[1]%%|*} y4m=${decode[2]%%|*}
echo "| 20 decode HEIC 4000×3000 | \`imgcache fetch --offline --decode ppm\` | $ic ms (${decode[0]#*|}) | 1.00 |"
echo "| 20 decode HEIC 4000×3000 | \`heif-convert x.heic out.png\` | $png ms (${decode[1]#*|}) | $(ratio "$png" "$ic") |"
echo "| 20 decode HEIC 4000×3000 | \`heif-convert x.heic out.y4m\` (YCbCr to RGB and back) | $y4m ms (${decode[2]#*|}) | $(ratio "$y4m" "$ic") |"
echo "GOAL|HEIC 12 MP \`--decode ppm\` vs \`heif-convert\` (PNG)|$(ratio "$ic" "$png")|1.0|$ic ms vs $png ms"

say "20b. HEIC → 1024 px thumbnail"
# --no-store: each run makes it (a kept variant would be served without decoding).
mapfile -t thumb < <(hf "$IMGCACHE fetch --cache-dir $W/c --offline --no-store --thumbnail 1024x1024 --decode ppm -o $W/t.ppm $u/12mp.heic" \
	"vipsthumbnail $W/www/12mp.heic --size 1024 -o $W/t-vips.ppm")
tic=${thumb[0]%%|*} tv=${thumb[1]%%|*}
echo "| 20b HEIC → 1024 px thumbnail | \`imgcache fetch --thumbnail 1024x1024 --decode ppm\` | $tic ms (${thumb[0]#*|}) | 1.00 |"
echo "| 20b HEIC → 1024 px thumbnail | \`vipsthumbnail --size 1024\` | $tv ms (${thumb[1]#*|}) | $(ratio "$tv" "$tic") |"
echo "GOAL|HEIC → 1024 px thumbnail vs \`vipsthumbnail\`|$(ratio "$tic" "$tv")|0.8|$tic ms vs $tv ms"

say "20d. HEIC grid of 48 tiles → 1024 px thumbnail"
djpeg -ppm "$src" 2>/dev/null | pamscale -xsize 4000 -ysize 3000 | pnmpad -right=96 -bottom=72 > "$W/pad.ppm" \
	|| pngtopnm "$W/12mp.png" | pnmpad -right=96 -bottom=72 > "$W/pad.ppm"
tiles=()
for r in 0 1 2 3 4 5; do
	for c in 0 1 2 3 4 5 6 7; do
		# -force: from a palette PNG, heif-enc 1.15 codes a tile in 10 bits.
		pamcut -left=$((c * 512)) -top=$((r * 512)) -width=512 -height=512 "$W/pad.ppm" | pnmtopng -force > "$W/t$r$c.png"
		heif-enc -q 80 -o "$W/t$r$c.heic" "$W/t$r$c.png" >/dev/null
		tiles+=("$W/t$r$c.heic")
	done
done
python3 "$HERE/scripts/make-heif-grid.py" -o "$W/www/grid.heic" --grid 6 8 4000 3000 "${tiles[@]}"
"$IMGCACHE" fetch -q --cache-dir "$W/c" -o /dev/null "$u/grid.heic"
hyperfine -N --warmup 2 --runs "${HF_RUNS:-10}" --export-json "$W/grid.json" \
	"$IMGCACHE fetch --cache-dir $W/c --offline --no-store --thumbnail 1024x1024 --decode ppm -o $W/g.ppm $u/grid.heic" \
	"vipsthumbnail $W/www/grid.heic --size 1024 -o $W/g-vips.ppm" >/dev/null 2>&1
python3 - "$W/grid.json" <<'PY'
import json, sys, statistics
results = json.load(open(sys.argv[1]))["results"]
medians = [statistics.median(r["times"]) * 1000 for r in results]
names = ["`imgcache fetch --thumbnail 1024x1024 --decode ppm`", "`vipsthumbnail --size 1024`"]
for name, r, m in zip(names, results, medians):
    t = [x * 1000 for x in r["times"]]
    cpu = (r["user"] + r["system"]) * 1000
    print(f"| 20d HEIC grid 48 × 512² → 1024 px thumbnail | {name} | {m:.1f} ms ({min(t):.1f}|{max(t):.1f}), CPU {cpu:.0f} ms | {m / medians[0]:.2f} |")
print(f"GOAL|HEIC grid (48 tiles) → 1024 px thumbnail vs `vipsthumbnail`|{medians[0] / medians[1]:.2f}|0.8|{medians[0]:.0f} ms vs {medians[1]:.0f} ms")
PY

say "20c. warm prefetch --json --placeholder, 1000 entries"
for i in $(seq -w 0 999); do echo "$u/p/$i.png"; done > "$W/list.txt"
"$IMGCACHE" prefetch -q --cache-dir "$W/p" --json --placeholder "$W/list.txt" > /dev/null
placeholders=$(grep -c '"thumbhash"' < <("$IMGCACHE" prefetch -q --cache-dir "$W/p" --json --placeholder "$W/list.txt"))
mapfile -t warm < <(hf "$IMGCACHE prefetch -q --cache-dir $W/p --json --placeholder $W/list.txt" \
	"$IMGCACHE prefetch -q --cache-dir $W/p --json $W/list.txt")
wp=${warm[0]%%|*} wj=${warm[1]%%|*}
echo "| 20c warm prefetch, 1000 entries | \`imgcache prefetch --json --placeholder\` ($placeholders records with placeholders) | $wp ms (${warm[0]#*|}) | 1.00 |"
echo "| 20c warm prefetch, 1000 entries | \`imgcache prefetch --json\` | $wj ms (${warm[1]#*|}) | $(ratio "$wj" "$wp") |"
echo "GOAL|warm \`prefetch --json --placeholder\` vs warm \`prefetch --json\`, 1000 entries|$(ratio "$wp" "$wj")|1.2|$wp ms vs $wj ms"
