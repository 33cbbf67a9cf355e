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
#   d. as a., with one Apache mod_dav store, and with one nginx WebDAV store
#      with MKCOL in dav_methods (leases: collections made by MKCOL);
#   e. as a., with one S3 bucket (SeaweedFS; leases by conditional PUT);
#   f. a dead leaseholder on each store (Redis, Apache, nginx, S3), default settings:
#      seconds from its SIGKILL until the others are done (goal: 10);
#   g. a prefetch of 1000 URLs from a warm S3 store against the origin, and
#      curl -Z's GETs of the same objects from each server (the servers' cost).
# SeaweedFS comes from .venv (`make deps`); without it, rows e–g are skipped.
set -euo pipefail
IMGCACHE=$(readlink -f "${1:?usage: bench-fleet.sh PATH/TO/imgcache [WORKDIR]}")
HERE=$(cd "$(dirname "$0")/.." && pwd)
WORK=${2:-$(mktemp -d /tmp/imgcache-fleet.XXXXXX)}
mkdir -p "$WORK"
chmod 755 "$WORK"  # nginx workers run as another user (mktemp makes it 0700)
. "$HERE/scripts/lib/ports.sh"
SLOW_PORT=$(free_ports 6) && R1=$((SLOW_PORT + 1)) R2=$((SLOW_PORT + 2)) FAST_PORT=$((SLOW_PORT + 3)) DAV_PORT=$((SLOW_PORT + 4))
NGINX_DAV_PORT=$((SLOW_PORT + 5))
S3_PORT=$(free_ports 12)  # and the eleven after it
MACHINES=6 COUNT=60 DELAY=0.2 RUNS=${RUNS:-3}
say() { printf '%s\n' "$*" >&2; }
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.2f", e - s }'; }
. "$HERE/scripts/lib/nginx.sh"
. "$HERE/scripts/lib/seaweedfs.sh"

PIDS=()
cleanup() {
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	for port in $R1 $R2; do redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; done
	nginx_stop "$WORK/fast" || true
	[ -f "$WORK/ngdav/nginx.pid" ] && kill "$(cat "$WORK/ngdav/nginx.pid")" 2>/dev/null || true
	[ -f "$WORK/apache/httpd.pid" ] && kill "$(cat "$WORK/apache/httpd.pid")" 2>/dev/null || true
	seaweedfs_stop "$WORK/s3"
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
HAVE_S3=0
if [ -x "${IMGCACHE_WEED:-$HERE/.venv/bin/weed}" ] && seaweedfs_start "$WORK/s3" $S3_PORT; then HAVE_S3=1; fi
FILER="http://127.0.0.1:$((S3_PORT + 6))"  # SeaweedFS's own HTTP API: lists a bucket's objects without a query to sign
# A new bucket per use, named in BUCKET: a fleet starts from an empty store.
BUCKETS=0
new_bucket() { BUCKETS=$((BUCKETS + 1)); BUCKET=fleet-$BUCKETS; s3_request PUT "/$BUCKET" >/dev/null; }

# Apache mod_dav (rows d and f).
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

# nginx's WebDAV module with MKCOL, as a store that holds leases (rows d and f).
mkdir -p "$WORK/ngdav/dav" "$WORK/ngdav/tmp"
chmod 1777 "$WORK/ngdav/dav"  # its workers run as nobody when the bench runs as root
cat > "$WORK/ngdav/nginx.conf" <<EOF
worker_processes 1;
pid $WORK/ngdav/nginx.pid;
error_log $WORK/ngdav/error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	client_body_temp_path $WORK/ngdav/tmp;
	keepalive_requests 100000;
	server {
		listen 127.0.0.1:$NGINX_DAV_PORT;
		location / { root $WORK/ngdav/dav; dav_methods PUT DELETE MKCOL; create_full_put_path on; }
	}
}
EOF
/usr/sbin/nginx -c "$WORK/ngdav/nginx.conf" -p "$WORK/ngdav" -e "$WORK/ngdav/error.log"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$NGINX_DAV_PORT/" && break; sleep 0.1; done

# Starts MACHINES prefetches of fleet.txt with remote storage $1 into fresh caches; their pids in MPIDS.
start_fleet() {
	: > "$WORK/gets.log"
	redis-cli -p $R1 flushall >/dev/null
	rm -rf "$WORK/m" "$WORK/apache/dav/imgcache" "$WORK/ngdav/dav/imgcache"
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

# After the fleet started at time $1: waits for it (wait_fleet), then sets
# secs, gets (origin GETs) and right (entries holding the origin's bytes).
fleet_done() {
	wait_fleet
	secs=$(since "$1")
	gets=$(wc -l < "$WORK/gets.log")
	right=$(right_entries $(seq $MACHINES))
}

# Starts the fleet on remote storage $1 and times it to its end (fleet_done).
run_fleet() {
	local started
	started=$(now)
	start_fleet "$1"
	fleet_done "$started"
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
	fleet_done "$start"
	label="no remote storage"; [ $mode = lease ] && label="one Redis, leases"
	echo "| 13 fleet: $MACHINES machines started together, $COUNT URLs, origin answers after ${DELAY}s | $label | $secs s, $gets origin GETs, $OK/$MACHINES exit 0, $right/$((MACHINES * COUNT)) entries right | – |"
	[ $mode = lease ] && echo "GOAL|fleet of $MACHINES started together: origin GETs for $COUNT URLs|$gets|$((COUNT + 3))|$right/$((MACHINES * COUNT)) entries right, $secs s"
done

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

# ---- d. Six machines started together, one Apache mod_dav store; then one nginx store.
for dav in "http://127.0.0.1:$DAV_PORT/|one Apache mod_dav store" \
	"http://127.0.0.1:$NGINX_DAV_PORT/|one nginx WebDAV store (MKCOL in dav_methods)"; do
	IFS='|' read -r store label <<< "$dav"
	say "13d. $MACHINES machines, $label, $COUNT URLs from an origin answering after ${DELAY}s"
	run_fleet "$store"
	echo "| 13 fleet: $MACHINES machines started together, $COUNT URLs, origin answers after ${DELAY}s | $label, leases by MKCOL | $secs s, $gets origin GETs, $OK/$MACHINES exit 0, $right/$((MACHINES * COUNT)) entries right | – |"
	echo "GOAL|fleet of $MACHINES on $label: origin GETs for $COUNT URLs|$gets|$COUNT|$right/$((MACHINES * COUNT)) entries right, $secs s"
done

# ---- e. Six machines started together, one S3 bucket.
if [ $HAVE_S3 = 1 ]; then
	say "13e. $MACHINES machines, one S3 bucket (SeaweedFS), $COUNT URLs from an origin answering after ${DELAY}s"
	new_bucket
	run_fleet "s3://$BUCKET"
	echo "| 13 fleet: $MACHINES machines started together, $COUNT URLs, origin answers after ${DELAY}s | one S3 bucket (SeaweedFS), leases by conditional PUT | $secs s, $gets origin GETs, $OK/$MACHINES exit 0, $right/$((MACHINES * COUNT)) entries right | – |"
	echo "GOAL|fleet of $MACHINES on one S3 bucket: origin GETs per URL|$(awk -v g="$gets" -v c=$COUNT 'BEGIN { printf "%.2f", g / c }')|1.05|$gets GETs for $COUNT URLs, $right/$((MACHINES * COUNT)) entries right, $secs s"
fi

# ---- f. The leaseholder SIGKILLed, on each store, default settings.
# dead_leaseholder STORE LABEL: starts the fleet on STORE, waits for the
# first lease, reads its holder's pid from its token (`PID-…`) with
# lease_token, SIGKILLs it, and times the others until they are done.
dead_leaseholder() {
	local store=$1 label=$2 token="" victim killed after others=()
	start_fleet "$store"
	for _ in $(seq 1000); do
		token=$(lease_token || true)
		[ -n "$token" ] && break
		sleep 0.01
	done
	victim=${token%%-*}
	if [ -z "$victim" ]; then
		# No lease was seen to kill (a listing that failed throughout, or a
		# fleet done first): the row says so and leaves its goal out.
		wait_fleet
		echo "| 13 fleet: the leaseholder SIGKILLed, default lease | $label | no lease seen to kill; the fleet ran to its end | – |"
		say "13f. $label: no lease seen, row skipped"
		return 0
	fi
	kill -9 "$victim"
	killed=$(now)
	for pid in "${MPIDS[@]}"; do [ "$pid" = "$victim" ] || others+=("$pid"); done
	MPIDS=("${others[@]}")
	wait_fleet
	after=$(since "$killed")
	gets=$(wc -l < "$WORK/gets.log")
	echo "| 13 fleet: the leaseholder SIGKILLed, default lease | $label | others done $after s after the kill, $OK/$((MACHINES - 1)) exit 0, $gets origin GETs | – |"
	echo "GOAL|leaseholder SIGKILLed, $label: the others done after the kill (s)|$after|10|$OK/$((MACHINES - 1)) exit 0, default settings"
}
say "13f. a dead leaseholder on each store, default settings"
lease_token() {
	local key
	key=$(redis-cli -p $R1 --scan --pattern 'imgcache:1:lease:*' | head -1)
	[ -n "$key" ] && redis-cli -p $R1 get "$key"
}
dead_leaseholder "$REDIS" "one Redis"
for server in apache ngdav; do
	lease_token() {
		local file
		file=$(find "$WORK/$server/dav/imgcache" -path '*.lease.d/holder' 2>/dev/null | head -1)
		[ -n "$file" ] && sed -n 's/^token //p' "$file"
	}
	if [ $server = apache ]; then
		dead_leaseholder "http://127.0.0.1:$DAV_PORT/" "one Apache mod_dav store"
	else
		dead_leaseholder "http://127.0.0.1:$NGINX_DAV_PORT/" "one nginx WebDAV store (MKCOL)"
	fi
done
if [ $HAVE_S3 = 1 ]; then
	new_bucket
	lease_token() {
		local path
		path=$(curl -s -H 'Accept: application/json' "$FILER/buckets/$BUCKET/imgcache/1/?limit=10000" |
			python3 -c 'import json, sys
try: entries = json.load(sys.stdin).get("Entries") or []
except ValueError: entries = []  # the listing before the first object
print(next((e["FullPath"] for e in entries if e["FullPath"].endswith(".lease")), ""))')
		[ -n "$path" ] && s3_request GET "${path#/buckets}" | sed -n 's/^token //p'
	}
	dead_leaseholder "s3://$BUCKET" "one S3 bucket (SeaweedFS)"
fi

# ---- g. A prefetch of 1000 URLs from a warm S3 store against the origin
# (the fast nginx), each into an empty local cache; medians of $RUNS.
if [ $HAVE_S3 = 1 ]; then
	say "13g. prefetch of 1000 from a warm S3 store vs from the origin"
	new_bucket
	WARM="s3://$BUCKET"
	"$IMGCACHE" prefetch -q --no-progress --cache-dir "$WORK/g/warm" --remote-storage "$WARM" "$WORK/list.txt"
	origin_times="" s3_times=""
	for _ in $(seq "$RUNS"); do
		for source in origin s3; do
			rm -rf "$WORK/g/run"
			args=(--no-remote-storage); [ $source = s3 ] && args=(--remote-storage "$WARM")
			start=$(now)
			"$IMGCACHE" prefetch -q --no-progress --cache-dir "$WORK/g/run" "${args[@]}" "$WORK/list.txt"
			t=$(since "$start")
			if [ $source = s3 ]; then s3_times+="$t "; else origin_times+="$t "; fi
		done
	done
	# The servers' own cost: curl -Z, six at once, GETs the same 1000
	# objects from the bucket (signed as we sign) and from nginx. SeaweedFS
	# answers a GET through its filer and volume server, several times
	# slower than nginx serves a file: that ratio is the floor of ours.
	curl -s -H 'Accept: application/json' "$FILER/buckets/$BUCKET/imgcache/1/?limit=10000" |
		python3 -c 'import json, sys; [print(e["FullPath"]) for e in json.load(sys.stdin)["Entries"] if len(e["FullPath"].rsplit("/", 1)[1]) == 64]' |
		sed "s|^/buckets|$S3_ENDPOINT|; s|^|url = \"|; s|\$|\"\noutput = \"/dev/null\"|" > "$WORK/g/s3.curl"
	sed 's|^|url = "|; s|$|"\noutput = "/dev/null"|' "$WORK/list.txt" > "$WORK/g/origin.curl"
	curl_origin_times="" curl_s3_times=""
	for _ in $(seq "$RUNS"); do
		start=$(now); curl -s -Z --parallel-max 6 -K "$WORK/g/origin.curl"; curl_origin_times+="$(since "$start") "
		start=$(now)
		curl -s -Z --parallel-max 6 --aws-sigv4 aws:amz:us-east-1:s3 -u "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
			-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -K "$WORK/g/s3.curl"
		curl_s3_times+="$(since "$start") "
	done
	median_of() { echo $1 | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {printf "%.3f", (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }
	o=$(median_of "$origin_times") w=$(median_of "$s3_times")
	co=$(median_of "$curl_origin_times") cs=$(median_of "$curl_s3_times")
	objects=$(grep -c '^url' "$WORK/g/s3.curl" || true)
	echo "| 13 prefetch 1000 from a warm S3 store (SeaweedFS) | \`imgcache prefetch --remote-storage s3://… list\` | $w s (origin: $o s) | $(awk -v a="$o" -v b="$w" 'BEGIN { printf "%.2f", a / b }') (origin / this) |"
	echo "| 13 the servers alone: curl -Z GETs the $objects objects, signed, and the 1000 files from nginx | \`curl -Z --aws-sigv4 …\` | $cs s (nginx: $co s) | $(awk -v a="$co" -v b="$cs" 'BEGIN { printf "%.2f", a / b }') (nginx / SeaweedFS) |"
	echo "GOAL|warm S3 store vs origin, prefetch of 1000 (issue 32)|$(awk -v a="$w" -v b="$o" 'BEGIN { printf "%.2f", a / b }')|1.2|$w s vs $o s; curl -Z alone: SeaweedFS $cs s vs nginx $co s ($(awk -v a="$cs" -v b="$co" 'BEGIN { printf "%.2f", a / b }')×)"
fi
