#!/usr/bin/env bash
# Issue 34's rows, in counts a noisy machine cannot blur, run by scripts/bench.sh or alone:
#   bash scripts/bench-counts.sh PATH/TO/imgcache [ROW...]     (rows: warm thumbnail cold clean; default all)
# Prints markdown table rows on stdout, then GOAL|name|ratio|limit|note lines; progress on stderr.
# Counts: shared libraries the loader initialises (LD_DEBUG=libs), system calls (strace -f -c),
# instructions (valgrind --tool=callgrind, on a copy without DWARF: valgrind 3.19 cannot read the
# Swift toolchain's); times: medians of hyperfine runs, interleaved.
set -euo pipefail
IMGCACHE=$(readlink -f "${1:?usage: bench-counts.sh PATH/TO/imgcache [warm|thumbnail|cold|clean]...}")
shift
ROWS_WANTED=${*:-warm thumbnail cold clean}
HERE=$(cd "$(dirname "$0")/.." && pwd)
. "$HERE/scripts/lib/corpus.sh"
. "$HERE/scripts/lib/nginx.sh"
. "$HERE/scripts/lib/ports.sh"
W=$(mktemp -d /tmp/imgcache-bench-counts.XXXXXX)
chmod 755 "$W"
PORT=$(free_ports 1)
trap 'nginx_stop "$W/nginx"; rm -rf "$W"' EXIT
say() { printf '%s\n' "$*" >&2; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
wants() { case " $ROWS_WANTED " in *" $1 "*) return 0 ;; esac; return 1; }
for tool in strace valgrind hyperfine; do
	command -v $tool >/dev/null || { say "bench-counts: $tool is not installed (make deps installs it)"; exit 1; }
done
objcopy --strip-debug "$IMGCACHE" "$W/imgcache"
IC=$W/imgcache

# instructions COMMAND...: the instructions callgrind counts for one run (all threads, the loader included).
# callgrind counts each iteration of `rep movsb` as an instruction, and glibc's memcpy uses it above
# 2 KiB here: a hardware counter sees one. VECTOR_COPY (glibc's tunable) makes memcpy copy with vector
# moves instead, which callgrind counts as a CPU retires them; the cold row reports both counts.
VECTOR_COPY=glibc.cpu.x86_rep_movsb_threshold=4294967295
instructions() {
	valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$@" 2>&1 >/dev/null </dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' | tail -1
}
# syscalls COMMAND...: "total failed" system calls of one run, every thread and child (strace -f -c).
syscalls() {
	strace -f -c -o "$W/strace.txt" "$@" >/dev/null 2>&1 </dev/null || true
	awk '$NF == "total" { print $(NF-2), ($(NF-1) ~ /^[0-9]+$/ ? $(NF-1) : 0) }' "$W/strace.txt"
}
# libraries COMMAND...: how many shared objects the loader initialises (LD_DEBUG=libs "calling init").
libraries() { LD_DEBUG=libs "$@" 2>&1 >/dev/null </dev/null | grep -c "calling init" || true; }
# median_ms COMMAND...: hyperfine's median wall time in ms (30 runs after 3 warm-ups, no shell).
declare -A MEDIAN=()
medians() {  # COMMAND...: fills MEDIAN[command] for each, runs interleaved by hyperfine
	hyperfine -N --warmup 3 --runs "${HF_RUNS:-30}" --export-json "$W/hf.json" "$@" >/dev/null 2>&1
	while IFS='|' read -r cmd m; do MEDIAN[$cmd]=$m; done < <(python3 - "$W/hf.json" <<'PY'
import json, sys, statistics
for r in json.load(open(sys.argv[1]))["results"]:
    print(f'{r["command"]}|{statistics.median(r["times"]) * 1000:.2f}')
PY
)
}
show() { local s=${1//$W\//}; s=${s//$IC/imgcache}; printf '%s' "${s//$HERE\//}"; }

mkdir -p "$W/www/img" "$W/www/big"
NGINX_MAX_AGE=86400 nginx_start "$W/www" $PORT "$W/nginx"
u=http://127.0.0.1:$PORT

# ---- 17. Warm hit and --version vs cat and curl file:// (issue 34 part 4).
if wants warm; then
	say "17. warm hit, --version"
	src=$(find "$CORPUS" -name '*.webp' -size -200k 2>/dev/null | sort | head -1 || true)
	[ -n "$src" ] || { convert -size 400x300 plasma:fractal "$W/src.webp"; src=$W/src.webp; }
	cp "$src" "$W/www/img/000.webp"
	FILE=$W/www/img/000.webp
	"$IC" fetch -q --cache-dir "$W/c1" -o /dev/null "$u/img/000.webp"
	hit=("$IC" fetch --cache-dir "$W/c1" "$u/img/000.webp" -o "$W/out1")
	version=("$IC" --version)
	curl_file=(curl -s "file://$FILE" -o "$W/out2")
	cat_file=(cat "$FILE")
	medians "${hit[*]}" "${version[*]}" "${curl_file[*]}" "${cat_file[*]}"
	for c in hit version curl_file cat_file; do
		declare -n cmd=$c
		read -r calls failed <<< "$(syscalls "${cmd[@]}")"
		row="| 17 warm hit, --version | \`$(show "${cmd[*]}")\` | ${MEDIAN[${cmd[*]}]} ms, $(libraries "${cmd[@]}") shared libraries initialised, $calls system calls ($failed failed), $(instructions "${cmd[@]}") instructions |"
		case $c in
			hit) row+=" 1.00 |" ;;
			*) row+=" $(ratio "${MEDIAN[${cmd[*]}]}" "${MEDIAN[${hit[*]}]}") |" ;;
		esac
		echo "$row"
	done
	echo "GOAL|warm hit vs \`curl -s file://\` (issue 34)|$(ratio "${MEDIAN[${hit[*]}]}" "${MEDIAN[${curl_file[*]}]}")|0.5|${MEDIAN[${hit[*]}]} ms vs ${MEDIAN[${curl_file[*]}]} ms"
	echo "GOAL|warm hit vs \`cat\` (issue 34)|$(ratio "${MEDIAN[${hit[*]}]}" "${MEDIAN[${cat_file[*]}]}")|2.5|${MEDIAN[${hit[*]}]} ms vs ${MEDIAN[${cat_file[*]}]} ms"
	echo "GOAL|\`imgcache --version\` vs \`cat\` (issue 34)|$(ratio "${MEDIAN[${version[*]}]}" "${MEDIAN[${cat_file[*]}]}")|2.0|${MEDIAN[${version[*]}]} ms vs ${MEDIAN[${cat_file[*]}]} ms"
fi

# ---- 18. A 20 MP JPEG → 1024 px thumbnail vs the decode it cannot avoid (issue 34 part 2).
if wants thumbnail; then
	say "18. thumbnail vs djpeg -scale 1/4"
	big=$CORPUS/jpeg_large-20MP_photo_lomiri-kleiber.jpg
	if [ -f "$big" ]; then cp "$big" "$W/www/big/big.jpg"; else
		convert -size 6000x3400 plasma:fractal -quality 90 "$W/www/big/big.jpg"; fi
	"$IC" fetch -q --cache-dir "$W/c2" -o /dev/null "$u/big/big.jpg"
	thumb=("$IC" fetch --cache-dir "$W/c2" --offline --no-store --thumbnail 1024x1024 --decode ppm -o "$W/thumb.ppm" "$u/big/big.jpg")
	djpeg4=(djpeg -scale 1/4 -ppm -outfile "$W/djpeg4.ppm" "$W/www/big/big.jpg")
	others=("${thumb[*]}" "${djpeg4[*]}")
	command -v vipsthumbnail >/dev/null && others+=("vipsthumbnail $W/www/big/big.jpg --size 1024x1024 -o $W/thumb-vips.ppm")
	HF_RUNS=${HF_RUNS_THUMB:-15} medians "${others[@]}"
	for c in "${others[@]}"; do
		read -r -a argv <<< "$c"
		r=$(ratio "${MEDIAN[$c]}" "${MEDIAN[${thumb[*]}]}")
		echo "| 18 thumbnail 20 MP → 1024 px | \`$(show "$c")\` | ${MEDIAN[$c]} ms, $(instructions "${argv[@]}") instructions | $r |"
	done
	echo "GOAL|thumbnail 20 MP → 1024 px vs \`djpeg -scale 1/4\` (issue 34)|$(ratio "${MEDIAN[${thumb[*]}]}" "${MEDIAN[${djpeg4[*]}]}")|1.15|${MEDIAN[${thumb[*]}]} ms vs ${MEDIAN[${djpeg4[*]}]} ms"
fi

# ---- 19. A cold prefetch of 1000 URLs -j6 vs curl -Z, per URL (issue 34 part 3).
if wants cold; then
	say "19. cold URLs: system calls and instructions per URL"
	n=0
	for src in $(find "$CORPUS" -type f -size -200k \( -name '*.jpg' -o -name '*.png' -o -name '*.gif' -o -name '*.webp' \) 2>/dev/null | sort | head -24); do
		cp "$src" "$W/www/img/src$n.${src##*.}"; n=$((n + 1))
	done
	[ "$n" -gt 0 ] || { convert -size 200x150 plasma:fractal "$W/www/img/src0.jpg"; n=1; }
	mapfile -t srcs < <(ls "$W/www/img" | grep '^src')
	for i in $(seq -w 0 999); do ln -f "$W/www/img/${srcs[$((10#$i % ${#srcs[@]}))]}" "$W/www/img/u$i.${srcs[$((10#$i % ${#srcs[@]}))]##*.}"; done
	ls "$W/www/img" | grep '^u' | sed "s|^|$u/img/|" > "$W/list.txt"
	awk -v d="$W/curlz" '{ n=$0; sub(".*/", "", n); print "url = \"" $0 "\"\noutput = \"" d "/" n "\"" }' "$W/list.txt" > "$W/curl.cfg"
	fresh() { rm -rf "$W/cold" "$W/curlz"; mkdir -p "$W/curlz"; }
	prefetch=("$IC" prefetch -q -j6 --cache-dir "$W/cold" "$W/list.txt")
	curlz=(curl -s -Z --parallel-max 6 -K "$W/curl.cfg")
	FS='^(openat|open|creat|fcntl|flock|newfstatat|fstat|stat|lstat|statx|rename|renameat|renameat2|unlink|unlinkat|mkdir|mkdirat|ftruncate|fsync|fdatasync|fsetxattr|setxattr|fgetxattr|getxattr|linkat|link|getdents64|utimensat|close|pwrite64|write|pread64|read|lseek|fallocate|faccessat|faccessat2|access)$'
	for c in prefetch curlz; do
		declare -n cmd=$c
		fresh
		# strace's own count (-c): calls and errors per system call. Parsing a
		# -f trace instead missed every failure whose result came on a
		# "<... resumed>" line (a failing openat of another thread's making).
		strace -f -c -o "$W/summary.txt" "${cmd[@]}" >/dev/null 2>&1 || true
		awk 'NF >= 5 && $NF != "total" && $4 ~ /^[0-9]+$/ { print $NF, $4, (NF >= 6 ? $5 : 0) }' "$W/summary.txt" > "$W/calls-$c.txt"
		total=$(awk '{ s += $2 } END { print s + 0 }' "$W/calls-$c.txt")
		fs=$(awk -v re="$FS" '$1 ~ re { s += $2 } END { print s + 0 }' "$W/calls-$c.txt")
		fs_failed=$(awk -v re="$FS" '$1 ~ re { s += $3 } END { print s + 0 }' "$W/calls-$c.txt")
		openat_failed=$(awk '$1 == "openat" { print $3 + 0 }' "$W/calls-$c.txt")
		sigaction=$(awk '$1 == "rt_sigaction" { print $2 + 0 }' "$W/calls-$c.txt")
		fresh
		ins=$(instructions "${cmd[@]}")
		fresh
		ins_vector=$(GLIBC_TUNABLES=$VECTOR_COPY instructions "${cmd[@]}")
		fresh
		start=$(date +%s.%N); "${cmd[@]}" >/dev/null 2>&1 || true; wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3f", e - s }')
		declare -g "TOTAL_$c=$total" "FS_$c=$fs" "INS_$c=$ins" "INSV_$c=$ins_vector" "WALL_$c=$wall"
		per() { awk -v a="$1" 'BEGIN { printf "%.1f", a / 1000 }'; }
		echo "| 19 cold 1000 URLs -j6, per URL | \`$(show "${cmd[*]}")\` | $(per "$total") system calls ($(per "${sigaction:-0}") rt_sigaction), $(per "$fs") on files ($(per "$fs_failed") failing, $(per "${openat_failed:-0}") failing openat), $(per "$ins") instructions (callgrind's count, a \`rep movsb\` byte by byte), $(per "$ins_vector") with memcpy's vector copy (\`GLIBC_TUNABLES=$VECTOR_COPY\`); one run $wall s | – |"
		awk -v re="$FS" '$1 ~ re' "$W/calls-$c.txt" | sort -k2 -nr | head -12 | awk -v c="$c" '{ printf "%s %s: %s calls, %s failing\n", c, $1, $2, $3 }' >&2
	done
	echo "GOAL|cold URL file-system calls vs \`curl -Z\`'s + 2 per URL (issue 34)|$(awk -v a="$FS_prefetch" -v b="$FS_curlz" 'BEGIN { printf "%.1f", (a - b) / 1000 }')|2|$FS_prefetch vs $FS_curlz calls for 1000 URLs"
	echo "GOAL|cold URL instructions vs \`curl -Z\` (issue 34)|$(ratio "$INSV_prefetch" "$INSV_curlz")|1.3|$INSV_prefetch vs $INSV_curlz with memcpy's vector copy; callgrind's raw count $INS_prefetch vs $INS_curlz ($(ratio "$INS_prefetch" "$INS_curlz")×)"
	echo "GOAL|cold 1000 URLs wall vs \`curl -Z\`, one run each (issue 34)|$(ratio "$WALL_prefetch" "$WALL_curlz")|1.0|$WALL_prefetch s vs $WALL_curlz s"
fi

# ---- 7c. `clean` of a 100 000-entry cache with nothing expired vs `find -mtime +7 -delete`, per entry
# (issue 34 part 5; row 7 times it). Both make one getdents64 pass per directory and one newfstatat per
# entry, so the kernel's work is the same; instructions are the user-space work beside it. CLEAN_ENTRIES
# sets the size (the cache is made by one prefetch of as many URLs). Row 7's goal (≤ 0.5 × find's time) is
# bench.sh's; the ratio here is from HF_RUNS_CLEAN (20) runs of each.
if wants clean; then
	say "7c. clean vs find: system calls and instructions per entry"
	N=${CLEAN_ENTRIES:-100000}
	src=$(find "$CORPUS" -type f -size -200k -name '*.jpg' 2>/dev/null | sort | head -1 || true)
	[ -n "$src" ] || { convert -size 200x150 plasma:fractal "$W/src.jpg"; src=$W/src.jpg; }
	cp "$src" "$W/www/img/clean.jpg"
	seq 1 "$N" | sed "s|^|$u/img/clean.jpg?n=|" > "$W/clean-list.txt"
	"$IC" prefetch -q -j 16 --cache-dir "$W/c7" "$W/clean-list.txt"
	rm -rf "$W/c7/stats"
	clean=("$IC" clean -q --cache-dir "$W/c7" --max-age 7d)
	find_delete=(find "$W/c7" -mtime +7 -delete)
	HF_RUNS=${HF_RUNS_CLEAN:-20} medians "${clean[*]}" "${find_delete[*]}"
	per() { awk -v a="$1" -v n="$N" 'BEGIN { printf "%.2f", a / n }'; }
	for c in clean find_delete; do
		declare -n cmd=$c
		strace -f -c -o "$W/summary.txt" "${cmd[@]}" >/dev/null 2>&1 || true
		calls() { awk -v s="$1" '$NF == s { print $4 + 0 }' "$W/summary.txt"; }
		ins=$(instructions "${cmd[@]}")
		declare -g "INS_$c=$ins"
		echo "| 7c clean $N entries, nothing expired, per entry | \`$(show "${cmd[*]}")\` | ${MEDIAN[${cmd[*]}]} ms, $(per "$(calls total)") system calls ($(calls newfstatat) newfstatat, $(calls getdents64) getdents64 in all), $(per "$ins") instructions ($ins in all) | $(ratio "${MEDIAN[${cmd[*]}]}" "${MEDIAN[${clean[*]}]}") |"
	done
fi
