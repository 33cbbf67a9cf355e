#!/usr/bin/env bash
# JPEG XL rows (issue 33), run by scripts/bench.sh or alone:
#   bash scripts/bench-jxl.sh PATH/TO/imgcache
# Prints markdown table rows on stdout, then GOAL|name|ratio|limit|note lines
# for bench.sh's goal table, progress on stderr. A 20-megapixel lossy JPEG XL
# (cjxl's defaults: distance 1, effort 7) made from a corpus photo scaled up,
# served by a throwaway nginx on 127.0.0.1, decoded from the cache:
#   20  decode to PPM vs djxl to PPM (djxl's fastest output; PNG costs it seconds more)
#   20b thumbnail → 1024 px JPEG XL vs vipsthumbnail (same output effort, 3, and quality)
#   20c peak RSS of the decode (`--decode ppm`), absolute
set -euo pipefail
IMGCACHE=$(readlink -f "${1:?usage: bench-jxl.sh PATH/TO/imgcache}")
HERE=$(cd "$(dirname "$0")/.." && pwd)
. "$HERE/scripts/lib/corpus.sh"
RUNS=${JXL_RUNS:-5}
JXL=$(mktemp -d /tmp/imgcache-bench-jxl.XXXXXX)
chmod 755 "$JXL"
. "$HERE/scripts/lib/nginx.sh"
. "$HERE/scripts/lib/ports.sh"
PORT=$(free_ports 1)
say() { printf '%s\n' "$*" >&2; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
trap 'nginx_stop "$JXL/nginx"; rm -rf "$JXL"' EXIT

command -v cjxl >/dev/null && command -v djxl >/dev/null || { say "bench-jxl.sh: cjxl/djxl missing (libjxl-tools)"; exit 0; }
mkdir -p "$JXL/www"
src=$CORPUS/jpeg_baseline_420_photo_grace-hopper.jpg
if [ -f "$src" ]; then djpeg -ppm "$src" > "$JXL/src.ppm"; else
	python3 -c "
import math,sys
w,h=512,600
sys.stdout.buffer.write(b'P6\n%d %d\n255\n'%(w,h)+bytes(c for y in range(h) for x in range(w) for c in (x*255//w,y*255//h,int(128+127*math.sin(x/9+y/13)))))" > "$JXL/src.ppm"
fi
say "20. JPEG XL: making a 5472 × 3648 image with cjxl"
pamscale -xsize 5472 -ysize 3648 "$JXL/src.ppm" > "$JXL/big.ppm"
cjxl "$JXL/big.ppm" "$JXL/www/big.jxl" >/dev/null 2>&1
rm "$JXL/big.ppm"
nginx_start "$JXL/www" $PORT "$JXL/nginx"
url=http://127.0.0.1:$PORT/big.jxl
"$IMGCACHE" fetch -q --cache-dir "$JXL/cache" -o /dev/null "$url"

hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$JXL/decode.json" \
	"$IMGCACHE fetch --cache-dir $JXL/cache --offline --decode ppm -o $JXL/out.ppm $url" \
	"djxl $JXL/www/big.jxl $JXL/djxl.ppm" >/dev/null 2>&1
vips_thumb=()
# vips's list read whole: grep -q would end the pipe early, which pipefail counts as a failure.
command -v vipsthumbnail >/dev/null && [[ "$(vips -l 2>/dev/null)" == *jxlload* ]] && \
	vips_thumb=("vipsthumbnail $JXL/www/big.jxl -s 1024 -o $JXL/vips.jxl[Q=90,effort=3]")
hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$JXL/thumb.json" \
	"$IMGCACHE fetch --cache-dir $JXL/cache --offline --no-store --thumbnail 1024x1024 -o $JXL/thumb.jxl $url" \
	"${vips_thumb[@]}" >/dev/null 2>&1
/usr/bin/time -o "$JXL/rss" -f '%M' "$IMGCACHE" fetch --cache-dir "$JXL/cache" --offline --decode ppm -o "$JXL/rss.ppm" "$url"
/usr/bin/time -o "$JXL/djxl-rss" -f '%M' djxl "$JXL/www/big.jxl" "$JXL/djxl.ppm" >/dev/null 2>&1
rss=$(tail -1 "$JXL/rss") djxl_rss=$(tail -1 "$JXL/djxl-rss")

python3 - "$JXL/decode.json" "$JXL/thumb.json" "$IMGCACHE" "$JXL/" "$rss" "$djxl_rss" <<'PY'
import json, statistics, sys
decode, thumb, imgcache, work, rss, djxl_rss = sys.argv[1:]
def rows(path, title):
    results = json.load(open(path))["results"]
    medians = [statistics.median(r["times"]) * 1000 for r in results]
    for r, m in zip(results, medians):
        t = [x * 1000 for x in r["times"]]
        command = r["command"].replace(imgcache, "imgcache").replace(work, "")
        print(f"| {title} | `{command}` | {m:.1f} ms ({min(t):.1f}–{max(t):.1f}) | {medians[0] / m:.2f} |")
    return medians
d = rows(decode, "20 decode JPEG XL 5472×3648")
t = rows(thumb, "20b JPEG XL → 1024 px thumbnail (JPEG XL)")
print(f"| 20c peak RSS, `--decode ppm` of the 5472×3648 JPEG XL | `/usr/bin/time -f %M` | {int(rss) / 1024:.1f} MiB (djxl: {int(djxl_rss) / 1024:.1f} MiB) | |")
print(f"GOAL|JPEG XL 20 MP decode vs `djxl` to PPM|{d[0] / d[1]:.2f}|1.0|{d[0]:.0f} ms vs {d[1]:.0f} ms")
if len(t) > 1:
    print(f"GOAL|JPEG XL → 1024 px thumbnail vs `vipsthumbnail`|{t[0] / t[1]:.2f}|0.8|{t[0]:.0f} ms vs {t[1]:.0f} ms")
print(f"GOAL|peak RSS, 20 MP JPEG XL decode (MiB)|{int(rss) / 1024:.1f}|40|absolute; libjxl 0.7's own state is about 60 MB of it (massif, one thread: 59.3 of a 68.4 MB heap peak; imgcache's rows 6.3, the file 1.3), djxl {int(djxl_rss) / 1024:.0f} MiB")
PY
