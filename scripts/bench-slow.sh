#!/usr/bin/env bash
# Slow origins and polite warming (issue 25), run by scripts/bench.sh or alone:
#   bash scripts/bench-slow.sh PATH/TO/imgcache
# Prints markdown table rows on stdout, progress on stderr. Every server is a
# throwaway nginx on 127.0.0.1 with `limit_rate` (per request, so each
# transfer is capped and only running them side by side makes a run fast).
set -euo pipefail
IMGCACHE=$(readlink -f "${1:?usage: bench-slow.sh PATH/TO/imgcache}")
HERE=$(cd "$(dirname "$0")/.." && pwd)
. "$HERE/scripts/lib/corpus.sh"
SLOW_RUNS=${SLOW_RUNS:-2}
SLOW=$(mktemp -d /tmp/imgcache-bench-slow.XXXXXX)
chmod 755 "$SLOW"
. "$HERE/scripts/lib/ports.sh"
PORT=$(free_ports 4)
TLS1=$((PORT + 1)) TLS2=$((PORT + 2)) FAST=$((PORT + 3))
say() { printf '%s\n' "$*" >&2; }
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.2f", e - s }'; }
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f", m}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
stop() { [ -f "$SLOW/nginx.pid" ] && kill "$(cat "$SLOW/nginx.pid")" 2>/dev/null; sleep 0.3; }
trap 'stop; rm -rf "$SLOW"' EXIT

# ---- ~120 KB images: a corpus photo (a generated one without the corpus), 24 names.
mkdir -p "$SLOW/www/img" "$SLOW/logs" "$SLOW/tmp"
src=$CORPUS/png_gray8_photo_skimage-camera.png
[ -f "$src" ] || { convert -size 400x300 plasma:fractal -quality 97 "$SLOW/src.jpg"; src=$SLOW/src.jpg; }
for i in $(seq -w 0 23); do cp "$src" "$SLOW/www/img/$i.${src##*.}"; done
# About 1 MB that is still an image: a PNG of noise (incompressible) made by ImageMagick.
python3 - "$SLOW/www/big.png" <<'PY'
import os, struct, sys, zlib
w, h = 600, 570
chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
rows = b"".join(b"\0" + os.urandom(w * 3) for _ in range(h))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
	+ chunk(b"IDAT", zlib.compress(rows, 0)) + chunk(b"IEND", b""))
PY
size_kb=$(( $(stat -c %s "$src") / 1000 ))
big_kb=$(( $(stat -c %s "$SLOW/www/big.png") / 1024 ))

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
	-keyout "$SLOW/key.pem" -out "$SLOW/cert.pem" >/dev/null 2>&1
cat > "$SLOW/nginx.conf" <<CONF
worker_processes 1;
pid $SLOW/nginx.pid;
error_log $SLOW/logs/error.log warn;
events { worker_connections 1024; }
http {
	log_format starts '\$msec \$connection \$request_uri';
	access_log $SLOW/logs/access.log starts;
	client_body_temp_path $SLOW/tmp; proxy_temp_path $SLOW/tmp; fastcgi_temp_path $SLOW/tmp;
	uwsgi_temp_path $SLOW/tmp; scgi_temp_path $SLOW/tmp;
	types { image/png png; image/jpeg jpg; }
	root $SLOW/www;
	add_header Cache-Control "max-age=86400";
	ssl_certificate $SLOW/cert.pem; ssl_certificate_key $SLOW/key.pem;
	server { listen 127.0.0.1:$PORT; limit_rate 20k; }
	server { listen 127.0.0.1:$TLS1 ssl; limit_rate 20k; }
	server { listen 127.0.0.1:$TLS2 ssl http2; limit_rate 20k; }
	server { listen 127.0.0.1:$FAST; }
}
CONF
/usr/sbin/nginx -c "$SLOW/nginx.conf" -p "$SLOW" -e "$SLOW/logs/error.log"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$FAST/" && break; sleep 0.1; done

list() {  # scheme port count
	for i in $(seq -f %02g 0 $(($3 - 1))); do echo "$1://127.0.0.1:$2/img/$i.${src##*.}"; done > "$SLOW/list.txt"
}
# One timed run of a tool over list.txt, into a fresh directory.
run_tool() {
	local tool=$1 scheme=$2 out=$SLOW/out
	rm -rf "$out"; mkdir -p "$out"
	local insecure=()
	local t; t=$(now)
	case $tool in
	imgcache) [ "$scheme" = https ] && insecure=(-k)
		"$IMGCACHE" prefetch -q --cache-dir "$out" -j 6 "${insecure[@]}" "$SLOW/list.txt" ;;
	wget2) [ "$scheme" = https ] && insecure=(--no-check-certificate)
		wget2 -q --max-threads=6 "${insecure[@]}" -P "$out" -i "$SLOW/list.txt" ;;
	aria2c) [ "$scheme" = https ] && insecure=(--check-certificate=false)
		aria2c -q -j6 "${insecure[@]}" -d "$out" -i "$SLOW/list.txt" ;;
	curl) [ "$scheme" = https ] && insecure=(-k)
		(cd "$out" && curl -s -Z --parallel-immediate --parallel-max 6 "${insecure[@]}" --remote-name-all $(cat "$SLOW/list.txt")) ;;
	esac
	since "$t"
}
declare -A T
slow_rows() {  # label scheme port count runs
	list "$2" "$3" "$4"
	local tool times
	for tool in imgcache wget2 aria2c curl; do
		times=""
		for _ in $(seq "$5"); do times+="$(run_tool "$tool" "$2") "; done
		T[$tool]=$(echo $times | tr ' ' '\n' | median)
		say "  $1, $4 URLs: $tool ${T[$tool]} s ($times)"
	done
	echo "| 14 slow origin, $1 | $4 URLs of $size_kb KB at 20 KB/s each, -j 6: \`imgcache prefetch\` | ${T[imgcache]} s | – |"
	echo "| 14 slow origin, $1 | \`wget2 --max-threads=6\` | ${T[wget2]} s | imgcache / wget2 $(ratio "${T[imgcache]}" "${T[wget2]}") (goal ≤ 1.05) |"
	echo "| 14 slow origin, $1 | \`aria2c -j6\` | ${T[aria2c]} s | imgcache / aria2c $(ratio "${T[imgcache]}" "${T[aria2c]}") (goal ≤ 1.05) |"
	echo "| 14 slow origin, $1 | \`curl -Z --parallel-immediate\` | ${T[curl]} s | imgcache / curl $(ratio "${T[imgcache]}" "${T[curl]}") |"
}
say "14. slow origin (nginx limit_rate 20k)"
slow_rows "http" http $PORT 6 "$SLOW_RUNS"
slow_rows "http" http $PORT 24 1
slow_rows "https HTTP/1.1" https $TLS1 6 1
slow_rows "https HTTP/2" https $TLS2 6 1

# ---- 15. --limit-rate 100K over one file of about 1 MB: the time it should take is size / rate.
say "15. --limit-rate, --rate"
t=$(now); "$IMGCACHE" fetch -q --cache-dir "$SLOW/c1" --limit-rate 100K -o /dev/null "http://127.0.0.1:$FAST/big.png"; lr=$(since "$t")
expect=$(awk -v b="$(stat -c %s "$SLOW/www/big.png")" 'BEGIN { printf "%.2f", b / 102400 }')
t=$(now); curl -s --limit-rate 100K -o /dev/null "http://127.0.0.1:$FAST/big.png"; lc=$(since "$t")
echo "| 15 --limit-rate 100K | \`imgcache fetch --limit-rate 100K\` of $big_kb KiB | $lr s (size / rate: $expect s, off by $(awk -v a="$lr" -v e="$expect" 'BEGIN { printf "%+.1f %%", (a - e) / e * 100 }'); goal within 10 %) | – |"
echo "| 15 --limit-rate 100K | \`curl --limit-rate 100K\` of the same | $lc s | – |"

# ---- --rate 4/s: 40 small requests, -j 6; the most starts nginx logged in one second, and in any 1 s window.
for i in $(seq 0 39); do echo "http://127.0.0.1:$FAST/img/$((i % 24 < 10 ? 0 : 1))$((i % 10)).${src##*.}?n=$i"; done > "$SLOW/list.txt"
sleep 0.3; : > "$SLOW/logs/access.log"; kill -USR1 "$(cat "$SLOW/nginx.pid")"; sleep 0.3
t=$(now); "$IMGCACHE" prefetch -q --cache-dir "$SLOW/c2" -j 6 --rate 4/s "$SLOW/list.txt"; rt=$(since "$t")
sleep 0.5
read -r per_second per_window < <(awk '{ t[NR] = $1; s[int($1)]++ } END {
	for (k in s) if (s[k] > m) m = s[k]
	for (i = 1; i <= NR; i++) { n = 0; for (j = i; j <= NR && t[j] - t[i] < 1; j++) n++; if (n > w) w = n }
	print m, w }' "$SLOW/logs/access.log")
echo "| 15 --rate 4/s | \`imgcache prefetch -j 6 --rate 4/s\` of 40 URLs | $rt s; most starts in one second of nginx's log: $per_second, in any 1 s window: $per_window (goal ≤ 4) | – |"
