#!/bin/sh
# make demo: makes a few sample images, serves them on 127.0.0.1 and shows
# imgcache fetching them — from the network, then from the disk cache.
set -eu
IMGCACHE=${1:?usage: demo.sh PATH-TO-IMGCACHE}
work=$(mktemp -d /tmp/imgcache-demo.XXXXXX)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT INT TERM

mkdir -p "$work/site" "$work/out"
sh "$(dirname "$0")/make-samples.sh" "$work/site"
printf '<!DOCTYPE html><html><body>Not an image</body></html>\n' > "$work/site/error-page.jpg"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# Python's file server, with the Cache-Control an image server would send, so
# repeated fetches are answered from the cache without asking the server.
python3 - "$port" "$work/site" >"$work/server.log" 2>&1 <<'PY' &
import functools, http.server, sys
class Handler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Cache-Control", "max-age=3600")
        super().end_headers()
handler = functools.partial(Handler, directory=sys.argv[2])
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
PY
server_pid=$!
base="http://127.0.0.1:$port"
for _ in 1 2 3 4 5 6 7 8 9 10; do
    python3 -c "import urllib.request; urllib.request.urlopen('$base/')" 2>/dev/null && break
    sleep 0.2
done
export IMGCACHE_DIR="$work/cache"

run() { printf '\n$ %s\n' "$*"; "$@" || printf '(exit status %s)\n' "$?"; }

echo "Serving sample images at $base (cache: $IMGCACHE_DIR)"
run "$IMGCACHE" fetch -v "$base/photo.jpg" -o "$work/out/photo.jpg"
run "$IMGCACHE" fetch -v "$base/photo.jpg" -o "$work/out/photo.jpg"
run "$IMGCACHE" fetch --json "$base/photo.jpg" "$base/gradient.png" "$base/anim.gif" "$base/alpha.webp"
printf '\n$ %s | head -c 60 | od -c | head -3\n' "$IMGCACHE fetch --decode pam $base/gradient.png"
"$IMGCACHE" fetch --decode pam "$base/gradient.png" | head -c 60 | od -c | head -3
run "$IMGCACHE" fetch --path "$base/alpha.webp"
run "$IMGCACHE" fetch -v --thumbnail 80x80 "$base/photo.jpg" -o "$work/out/thumb.jpg"
run "$IMGCACHE" fetch -v --thumbnail 80x80 "$base/photo.jpg" -o "$work/out/thumb.jpg"
run "$IMGCACHE" fetch "$base/missing.jpg" -o "$work/out/missing.jpg"
run "$IMGCACHE" fetch "$base/missing.jpg" -o "$work/out/missing.jpg"
run "$IMGCACHE" fetch "$base/error-page.jpg" -o "$work/out/error.jpg"
run "$IMGCACHE" fetch --offline "$base/never-fetched.png" -o "$work/out/x.png"
printf '%s\n' "# a warm-up list: blank lines, comments and duplicates are fine" "$base/photo.jpg" "" \
    "$base/gradient.png" "$base/more.jpg" "$base/photo.jpg" "$base/missing.jpg" > "$work/urls.txt"
cp "$work/site/photo.jpg" "$work/site/more.jpg"
printf '\n$ %s < urls.txt\n' "$IMGCACHE prefetch"
"$IMGCACHE" prefetch < "$work/urls.txt" || printf '(exit status %s)\n' "$?"
run "$IMGCACHE" stat
run "$IMGCACHE" stat "$base/photo.jpg"
run "$IMGCACHE" clean --dry-run --max-size 4K
printf '\nRequests the server saw (the second photo.jpg and missing.jpg never reached it):\n'
grep -o '"GET [^"]*"' "$work/server.log" | sort | uniq -c
