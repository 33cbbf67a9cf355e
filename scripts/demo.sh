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
# repeated fetches are answered from the cache without asking the server. It
# dies with this script however the script ends (the trap runs on no SIGKILL):
# PR_SET_PDEATHSIG, then a check that its parent is still this shell (one that
# died before the request left it to init, and nothing would be sent).
python3 - "$port" "$work/site" "$$" >"$work/server.log" 2>&1 <<'PY' &
import ctypes, functools, http.server, os, signal, sys
ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
if os.getppid() != int(sys.argv[3]):
    sys.exit(1)
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
# Short command lines: imgcache from the PATH, files relative to the work directory.
PATH="$(cd "$(dirname "$IMGCACHE")" && pwd):$PATH"
cd "$work"

# run STATUS COMMAND...: shows the command, its output and its exit status
# when not 0. A status other than STATUS (the man page's EXIT STATUS) fails
# the demo at its end, so `make demo` also checks the release build.
unexpected=""
run() {
    expected=$1
    shift
    printf '\n$ %s\n' "$*"
    status=0
    "$@" || status=$?
    [ "$status" = 0 ] || printf '(exit status %s)\n' "$status"
    [ "$status" = "$expected" ] || unexpected="$unexpected
  $* exited $status, not $expected"
}

echo "Serving sample images at $base (cache: $IMGCACHE_DIR)"
run 0 imgcache fetch -v "$base/photo.jpg" -o "out/photo.jpg"
run 0 imgcache fetch -v "$base/photo.jpg" -o "out/photo.jpg"
run 0 imgcache fetch --json "$base/photo.jpg" "$base/gradient.png" "$base/anim.gif" "$base/alpha.webp"
printf '\n$ %s | head -c 60 | od -c | head -3\n' "imgcache fetch --decode pam $base/gradient.png"
imgcache fetch --decode pam "$base/gradient.png" | head -c 60 | od -c | head -3
run 0 imgcache fetch --path "$base/alpha.webp"
run 0 imgcache fetch -v --thumbnail 80x80 "$base/photo.jpg" -o "out/thumb.jpg"
run 0 imgcache fetch -v --thumbnail 80x80 "$base/photo.jpg" -o "out/thumb.jpg"
run 4 imgcache fetch "$base/missing.jpg" -o "out/missing.jpg"
run 6 imgcache fetch "$base/missing.jpg" -o "out/missing.jpg"
run 5 imgcache fetch "$base/error-page.jpg" -o "out/error.jpg"
run 7 imgcache fetch --offline "$base/never-fetched.png" -o "out/x.png"
printf '%s\n' "# a warm-up list: blank lines, comments and duplicates are fine" "$base/photo.jpg" "" \
    "$base/gradient.png" "$base/more.jpg" "$base/photo.jpg" "$base/missing.jpg" > urls.txt
cp site/photo.jpg site/more.jpg
run 6 imgcache prefetch urls.txt
run 0 imgcache stat
run 0 imgcache stat "$base/photo.jpg"
run 64 imgcache purge
run 0 imgcache purge "$base/more.jpg"
run 0 imgcache clean --dry-run --max-size 4K
# The readiness check above (GET /) is the demo's own request, not imgcache's.
printf '\nRequests imgcache sent the server, with how many times each (from its log):\n'
grep -o '"GET /[^ "][^"]*"' server.log | sort | uniq -c
printf '%s\n' \
    "Each path was asked for once, however often it was fetched above: photo.jpg's repeats came from the" \
    "cache (fresh for an hour, as the server's Cache-Control said), and missing.jpg's second fetch was" \
    "answered by the failed-URL list (exit 6) without asking the server again."
if [ -n "$unexpected" ]; then
    printf 'demo: commands that did not exit as shown:%s\n' "$unexpected" >&2
    exit 1
fi
