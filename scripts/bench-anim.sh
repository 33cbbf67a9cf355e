#!/usr/bin/env bash
# Animated thumbnails (issue 34 part 1), run by scripts/bench.sh or alone:
#   bash scripts/bench-anim.sh PATH/TO/imgcache
# For every animation of the corpus (GIF and WebP) and an APNG made from one,
# a 64 px thumbnail by imgcache (`--no-store`, so each run computes it; served
# from the cache, so no download is timed), gifsicle (GIFs) and ImageMagick:
# bytes written and time. Prints markdown table rows (`| 16 … |`) on stdout,
# goal rows (`GOAL|name|ratio|goal|note`) for bench.sh, progress on stderr.
set -euo pipefail
IMGCACHE=$(readlink -f "${1:?usage: bench-anim.sh PATH/TO/imgcache}")
HERE=$(cd "$(dirname "$0")/.." && pwd)
. "$HERE/scripts/lib/corpus.sh"
ANIM_RUNS=${ANIM_RUNS:-20}
. "$HERE/scripts/lib/nginx.sh"
. "$HERE/scripts/lib/ports.sh"
ANIM=$(mktemp -d /tmp/imgcache-bench-anim.XXXXXX)
chmod 755 "$ANIM"
PORT=$(free_ports 1)
trap 'nginx_stop "$ANIM/nginx"; rm -rf "$ANIM"' EXIT
say() { printf '%s\n' "$*" >&2; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

mkdir -p "$ANIM/www" "$ANIM/out"
for f in "$CORPUS"/gif_anim_*.gif "$CORPUS"/webp_anim_*.webp; do [ -f "$f" ] && cp "$f" "$ANIM/www/"; done
if ! ls "$ANIM/www" | grep -q .; then
	say "no corpus animations in $CORPUS: skipping the animated thumbnail rows"
	exit 0
fi
NGINX_MAX_AGE=86400 nginx_start "$ANIM/www" $PORT "$ANIM/nginx"
u=http://127.0.0.1:$PORT
# An APNG: the first corpus GIF, every frame, as imgcache writes one (no corpus file is an APNG).
first_gif=$(ls "$ANIM/www" | grep '\.gif$' | head -1)
[ -n "$first_gif" ] && "$IMGCACHE" fetch -q --cache-dir "$ANIM/c" --encode png -o "$ANIM/www/${first_gif%.gif}.apng.png" "$u/$first_gif"

# hyperfine's median (ms) of each command, one line each.
medians() {
	hyperfine -N --warmup 3 --runs "$ANIM_RUNS" --export-json "$ANIM/hf.json" "$@" >/dev/null 2>&1
	python3 -c 'import json, statistics, sys
for r in json.load(open(sys.argv[1]))["results"]:
    t = [x * 1000 for x in r["times"]]
    print(f"{statistics.median(t):.2f} {min(t):.2f} {max(t):.2f}")' "$ANIM/hf.json"
}

for file in $(ls "$ANIM/www"); do
	src=$ANIM/www/$file ext=${file##*.}
	frames=$("$IMGCACHE" fetch -q --cache-dir "$ANIM/c" --json "$u/$file" | python3 -c 'import json, sys; print(json.load(sys.stdin)["frames"])')
	say "16. animated thumbnail: $file ($frames frames)"
	names=(imgcache) commands=("$IMGCACHE fetch --cache-dir $ANIM/c --offline --no-store --thumbnail 64x64 -o $ANIM/out/imgcache.$ext $u/$file")
	if [ "$ext" = gif ] && command -v gifsicle >/dev/null; then
		names+=(gifsicle) commands+=("gifsicle --resize-fit 64x64 $src -o $ANIM/out/gifsicle.$ext")
	fi
	# ImageMagick 6 reads an APNG as its first frame only: no row for it there.
	if command -v convert >/dev/null && [[ $file != *.apng.png ]]; then
		names+=(imagemagick) commands+=("convert $src -coalesce -resize 64x64 -layers optimize $ANIM/out/imagemagick.$ext")
	fi
	mapfile -t times < <(medians "${commands[@]}")
	read -r base _ <<< "${times[0]}"
	base_bytes=$(stat -c %s "$ANIM/out/imgcache.$ext")
	for i in "${!names[@]}"; do
		read -r m lo hi <<< "${times[$i]}"
		bytes=$(stat -c %s "$ANIM/out/${names[$i]}.$ext")
		cmd=${commands[$i]//$ANIM\//}
		echo "| 16 animated thumbnail → 64 px: $file ($frames frames) | \`${cmd//$IMGCACHE/imgcache}\` | $m ms ($lo–$hi), $bytes bytes | time $(ratio "$m" "$base"), bytes $(ratio "$bytes" "$base_bytes") |"
		if [ "${names[$i]}" = gifsicle ]; then
			echo "GOAL|animated GIF thumbnail bytes vs gifsicle: $file|$(ratio "$base_bytes" "$bytes")|1.1|$base_bytes vs $bytes bytes"
			echo "GOAL|animated GIF thumbnail time vs gifsicle: $file|$(ratio "$base" "$m")|1.0|$base ms vs $m ms"
		fi
	done
done
