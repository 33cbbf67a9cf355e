#!/usr/bin/env bash
# make bench: imgcache side by side with the tools a user would otherwise pick,
# all against a throwaway nginx on 127.0.0.1. Prints a table and writes it to
# bench/results.md. Runs are interleaved and reported as medians with min–max;
# ratios are "other tool's time / imgcache's time" (above 1: imgcache faster).
set -euo pipefail
IMGCACHE=$(readlink -f "${1:?usage: bench.sh PATH/TO/imgcache}")
HERE=$(cd "$(dirname "$0")/.." && pwd)
. "$HERE/scripts/lib/corpus.sh"
RUNS=${RUNS:-3}
COLD_RUNS=${COLD_RUNS:-5}  # row 2: one round per tool, see there
. "$HERE/scripts/lib/nginx.sh"
. "$HERE/scripts/lib/ports.sh"

WORK=$(mktemp -d /tmp/imgcache-bench.XXXXXX)
chmod 755 "$WORK"  # nginx workers run as another user
PORT=$(free_ports 2) && STALE_PORT=$((PORT + 1))
SHM=""  # row 2b's directory on tmpfs, while it exists
cleanup() { nginx_stop "$WORK/fresh"; nginx_stop "$WORK/stale"; rm -rf "$WORK"; [ -z "$SHM" ] || rm -rf "$SHM"; }
trap cleanup EXIT
RESULTS=$HERE/bench/results.md
ROWS=$WORK/rows.md
: > "$ROWS"
say() { printf '%s\n' "$*" >&2; }
row() { printf '%s\n' "$*" >> "$ROWS"; }

# ---- Images: real photos from the corpus when present, else generated samples.
mkdir -p "$WORK/sources" "$WORK/www/img"
if [ -d "$CORPUS" ]; then
	find "$CORPUS" -type f -size -200k \( -name '*.jpg' -o -name '*.png' -o -name '*.gif' -o -name '*.webp' \) \
		-exec cp {} "$WORK/sources/" \;
fi
sh "$HERE/scripts/make-samples.sh" "$WORK/sources" >/dev/null
mapfile -t SOURCES < <(ls "$WORK/sources")
for i in $(seq -w 0 999); do
	src=${SOURCES[$((10#$i % ${#SOURCES[@]}))]}
	cp "$WORK/sources/$src" "$WORK/www/img/$i.${src##*.}"
done
ls "$WORK/www/img" | sed "s|^|img/|" > "$WORK/names.txt"
sed "s|^|http://127.0.0.1:$PORT/|" "$WORK/names.txt" > "$WORK/list.txt"
sed "s|^|http://127.0.0.1:$STALE_PORT/|" "$WORK/names.txt" > "$WORK/stale-list.txt"
say "serving $(wc -l < "$WORK/list.txt") images ($(du -sh "$WORK/www/img" | cut -f1)) from ${#SOURCES[@]} sources"

NGINX_MAX_AGE=86400 nginx_start "$WORK/www" $PORT "$WORK/fresh"
NGINX_MAX_AGE=0 nginx_start "$WORK/www" $STALE_PORT "$WORK/stale"

median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f (%.3f–%.3f)", m, a[1], a[NR]}'; }
med() { sort -n | awk '{a[NR]=$1} END {printf "%.4f", (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { print e - s }'; }
# median / med of a space-separated list of times
median_of() { echo $1 | tr ' ' '\n' | median; }
med_of() { echo $1 | tr ' ' '\n' | med; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# hyperfine rows: prints "command|median ms|min|max" per command.
hf() {
	# A command that fails leaves no row: say why, and leave the goal that needs it out.
	: > "$WORK/hf.json"
	hyperfine -N --warmup 3 --runs "${HF_RUNS:-40}" --export-json "$WORK/hf.json" "$@" >/dev/null 2>"$WORK/hf.err" ||
		{ say "hyperfine failed: $(tail -2 "$WORK/hf.err" | tr '\n' ' ')"; return 0; }
	python3 - "$WORK/hf.json" <<'PY'
import json, sys, statistics
for r in json.load(open(sys.argv[1]))["results"]:
    t = [x * 1000 for x in r["times"]]
    print(f'{r["command"]}|{statistics.median(t):.2f}|{min(t):.2f}|{max(t):.2f}|{r["system"] * 1000:.2f}')
PY
}
declare -A HF_MEDIANS=()  # "title#n" → median ms of the n-th command (0: imgcache)
hf_rows() {  # title, then commands; the first command is imgcache's
	local title=$1; shift
	local base="" n=0
	while IFS='|' read -r cmd m lo hi sys; do
		[ -z "$base" ] && base=$m
		HF_MEDIANS["$title#$n"]=$m; n=$((n + 1))
		cmd=${cmd//$WORK\//}
		row "| $title | \`${cmd//$IMGCACHE/imgcache}\` | $m ms ($lo–$hi), $sys ms system | $(ratio "$m" "$base") |"
	done < <(hf "$@")
}

row "| Row | Command | Median (min–max) | vs imgcache |"
row "| --- | --- | --- | --- |"

# ---- 1. Warm hit.
say "1. warm hit"
C1=$WORK/cache1
"$IMGCACHE" fetch -q --cache-dir "$C1" -o /dev/null "http://127.0.0.1:$PORT/img/000.${SOURCES[0]##*.}"
FILE=$WORK/www/img/000.${SOURCES[0]##*.}
hf_rows "1 warm hit" "$IMGCACHE fetch --cache-dir $C1 http://127.0.0.1:$PORT/img/000.${SOURCES[0]##*.} -o $WORK/out1" \
	"curl -s file://$FILE -o $WORK/out2" "cat $FILE"

# ---- 2. Cold fetch of 1000 images, 6 and 16 at once; wall and system time of each.
declare -A COLD=() COLD_SYS=()  # "tool j" → median seconds
for j in 6 16; do
	say "2. cold prefetch of 1000 at -j$j"
	awk -v d="$WORK/curlz" '{ n=$0; sub(".*/", "", n); print "url = \"" $0 "\"\noutput = \"" d "/" n "\"" }' "$WORK/list.txt" > "$WORK/curl.cfg"
	declare -A times=() systimes=() conns=()
	tools=(imgcache aria2c curl-Z wget2 xargs-curl)
	# Each run starts by deleting the previous one's 1000 files, and on a
	# journal-less ext4 a run's inode allocations then scan past recently
	# freed inodes, more so as the row goes on: the order of the tools turns
	# by one each round, so that over five rounds each takes each place once.
	for run in $(seq "$COLD_RUNS"); do
		order=("${tools[@]:$(((run - 1) % ${#tools[@]}))}" "${tools[@]:0:$(((run - 1) % ${#tools[@]}))}")
		for tool in "${order[@]}"; do
			rm -rf "$WORK/c2" "$WORK/d2" "$WORK/curlz"; mkdir -p "$WORK/d2" "$WORK/curlz"
			nginx_reset_log "$WORK/fresh"
			case $tool in
			imgcache) cmd="'$IMGCACHE' prefetch -q --cache-dir '$WORK/c2' -j $j '$WORK/list.txt'" ;;
			aria2c) cmd="aria2c -q -j $j -d '$WORK/d2' -i '$WORK/list.txt'" ;;
			curl-Z) cmd="curl -s -Z --parallel-max $j -K '$WORK/curl.cfg' 2>/dev/null" ;;
			wget2) cmd="wget2 -q --max-threads=$j -P '$WORK/d2' -i '$WORK/list.txt'" ;;
			xargs-curl) cmd="cd '$WORK/d2' && xargs -P$j -n1 curl -sO < '$WORK/list.txt'" ;;
			esac
			/usr/bin/time -f '%e %S' -o "$WORK/time.txt" bash -c "$cmd"
			read -r wall sys < "$WORK/time.txt"
			times[$tool]+="$wall "; systimes[$tool]+="$sys "
			conns[$tool]=$(nginx_connections "$WORK/fresh")
		done
	done
	base=$(med_of "${times[imgcache]}")
	declare -A cmds=([imgcache]="imgcache prefetch -j$j list" [aria2c]="aria2c -j$j -i list" [curl-Z]="curl -Z --parallel-max $j -K config" [wget2]="wget2 --max-threads=$j -i list" [xargs-curl]="xargs -P$j -n1 curl -sO < list")
	for tool in "${tools[@]}"; do
		m=$(med_of "${times[$tool]}")
		COLD["$tool $j"]=$m; COLD_SYS["$tool $j"]=$(med_of "${systimes[$tool]}")
		row "| 2 cold 1000 images -j$j | \`${cmds[$tool]}\` | $(median_of "${times[$tool]}") s, ${COLD_SYS["$tool $j"]} s system, ${conns[$tool]} connections | $(ratio "$m" "$base") |"
	done
done

# ---- 2b. The same cold -j6 batch on tmpfs, where no disk and no inode
# allocation enter: what is left is each tool's own CPU time. Informational
# (the goal is row 2's); each run starts from an empty directory.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	say "2b. cold prefetch of 1000 at -j6 on tmpfs"
	SHM=$(mktemp -d /dev/shm/imgcache-bench.XXXXXX)
	awk -v d="$SHM/curlz" '{ n=$0; sub(".*/", "", n); print "url = \"" $0 "\"\noutput = \"" d "/" n "\"" }' "$WORK/list.txt" > "$WORK/curl-shm.cfg"
	declare -A stimes=() scpu=()
	for run in $(seq 5); do
		for tool in imgcache curl-Z; do
			rm -rf "$SHM/c2" "$SHM/curlz"; mkdir -p "$SHM/curlz"
			case $tool in
			imgcache) /usr/bin/time -f '%e %U %S' -o "$WORK/time.txt" "$IMGCACHE" prefetch -q --cache-dir "$SHM/c2" -j 6 "$WORK/list.txt" ;;
			curl-Z) /usr/bin/time -f '%e %U %S' -o "$WORK/time.txt" curl -s -Z --parallel-max 6 -K "$WORK/curl-shm.cfg" 2>/dev/null ;;
			esac
			read -r wall user sys < "$WORK/time.txt"
			stimes[$tool]+="$wall "; scpu[$tool]+="$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') "
		done
	done
	rm -rf "$SHM"; SHM=""
	base=$(med_of "${stimes[imgcache]}")
	declare -A scmds=([imgcache]="imgcache prefetch -j6 list" [curl-Z]="curl -Z --parallel-max 6 -K config")
	for tool in imgcache curl-Z; do
		row "| 2b cold 1000 images -j6, tmpfs | \`${scmds[$tool]}\` | $(median_of "${stimes[$tool]}") s, CPU (user + system) $(med_of "${scpu[$tool]}") s | $(ratio "$(med_of "${stimes[$tool]}")" "$base") |"
	done
fi

# ---- 3. Warm re-run, every entry fresh: requests sent.
say "3. warm re-run (fresh)"
rm -rf "$WORK/c3" "$WORK/wget" "$WORK/aria"; mkdir -p "$WORK/wget" "$WORK/aria"
"$IMGCACHE" prefetch -q --cache-dir "$WORK/c3" "$WORK/list.txt"
( cd "$WORK/wget" && wget -q -N -x -nH -i "$WORK/list.txt" )
aria2c -q -j6 --conditional-get=true --allow-overwrite=true -d "$WORK/aria" -i "$WORK/list.txt"
# Requests counted in one run of each, then times taken by hyperfine as for
# row 1 (no shell, time(1) or date(1) around each run; 10 runs after 3 warm-ups).
declare -A requests=() warm=()
cmd_imgcache="$IMGCACHE prefetch -q --cache-dir $WORK/c3 $WORK/list.txt"
cmd_wget="wget -q -N -x -nH -P $WORK/wget -i $WORK/list.txt"
cmd_aria2c="aria2c -q -j6 --conditional-get=true --allow-overwrite=true -d $WORK/aria -i $WORK/list.txt"
for tool in imgcache wget aria2c; do
	nginx_reset_log "$WORK/fresh"
	cmd=cmd_$tool
	${!cmd} > /dev/null
	requests[$tool]=$(nginx_requests "$WORK/fresh")
done
declare -A wcmds=([imgcache]="imgcache prefetch list" [wget]="wget -N -i list" [aria2c]="aria2c --conditional-get -i list")
tools=(imgcache wget aria2c)
n=0 base=""
while IFS='|' read -r cmd m lo hi sys; do
	tool=${tools[$n]}; n=$((n + 1))
	[ -z "$base" ] && base=$m
	warm[$tool]=$m
	row "| 3 warm re-run, fresh | \`${wcmds[$tool]}\` | $m ms ($lo–$hi), $sys ms system, ${requests[$tool]} requests | $(ratio "$m" "$base") |"
done < <(HF_RUNS=10 hf "$cmd_imgcache" "$cmd_wget" "$cmd_aria2c")

# ---- 4. Warm re-run, every entry stale (max-age=0): one conditional request each.
say "4. warm re-run (stale)"
"$IMGCACHE" prefetch -q --cache-dir "$WORK/c4" "$WORK/stale-list.txt"
stale_times=""
for run in $(seq "$RUNS"); do
	nginx_reset_log "$WORK/stale"
	start=$(now)
	"$IMGCACHE" prefetch -q --cache-dir "$WORK/c4" "$WORK/stale-list.txt"
	stale_times+="$(since "$start") "
done
stale_requests=$(nginx_requests "$WORK/stale")
not_modified=$(awk '$2 == 304' "$WORK/stale/logs/access.log" | wc -l)
row "| 4 warm re-run, stale | \`imgcache prefetch list\` (max-age=0) | $(median_of "$stale_times") s, $stale_requests requests, $not_modified × 304 | – |"

# ---- 5. Decode large images from the cache to PPM.
say "5. decode"
BIG=$WORK/www/big
mkdir -p "$BIG"
if [ -f "$CORPUS/jpeg_large-20MP_photo_lomiri-kleiber.jpg" ]; then
	cp "$CORPUS/jpeg_large-20MP_photo_lomiri-kleiber.jpg" "$BIG/big.jpg"
else
	python3 -c "
import sys
w,h=4000,3000
sys.stdout.buffer.write(b'P6\n%d %d\n255\n'%(w,h)+bytes((x*255//w+y)%256 for y in range(h) for x in range(w) for _ in range(3)))" | cjpeg -quality 85 > "$BIG/big.jpg"
fi
djpeg -ppm "$BIG/big.jpg" > "$WORK/big.ppm"
pnmtopng "$WORK/big.ppm" > "$BIG/big.png" 2>/dev/null
cwebp -quiet -q 80 "$BIG/big.png" -o "$BIG/big.webp"
GIF=$(ls "$WORK/sources"/*.gif | head -1); cp "$GIF" "$BIG/anim.gif"
for f in big.jpg big.png big.webp anim.gif; do "$IMGCACHE" fetch -q --cache-dir "$WORK/c5" -o /dev/null "http://127.0.0.1:$PORT/big/$f"; done
u="http://127.0.0.1:$PORT/big"
HF_RUNS=10 hf_rows "5 decode JPEG $(identify -format '%wx%h' "$BIG/big.jpg" 2>/dev/null || echo large)" \
	"$IMGCACHE fetch --cache-dir $WORK/c5 --offline --decode ppm $u/big.jpg" "djpeg -ppm $BIG/big.jpg"
HF_RUNS=10 hf_rows "5 decode PNG" "$IMGCACHE fetch --cache-dir $WORK/c5 --offline --decode ppm $u/big.png" "pngtopnm $BIG/big.png"
HF_RUNS=10 hf_rows "5 decode WebP" "$IMGCACHE fetch --cache-dir $WORK/c5 --offline --decode ppm $u/big.webp" "dwebp -quiet -ppm $BIG/big.webp -o $WORK/out.ppm"
if command -v convert >/dev/null; then
	HF_RUNS=20 hf_rows "5 decode animated GIF" "$IMGCACHE fetch --cache-dir $WORK/c5 --offline --decode ppm $u/anim.gif" \
		"convert $BIG/anim.gif -coalesce ppm:-"
fi

# ---- 6. Thumbnail of the large JPEG to 1024 px, from the cache.
say "6. thumbnail"
thumbs=("$IMGCACHE fetch --cache-dir $WORK/c5 --offline --thumbnail 1024x1024 --decode ppm $u/big.jpg"
	"convert $BIG/big.jpg -resize 1024x1024 $WORK/thumb.ppm")
command -v vipsthumbnail >/dev/null && thumbs+=("vipsthumbnail $BIG/big.jpg --size 1024x1024 -o $WORK/thumb-vips.ppm")
HF_RUNS=10 hf_rows "6 thumbnail → 1024 px" "${thumbs[@]}"

# ---- 12. Colour (issue 27): the large JPEG re-encoded with an Adobe RGB
# profile (cjpeg -icc), converted to sRGB through it. 12: a 1024 px thumbnail
# against vipsthumbnail's (both write PPM, as row 6). 12b: the full-size
# --decode ppm against djpeg followed by Little CMS's own tificc on the same
# pixels (its TIFF made beforehand, not timed): the sum of rows 12b's two.
say "12. colour profiles"
ADOBE_ICC=/usr/share/color/icc/compatibleWithAdobeRGB1998.icc
cjpeg -quality 90 -icc "$ADOBE_ICC" "$WORK/big.ppm" > "$BIG/adobe.jpg"
"$IMGCACHE" fetch -q --cache-dir "$WORK/c5" -o /dev/null "$u/adobe.jpg"
colour_thumbs=("$IMGCACHE fetch --cache-dir $WORK/c5 --offline --thumbnail 1024x1024 --decode ppm $u/adobe.jpg")
command -v vipsthumbnail >/dev/null &&
	colour_thumbs+=("vipsthumbnail $BIG/adobe.jpg --size 1024x1024 --export-profile srgb -o $WORK/thumb-adobe.ppm")
HF_RUNS=10 hf_rows "12 Adobe RGB thumbnail → 1024 px sRGB" "${colour_thumbs[@]}"
djpeg -ppm "$BIG/adobe.jpg" | pnmtotiff > "$WORK/adobe.tif" 2>/dev/null
HF_RUNS=10 hf_rows "12b decode Adobe RGB → sRGB PPM" \
	"$IMGCACHE fetch --cache-dir $WORK/c5 --offline --decode ppm $u/adobe.jpg" \
	"djpeg -ppm $BIG/adobe.jpg" \
	"tificc -i $ADOBE_ICC -t 0 $WORK/adobe.tif $WORK/adobe-srgb.tif"

# ---- 7 and 8. A 100 000-entry cache: prefetch peak RSS, then clean vs find.
say "7/8. 100 000 URLs (peak RSS), clean vs find"
seq 1 100000 | sed "s|^|http://127.0.0.1:$PORT/img/000.${SOURCES[0]##*.}?n=|" > "$WORK/list100k.txt"
/usr/bin/time -f '%M %e %S' -o "$WORK/rss.txt" "$IMGCACHE" prefetch -q --cache-dir "$WORK/c7" -j 16 "$WORK/list100k.txt"
read -r rss secs rss_sys < "$WORK/rss.txt"
RSS_100K=$rss  # rows 8 and 10 reuse $rss
row "| 8 peak RSS | \`imgcache prefetch -j16\` of 100 000 URLs | $(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }') MiB peak, $secs s, $rss_sys s system | – |"
/usr/bin/time -f '%M' -o "$WORK/rss2.txt" "$IMGCACHE" fetch --cache-dir "$WORK/c5" --offline --decode ppm "$u/big.jpg" > /dev/null
row "| 8 peak RSS | \`imgcache fetch --decode ppm\` of the large JPEG | $(( $(cat "$WORK/rss2.txt") / 1024 )) MB peak | – |"
/usr/bin/time -f '%M' -o "$WORK/rss3.txt" "$IMGCACHE" fetch --cache-dir "$WORK/c5" --offline --thumbnail 1024x1024 --decode ppm "$u/big.jpg" > /dev/null
row "| 8 peak RSS | \`imgcache fetch --thumbnail 1024x1024 --decode ppm\` of the large JPEG | $(( $(cat "$WORK/rss3.txt") / 1024 )) MB peak | – |"

# ---- 10. Streamed decoding (issue 12): peak RSS of --decode ppm, flat in the
# image's size for JPEG/PNG (rows written as decoded) and in the frame count
# for an animation (one canvas). The GIF is the sample animation merged with
# itself into 8× and 16× as many frames (within the 1000-frame limit for the corpus one).
say "10. streamed decode, peak RSS"
gifsicle -m $(printf "$BIG/anim.gif %.0s" $(seq 8)) > "$BIG/anim8.gif" 2>/dev/null
gifsicle -m "$BIG/anim8.gif" "$BIG/anim8.gif" > "$BIG/anim16.gif" 2>/dev/null
for f in anim8.gif anim16.gif; do "$IMGCACHE" fetch -q --cache-dir "$WORK/c5" -o /dev/null "$u/$f"; done
for f in big.jpg big.png big.webp anim.gif anim8.gif anim16.gif; do
	/usr/bin/time -f '%M %e' -o "$WORK/rss9.txt" "$IMGCACHE" fetch --cache-dir "$WORK/c5" --offline --decode ppm "$u/$f" > /dev/null
	read -r rss secs < "$WORK/rss9.txt"
	frames=$("$IMGCACHE" fetch --cache-dir "$WORK/c5" --offline --json "$u/$f" | sed -n 's/.*"frames":\([0-9]*\).*/\1/p')
	row "| 10 peak RSS, streamed | \`imgcache fetch --decode ppm\` of $f ($(identify -format '%wx%h' "$BIG/$f[0]" 2>/dev/null), $frames frame(s)) | $((rss / 1024)) MB peak, $secs s | – |"
done
/usr/bin/time -f '%M %e' -o "$WORK/rss9.txt" djpeg -rgb -ppm "$BIG/big.jpg" > /dev/null
read -r rss secs < "$WORK/rss9.txt"
row "| 10 peak RSS, streamed | \`djpeg -rgb -ppm\` of big.jpg | $((rss / 1024)) MB peak, $secs s | – |"
# ---- end of 10.

rm -rf "$WORK/c7/stats"
hf_clean=$(HF_RUNS=5 hf "$IMGCACHE clean -q --cache-dir $WORK/c7 --max-age 7d" "find $WORK/c7 -mtime +7 -delete")
base=$(echo "$hf_clean" | head -1 | cut -d'|' -f2)
CLEAN_IC=$base CLEAN_FIND=$(echo "$hf_clean" | sed -n 2p | cut -d'|' -f2)
while IFS='|' read -r cmd m lo hi sys; do
	cmd=${cmd//$WORK\//}
	row "| 7 clean 100 000 entries, nothing expired | \`${cmd//$IMGCACHE/imgcache}\` | $m ms ($lo–$hi), $sys ms system | $(ratio "$m" "$base") |"
done <<< "$hf_clean"
find "$WORK/c7" -type f -exec touch -d '10 days ago' {} +
cp -a "$WORK/c7" "$WORK/c7find"
/usr/bin/time -f '%e %S' -o "$WORK/time.txt" "$IMGCACHE" clean -q --cache-dir "$WORK/c7" --max-age 7d
read -r ic ic_sys < "$WORK/time.txt"
/usr/bin/time -f '%e %S' -o "$WORK/time.txt" find "$WORK/c7find" -mtime +7 -delete
read -r fd fd_sys < "$WORK/time.txt"
row "| 7 clean 100 000 entries, all expired | \`imgcache clean --max-age 7d\` | $(printf %.2f "$ic") s, $ic_sys s system | 1.00 |"
row "| 7 clean 100 000 entries, all expired | \`find DIR -mtime +7 -delete\` | $(printf %.2f "$fd") s, $fd_sys s system | $(ratio "$fd" "$ic") |"

# ---- 9. Remote storage (issue 16): a prefetch of 1000 URLs from a warm remote
# (nginx WebDAV, Redis) against the same prefetch from the origin, each into an
# empty local cache.
say "9. prefetch of 1000 from a warm remote storage vs from the origin"
DAV_PORT=$(free_ports 2) && REDIS_PORT=$((DAV_PORT + 1))
mkdir -p "$WORK/dav/logs" "$WORK/dav/tmp" "$WORK/dav/store"
chmod 777 "$WORK/dav" "$WORK/dav/tmp" "$WORK/dav/store"  # nginx workers write as another user
cat > "$WORK/dav/nginx.conf" <<CONF
worker_processes 1;
pid $WORK/dav/nginx.pid;
error_log $WORK/dav/logs/error.log warn;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $WORK/dav/tmp;
	keepalive_requests 100000;
	server {
		listen 127.0.0.1:$DAV_PORT;
		location / {
			root $WORK/dav/store;
			dav_methods PUT DELETE;
			create_full_put_path on;
			dav_access user:rw group:rw all:r;
			client_max_body_size 100m;
		}
	}
}
CONF
/usr/sbin/nginx -c "$WORK/dav/nginx.conf" -p "$WORK/dav" -e "$WORK/dav/logs/error.log"
redis-server --port $REDIS_PORT --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
	--pidfile "$WORK/redis.pid" --dir "$WORK" --logfile "$WORK/redis.log"
trap 'nginx_stop "$WORK/dav"; [ -f "$WORK/redis.pid" ] && kill "$(cat "$WORK/redis.pid")"; cleanup' EXIT
sleep 0.5
DAV="http://127.0.0.1:$DAV_PORT" REDIS="redis://127.0.0.1:$REDIS_PORT"
"$IMGCACHE" prefetch -q --cache-dir "$WORK/c9warm" --remote-storage "$DAV $REDIS" "$WORK/list.txt"
declare -A remote_times=()
for _ in $(seq "$RUNS"); do
	for source in origin webdav redis; do
		rm -rf "$WORK/c9"
		case $source in
			origin) args=(--no-remote-storage) ;;
			webdav) args=(--remote-storage "$DAV") ;;
			redis) args=(--remote-storage "$REDIS") ;;
		esac
		start=$(now)
		"$IMGCACHE" prefetch -q --cache-dir "$WORK/c9" "${args[@]}" "$WORK/list.txt"
		remote_times[$source]+="$(since "$start") "
	done
done
base=$(med_of "${remote_times[origin]}")
declare -A remote_labels=([origin]="from the origin (nginx)" [webdav]="from a warm nginx WebDAV remote" [redis]="from a warm Redis remote")
for source in origin webdav redis; do
	m=$(med_of "${remote_times[$source]}")
	flag="--remote-storage URL"; [ "$source" = origin ] && flag="--no-remote-storage"
	row "| 9 prefetch 1000 ${remote_labels[$source]} | \`imgcache prefetch $flag list\` | $(median_of "${remote_times[$source]}") s | $(ratio "$base" "$m") (origin / this) |"
done
# Issue 28's goals: a warm store as fast as the origin (time from the store / time from the origin).
REMOTE_BASE=$base REMOTE_WEBDAV=$(med_of "${remote_times[webdav]}") REMOTE_REDIS=$(med_of "${remote_times[redis]}")

# ---- 13. (issue 28) A fleet sharing remote storage: 6 machines started
# together, a killed leaseholder, two Redis shards (scripts/bench-fleet.sh).
say "13. a fleet sharing remote storage"
bash "$HERE/scripts/bench-fleet.sh" "$IMGCACHE" "$WORK/fleet" > "$WORK/fleet.out"
grep '^| 13' "$WORK/fleet.out" >> "$ROWS" || true
FLEET_GOALS=$(grep '^GOAL|' "$WORK/fleet.out" || true)

# ---- 11. (issue 17) AVIF decode against avifdec, animated thumbnails. ---------------------------------
# avifdec writes PNG only (or Y4M, which skips the RGB conversion), so it runs
# with --png-compress 0: what remains over imgcache's --decode ppm is zlib's
# stored blocks and the CRCs.
if command -v avifenc >/dev/null && command -v avifdec >/dev/null; then
	say "11. AVIF, animated thumbnails"
	pamscale -width 2000 "$WORK/big.ppm" 2>/dev/null | pnmtopng > "$WORK/avif-source.png" 2>/dev/null
	avifenc -s 9 -j 2 "$WORK/avif-source.png" "$BIG/big.avif" >/dev/null
	"$IMGCACHE" fetch -q --cache-dir "$WORK/c5" -o /dev/null "$u/big.avif"
	HF_RUNS=10 hf_rows "11 decode AVIF $(avifdec --info "$BIG/big.avif" 2>/dev/null | sed -n 's/.*Resolution *: //p' | head -1)" \
		"$IMGCACHE fetch --cache-dir $WORK/c5 --offline --decode ppm $u/big.avif" \
		"avifdec -d 8 --png-compress 0 $BIG/big.avif $WORK/out-avif.png"
fi
# ---- end of issue 17's rows. ---------------------------------------------------

# ---- 16. (issue 34) Animated thumbnails: bytes and time against gifsicle and ImageMagick, per corpus
# animation (scripts/bench-anim.sh, which also runs alone: `bash scripts/bench-anim.sh .build/release/imgcache`).
say "16. animated thumbnails"
bash "$HERE/scripts/bench-anim.sh" "$IMGCACHE" > "$WORK/anim.out"
grep '^| 16' "$WORK/anim.out" >> "$ROWS" || true
ANIM_GOALS=$(grep '^GOAL|' "$WORK/anim.out" || true)

# ---- 17–19. (issue 34) A warm hit and --version against cat and curl file://, a 20 MP thumbnail against
# djpeg -scale 1/4, a cold prefetch's system calls and instructions per URL against curl -Z: counts
# beside times (scripts/bench-counts.sh, which also runs alone, row by row: `bash scripts/bench-counts.sh
# .build/release/imgcache warm`).
say "17–19, 7c. counts: warm hit, thumbnail, cold URLs, clean"
bash "$HERE/scripts/bench-counts.sh" "$IMGCACHE" > "$WORK/counts.out"
grep -E '^\| (7c|17|18|19) ' "$WORK/counts.out" >> "$ROWS" || true
COUNT_GOALS=$(grep '^GOAL|' "$WORK/counts.out" || true)
# ---- 20. (issue 33) HEIC decode and thumbnail, placeholders: scripts/bench-heif.sh,
# which also runs alone (`bash scripts/bench-heif.sh .build/release/imgcache`).
HEIF_GOALS=""
if command -v heif-enc >/dev/null && command -v heif-convert >/dev/null; then
	say "20. HEIC, placeholders"
	bash "$HERE/scripts/bench-heif.sh" "$IMGCACHE" > "$WORK/heif.out"
	grep '^| 20' "$WORK/heif.out" >> "$ROWS" || true
	HEIF_GOALS=$(grep '^GOAL|' "$WORK/heif.out" || true)
fi

# ---- 20. (issue 33) JPEG XL: decode against djxl, a thumbnail against vipsthumbnail, the decode's peak RSS
# (scripts/bench-jxl.sh, which also runs alone).
say "20. JPEG XL"
bash "$HERE/scripts/bench-jxl.sh" "$IMGCACHE" > "$WORK/jxl.out"
grep '^| 20' "$WORK/jxl.out" >> "$ROWS" || true
JXL_GOALS=$(grep '^GOAL|' "$WORK/jxl.out" || true)

# ---- 14–15. (issue 25) Slow origins (nginx limit_rate) and polite warming: scripts/bench-slow.sh,
# which also runs alone (`bash scripts/bench-slow.sh .build/release/imgcache`).
say "14–15. slow origins, --limit-rate, --rate"
bash "$HERE/scripts/bench-slow.sh" "$IMGCACHE" >> "$ROWS"

# ---- The goals of issue 13, as imgcache's cost divided by the other tool's (below 1: imgcache cheaper).
goal() {  # row, ratio, goal (≤ this), note
	local met; met=$(awk -v r="$2" -v g="$3" 'BEGIN { print (r <= g) ? "yes" : "no" }')
	GOALS+="| $1 | $2 | ≤ $3 | $met | $4 |"$'\n'
}
GOALS=""
warm_ic=${HF_MEDIANS["1 warm hit#0"]}; warm_curl=${HF_MEDIANS["1 warm hit#1"]}
goal "warm hit vs \`curl -s file://\`" "$(ratio "$warm_ic" "$warm_curl")" 0.8 "$warm_ic ms vs $warm_curl ms"
goal "cold 1000 URLs -j6 vs \`curl -Z --parallel-max 6\`, wall" "$(ratio "${COLD[imgcache 6]}" "${COLD[curl-Z 6]}")" 1.0 \
	"${COLD[imgcache 6]} s vs ${COLD[curl-Z 6]} s"
goal "cold -j6 vs \`curl -Z\`, system time per URL" "$(ratio "${COLD_SYS[imgcache 6]}" "${COLD_SYS[curl-Z 6]}")" 1.2 \
	"${COLD_SYS[imgcache 6]} s vs ${COLD_SYS[curl-Z 6]} s system"
goal "cold -j6 vs \`wget2 --max-threads=6 -i list\`" "$(ratio "${COLD[imgcache 6]}" "${COLD[wget2 6]}")" 1.3 \
	"${COLD[imgcache 6]} s vs ${COLD[wget2 6]} s; system ${COLD_SYS[imgcache 6]} s vs ${COLD_SYS[wget2 6]} s"
goal "cold -j6 vs \`aria2c -j6\`" "$(ratio "${COLD[imgcache 6]}" "${COLD[aria2c 6]}")" 0.33 "${COLD[imgcache 6]} s vs ${COLD[aria2c 6]} s"
goal "\`clean\`, nothing to remove, vs \`find -mtime +7 -delete\`" "$(ratio "$CLEAN_IC" "$CLEAN_FIND")" 0.5 "$CLEAN_IC ms vs $CLEAN_FIND ms"
goal "\`clean\`, everything expired, vs \`find -delete\`" "$(ratio "$ic" "$fd")" 1.0 "$(printf %.2f "$ic") s vs $(printf %.2f "$fd") s"
goal "warm re-run of 1000 fresh URLs vs \`wget -N -i list\`" "$(ratio "${warm[imgcache]}" "${warm[wget]}")" 0.25 \
	"${warm[imgcache]} ms vs ${warm[wget]} ms; ${requests[imgcache]} requests vs ${requests[wget]}"
thumb_ic=${HF_MEDIANS["6 thumbnail → 1024 px#0"]}; thumb_vips=${HF_MEDIANS["6 thumbnail → 1024 px#2"]:-}
[ -z "$thumb_vips" ] || goal "thumbnail → 1024 px, no profile, vs \`vipsthumbnail\` (issue 27: stays)" \
	"$(ratio "$thumb_ic" "$thumb_vips")" 0.8 "$thumb_ic ms vs $thumb_vips ms"
colour_ic=${HF_MEDIANS["12 Adobe RGB thumbnail → 1024 px sRGB#0"]}
colour_vips=${HF_MEDIANS["12 Adobe RGB thumbnail → 1024 px sRGB#1"]:-}
[ -z "$colour_vips" ] || goal "Adobe RGB thumbnail → 1024 px sRGB vs \`vipsthumbnail --export-profile srgb\`" \
	"$(ratio "$colour_ic" "$colour_vips")" 0.8 "$colour_ic ms vs $colour_vips ms"
decode_ic=${HF_MEDIANS["12b decode Adobe RGB → sRGB PPM#0"]:-}
decode_pipeline=$(awk -v a="${HF_MEDIANS["12b decode Adobe RGB → sRGB PPM#1"]:-}" \
	-v b="${HF_MEDIANS["12b decode Adobe RGB → sRGB PPM#2"]:-}" 'BEGIN { printf "%.2f", a + b }')
[ -z "$decode_ic" ] || goal "\`--decode ppm\` Adobe RGB → sRGB vs \`djpeg\` + \`tificc\`" \
	"$(ratio "$decode_ic" "$decode_pipeline")" 1.3 "$decode_ic ms vs $decode_pipeline ms"
goal "warm nginx WebDAV remote vs origin, prefetch of 1000 (issue 28)" "$(ratio "$REMOTE_WEBDAV" "$REMOTE_BASE")" 1.2 \
	"$REMOTE_WEBDAV s vs $REMOTE_BASE s"
goal "warm Redis remote vs origin, prefetch of 1000 (issue 28)" "$(ratio "$REMOTE_REDIS" "$REMOTE_BASE")" 1.2 \
	"$REMOTE_REDIS s vs $REMOTE_BASE s"
while IFS='|' read -r _ name value limit note; do
	[ -n "$name" ] && goal "$name (issue 28)" "$value" "$limit" "$note"
done <<< "$FLEET_GOALS"
while IFS='|' read -r _ name value target note; do
	[ -n "$name" ] && goal "$name" "$value" "$target" "$note"
done <<< "$HEIF_GOALS"
while IFS='|' read -r _ name value limit note; do
	[ -n "$name" ] && goal "$name (issue 34)" "$value" "$limit" "$note"
done <<< "$ANIM_GOALS"
while IFS='|' read -r _ name value limit note; do
	[ -n "$name" ] && goal "$name" "$value" "$limit" "$note"
done <<< "$COUNT_GOALS"
while IFS='|' read -r _ name value limit note; do
	[ -n "$name" ] && goal "$name (issue 33)" "$value" "$limit" "$note"
done <<< "$JXL_GOALS"
goal "peak RSS, \`prefetch\` of 100 000 URLs (MiB)" "$(awk -v k="$RSS_100K" 'BEGIN { printf "%.1f", k / 1024 }')" 24 "absolute, not a ratio"

{
	echo "# imgcache benchmarks"
	echo
	echo "Generated by \`make bench\` on $(date -u +%Y-%m-%d) ($(nproc) cores, $(uname -r)); nginx $(/usr/sbin/nginx -v 2>&1 | cut -d/ -f2) on 127.0.0.1."
	echo "Times are medians of interleaved runs with min–max; \"vs imgcache\" is the other command's median divided by imgcache's (above 1: imgcache is faster)."
	echo "\`list\` holds 1000 URLs of $(du -sh "$WORK/www/img" | cut -f1) of images (${#SOURCES[@]} distinct files, from the corpus when present), served with Cache-Control: max-age=86400 (row 4: max-age=0)."
	echo
	cat "$ROWS"
	echo
	echo "## Goals (issue 13): imgcache's cost divided by the other tool's"
	echo
	echo "| Row | Ratio | Goal | Met | Numbers |"
	echo "| --- | --- | --- | --- | --- |"
	printf '%s' "$GOALS"
	cat <<'NOTES'

## Where imgcache is slower, and why

- **Colour (rows 12, 12b)**: a thumbnail converts only its scaled pixels, so a profile costs it little (row 12
  against row 6); a full-size `--decode ppm` converts every pixel through Little CMS, most of its time
  (20 MP: about 145 ms on top of the 115 ms decode, measured when row 12b was added).
- **Cold download vs `curl -Z`** (rows 2 and 2b): CPU. Row 2b, on tmpfs, shows imgcache using about three times
  curl's CPU per URL: a transfer is handed from a task on the cooperative pool to the download thread and its
  result back (a thread wake-up or two per URL where curl runs one thread), and imgcache also sniffs and walks
  the body to its end, hashes it (XXH3-128), parses its caching headers, takes the key's download lock, looks the
  entry up (before and under that lock) and writes a record. On ext4 each entry also takes one more block: its
  record (about 400 bytes) does not fit in a 256-byte inode, so the attribute gets a block of its own.
  In row 2 the disk can dominate both tools: on this ext4 (no journal), allocating an inode scans past inodes
  freed in the last 30 seconds (5 minutes while their inode table block is unwritten), and each run starts by
  deleting the previous run's 1000 files, so a run's time depends on what ran before it, and how recently (row 2
  has moved between 0.9 and 1.4 × curl's time over benches of nearly the same code). Right after deletions,
  creating the 1000 files is most of either tool's time: imgcache creates each body file on the task that asks
  for it, beside the download thread, where curl's one thread does everything in turn, and takes about 0.9 ×
  curl's time but 1.3 × its system time (two threads allocating inodes at once). With no recent deletions, CPU
  decides, and imgcache takes 1.3–1.5 × curl's time. Row 2 therefore takes five rounds with the tools' order
  turned by one each round, so that each tool runs once in each place; compare ratios within one run, and row
  2b for the cost of the code itself.
- **Warm hit vs `curl -s file://` and `cat`**: process start-up: the loader relocates the static Swift
  runtime, 41 560 RELR relocations, 0.55 M of a hit's 0.92 M instructions and a copied page for each of the
  130 pages they write (a non-PIE link would avoid them, but gives up address-space randomisation for a tool
  that parses untrusted bytes, so it is not used); a quarter of them are FoundationEssentials', linked only for
  swift-argument-parser's JSON help dump (docs/ARCHITECTURE.md, One warm hit). The image libraries are loaded
  on first use, libgcc's unwinder is linked in: a hit maps libc and libm alone. SHA-256 comes from Nettle:
  libcrypto's load and initialisation cost a hit 0.5 ms. The hit also rewrites one statistics shard, in
  place: emptying it first cost 0.2-6 ms on a disk mounted with `discard`.
- **`clean` vs `find`**: an entry is one file, so `clean` makes the system calls `find` makes: one
  `getdents64` pass per directory and one `fstatat` per entry (last use is the file's modification time), and
  with everything expired one `unlink` per entry, which on this disk (mounted with `discard`) costs about a
  millisecond each. `clean` reads its 16 shards on as many threads as there are processors, `find` on one.
  For 100 000 entries `clean` makes 100 030 `newfstatat` and 295 `getdents64`, `find` 100 081 and 297 (row 7c),
  and both spend the same system time, about 2.2 µs per entry: perf puts most of it in the kernel's dentry-hash
  walk and the first touch of each inode (cache misses: `__d_lookup_rcu` 29 %, `security_inode_getattr` 13 %).
  Measured and no cheaper in the kernel: stat'ing in inode order, `statx` asking only for the size and
  modification time, a 1 MiB `getdents64` buffer (16 calls instead of 275). So on 2 cores `clean` cannot go
  below half of `find`'s system time, plus what runs on one thread before the shards start: 1.6 M
  instructions (`CleanPlan` reads the line without the argument parser, whose reflection cost 10.5 M). The
  shards' own work is 172 instructions per entry, `find`'s 991 (row 7c); all expired, 46 M instructions in
  all against `find -delete`'s 105 M. So with both cores free `clean` takes a little under half of `find`'s
  time (0.49 × in 20 interleaved rounds, session 13); the ratio moves with what else holds the second core,
  and on a machine busy compiling `clean` gets one core and takes about `find`'s time. Much below half would
  need last use without a `stat` per entry (an index of its own, which every hit would update).
- **JPEG decode vs `djpeg`**: both stream scanlines through the same libjpeg; imgcache also starts the Swift
  runtime, reads the cached file whole and checks its XXH3-128 (rows 5 and 10).
NOTES
} > "$RESULTS"
cat "$RESULTS"
