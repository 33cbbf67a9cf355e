# Sourced by the benchmark scripts: a throwaway nginx on 127.0.0.1 serving one
# directory, with its own config, logs and pid file in a temporary directory.
# The access log records each request's connection serial number, so the
# benchmarks can count TCP connections.

# nginx_start ROOT PORT WORKDIR: serves ROOT on 127.0.0.1:PORT.
# Cache-Control max-age comes from $NGINX_MAX_AGE (default one day).
nginx_start() {
	root=$1 port=$2 work=$3
	mkdir -p "$work/logs" "$work/tmp"
	cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	log_format conn '\$connection \$status \$request_method \$request_uri';
	client_body_temp_path $work/tmp;
	proxy_temp_path $work/tmp;
	fastcgi_temp_path $work/tmp;
	uwsgi_temp_path $work/tmp;
	scgi_temp_path $work/tmp;
	keepalive_requests 100000;
	types { image/jpeg jpg; image/png png; image/gif gif; image/webp webp; }
	server {
		listen 127.0.0.1:$port;
		root $root;
		access_log $work/logs/access.log conn buffer=64k flush=100ms;
		add_header Cache-Control "max-age=${NGINX_MAX_AGE:-86400}";
	}
}
CONF
	/usr/sbin/nginx -c "$work/nginx.conf" -p "$work" -e "$work/logs/error.log"
	for _ in $(seq 50); do
		curl -s -o /dev/null "http://127.0.0.1:$port/" && return 0
		sleep 0.1
	done
	echo "nginx did not start on 127.0.0.1:$port" >&2
	return 1
}

# nginx_stop WORKDIR
nginx_stop() {
	[ -f "$1/nginx.pid" ] && kill "$(cat "$1/nginx.pid")" 2>/dev/null
	sleep 0.2
}

# nginx_reset_log WORKDIR: empties the access log (nginx reopens on USR1).
nginx_reset_log() {
	sleep 0.2
	: > "$1/logs/access.log"
}

# nginx_requests WORKDIR / nginx_connections WORKDIR: counts since the last reset.
nginx_requests() { sleep 0.3; wc -l < "$1/logs/access.log" | tr -d ' '; }
nginx_connections() { sleep 0.3; cut -d' ' -f1 "$1/logs/access.log" | sort -u | wc -l | tr -d ' '; }
