#!/usr/bin/env bash
# make bench, rows 13 (issue 28): a fleet sharing remote storage. Runs alone
# too: scripts/bench-fleet.sh PATH/TO/imgcache [WORKDIR]. Prints table rows
# (`| 13 … |`) on stdout and goal rows (`GOAL|name|ratio|goal|note`) for
# bench.sh's goal table; progress on stderr.
#   a. 6 machines (cache directories, processes started together), one Redis,
#      60 URLs from an origin that answers after 200 ms: origin GETs, and
#      every machine's every entry compared with the origin's bytes;
#   b. the same with the leaseholder SIGKILLed: when the others exit;
#   c. two Redis shards: how 1000 keys split, then one shard stopped;
#   d. as a., with one Apache mod_dav store (leases by conditional PUT).
set -euo pipefail
IMGCACHE=$(readlink -f "${1:?usage: bench-fleet.sh PATH/TO/imgcache [WORKDIR]}")
HERE=$(cd "$(dirname "$0")/.." && pwd)
WORK=${2:-$(mktemp -d /tmp/imgcache-fleet.XXXXXX)}
mkdir -p "$WORK"
SLOW_PORT=${SLOW_PORT:-18441} R1=${R1:-18442} R2=${R2:-18443} FAST_PORT=${FAST_PORT:-18444} DAV_PORT=${DAV_PORT:-18445}
MACHINES=6 COUNT=60 DELAY=0.2 LEASE_MS=2000
say() { printf '%s\n' "$*" >&2; }
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.2f", e - s }'; }
. "$HERE/scripts/lib/nginx.sh"

PIDS=()
cleanup() {
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	for port in $R1 $R2; do redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; done
	nginx_stop "$WORK/fast" || true
	[ -f "$WORK/apache/httpd.pid" ] && kill "$(cat "$WORK/apache/httpd.pid")" 2>/dev/null || true
}
trap cleanup EXIT

# Images: the project's samples, copied to COUNT (fleet) and 1000 (shards) distinct names.
mkdir -p "$WORK/sources" "$WORK/www/img"
sh "$HERE/scripts/make-samples.sh" "$WORK/sources" >/dev/null
mapfile -t SOURCES < <(ls "$WORK/sources")
for i in $(seq -w 0 999); do
	src=${SOURCES[$((10#$i % ${#SOURCES[@]}))]}
	cp "$WORK/sources/$src" "$WORK/www/img/$i.${src##*.}"
done
# (Not `ls | head`: under pipefail, ls killed by SIGPIPE would end the script.)
ls "$WORK/www/img" > "$WORK/names.txt"
sed -n "1,${COUNT}s|^|http://127.0.0.1:$SLOW_PORT/img/|p" "$WORK/names.txt" > "$WORK/fleet.txt"
sed "s|^|http://127.0.0.1:$FAST_PORT/img/|" "$WORK/names.txt" > "$WORK/list.txt"

python3 "$HERE/scripts/slow-origin.py" "$WORK/www" $SLOW_PORT $DELAY "$WORK/gets.log" &
PIDS+=($!)
for port in $R1 $R2; do
	redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
		--dir "$WORK" --logfile "$WORK/redis-$port.log" --pidfile "$WORK/redis-$port.pid"
done
NGINX_MAX_AGE=86400 nginx_start "$WORK/www" $FAST_PORT "$WORK/fast"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$SLOW_PORT/" && break; sleep 0.1; done
REDIS="redis://127.0.0.1:$R1"

# Starts MACHINES prefetches of fleet.txt with remote storage $1 into fresh caches; their pids in MPIDS.
start_fleet() {
	: > "$WORK/gets.log"
	redis-cli -p $R1 flushall >/dev/null
	rm -rf "$WORK/m" "$WORK/apache/dav/imgcache"
	MPIDS=()
	for m in $(seq $MACHINES); do
		"$IMGCACHE" prefetch -q --no-progress --cache-dir "$WORK/m/$m" --remote-storage "$1" "$WORK/fleet.txt" &
		MPIDS+=($!)
	done
}

# Waits for the machines in MPIDS (in this shell: they are its children); OK = how many exited 0.
wait_fleet() {
	OK=0
	for pid in "${MPIDS[@]}"; do
		if wait "$pid"; then OK=$((OK + 1)); fi
	done
}

# Entries every machine ($@: machine numbers) holds with the origin's bytes.
right_entries() {
	local right=0
	for m in "$@"; do
		right=$((right + $("$IMGCACHE" prefetch --json --offline --no-remote-storage --cache-dir "$WORK/m/$m" "$WORK/fleet.txt" 2>/dev/null |
			python3 -c '
import json, sys
root = sys.argv[1]
right = 0
for line in sys.stdin:
    r = json.loads(line)
    name = r["url"].split("/img/", 1)[1]
    if "path" in r and open(r["path"], "rb").read() == open(f"{root}/img/{name}", "rb").read():
        right += 1
print(right)' "$WORK/www")))
	done
	echo $right
}

# ---- a. Six machines started together.
say "13a. $MACHINES machines, one Redis, $COUNT URLs from an origin answering after ${DELAY}s"
for mode in none lease; do
	remote=$REDIS
	start=$(now)
	if [ $mode = none ]; then
		# The comparison: no remote storage, every machine on its own.
		: > "$WORK/gets.log"; rm -rf "$WORK/m"; MPIDS=()
		for m in $(seq $MACHINES); do
			"$IMGCACHE" prefetch -q --no-progress --cache-dir "$WORK/m/$m" --no-remote-storage "$WORK/fleet.txt" &
			MPIDS+=($!)
		done
	else
		start_fleet "$remote"
	fi
	wait_fleet
	secs=$(since "$start")
	gets=$(wc -l < "$WORK/gets.log")
	right=$(right_entries $(seq $MACHINES))
	label="no remote storage"; [ $mode = lease ] && label="one Redis, leases"
	echo "| 13 fleet: $MACHINES machines started together, $COUNT URLs, origin answers after ${DELAY}s | $label | $secs s, $gets origin GETs, $OK/$MACHINES exit 0, $right/$((MACHINES * COUNT)) entries right | – |"
	[ $mode = lease ] && echo "GOAL|fleet of $MACHINES started together: origin GETs for $COUNT URLs|$gets|$((COUNT + 3))|$right/$((MACHINES * COUNT)) entries right, $secs s"
done

# ---- b. The leaseholder SIGKILLed.
say "13b. the same, the first leaseholder SIGKILLed"
start_fleet "$REDIS|lease=$LEASE_MS"
token=""
for _ in $(seq 500); do
	key=$(redis-cli -p $R1 --scan --pattern 'imgcache:1:lease:*' | head -1)
	[ -n "$key" ] && token=$(redis-cli -p $R1 get "$key") && [ -n "$token" ] && break
	sleep 0.01
done
victim=${token%%-*}
kill -9 "$victim"
killed=$(now)
others=()
for pid in "${MPIDS[@]}"; do [ "$pid" = "$victim" ] || others+=("$pid"); done
MPIDS=("${others[@]}")
wait_fleet
after=$(since "$killed")
gets=$(wc -l < "$WORK/gets.log")
echo "| 13 fleet: the leaseholder SIGKILLed (lease ${LEASE_MS} ms) | one Redis, leases | others done $after s after the kill, $OK/$((MACHINES - 1)) exit 0, $gets origin GETs | – |"
echo "GOAL|leaseholder SIGKILLed: the others' exit after the kill (s)|$after|$(awk -v l=$LEASE_MS 'BEGIN { print l / 1000 + 5 }')|$OK/$((MACHINES - 1)) exit 0; lease + 5 s"

# ---- c. Two Redis shards.
say "13c. two Redis shards, 1000 URLs; then one stopped"
SHARDED="redis://127.0.0.1:*|shards=$R1,$R2"
redis-cli -p $R1 flushall >/dev/null; redis-cli -p $R2 flushall >/dev/null
rm -rf "$WORK/s"
"$IMGCACHE" prefetch -q --no-progress --cache-dir "$WORK/s/a" --remote-storage "$SHARDED" "$WORK/list.txt"
k1=$(redis-cli -p $R1 dbsize) k2=$(redis-cli -p $R2 dbsize)
share=$(awk -v a="$k1" -v b="$k2" 'BEGIN { printf "%.1f", 100 * a / (a + b) }')
redis-cli -p $R2 shutdown nosave >/dev/null 2>&1 || true
nginx_reset_log "$WORK/fast"
start=$(now)
status=0
"$IMGCACHE" prefetch -q --no-progress --cache-dir "$WORK/s/b" --remote-storage "$SHARDED" "$WORK/list.txt" || status=$?
secs=$(since "$start")
gets=$(nginx_requests "$WORK/fast")
echo "| 13 two Redis shards, 1000 URLs | \`redis://127.0.0.1:*\\|shards=A,B\` | $k1 / $k2 keys ($share % / $(awk -v s="$share" 'BEGIN { printf "%.1f", 100 - s }') %) | – |"
echo "| 13 two Redis shards, shard B stopped | same list, new machine | $gets origin GETs for B's $k2 keys, exit $status, $secs s | – |"
echo "GOAL|two shards: larger shard's share of 1000 keys (%)|$(awk -v s="$share" 'BEGIN { printf "%.1f", (s > 50) ? s : 100 - s }')|65|$k1 / $k2 keys"
echo "GOAL|one shard stopped: origin GETs / its keys|$(awk -v g="$gets" -v k="$k2" 'BEGIN { printf "%.2f", g / k }')|1.05|$gets GETs for $k2 keys"

# ---- d. Six machines started together, one Apache mod_dav store.
say "13d. $MACHINES machines, one Apache mod_dav store, $COUNT URLs from an origin answering after ${DELAY}s"
mkdir -p "$WORK/apache/dav"
cat > "$WORK/apache/httpd.conf" <<EOF
ServerRoot $WORK/apache
ServerName 127.0.0.1
Listen 127.0.0.1:$DAV_PORT
PidFile $WORK/apache/httpd.pid
DefaultRuntimeDir $WORK/apache
ErrorLog $WORK/apache/error.log
LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule dav_module /usr/lib/apache2/modules/mod_dav.so
LoadModule dav_fs_module /usr/lib/apache2/modules/mod_dav_fs.so
DAVLockDB $WORK/apache/davlock
KeepAliveTimeout 60
MaxKeepAliveRequests 0
DocumentRoot $WORK/apache/dav
<Directory $WORK/apache/dav>
    Dav On
    Require all granted
</Directory>
EOF
/usr/sbin/apache2 -f "$WORK/apache/httpd.conf" -k start
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$DAV_PORT/" && break; sleep 0.1; done
start=$(now)
start_fleet "http://127.0.0.1:$DAV_PORT/"
wait_fleet
secs=$(since "$start")
gets=$(wc -l < "$WORK/gets.log")
right=$(right_entries $(seq $MACHINES))
echo "| 13 fleet: $MACHINES machines started together, $COUNT URLs, origin answers after ${DELAY}s | one Apache mod_dav store, leases by conditional PUT | $secs s, $gets origin GETs, $OK/$MACHINES exit 0, $right/$((MACHINES * COUNT)) entries right | – |"
echo "GOAL|fleet of $MACHINES on one Apache store: origin GETs for $COUNT URLs|$gets|$((COUNT + 3))|$right/$((MACHINES * COUNT)) entries right, $secs s"
