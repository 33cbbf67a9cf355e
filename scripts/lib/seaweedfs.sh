# Sourced by the benchmark scripts: a throwaway SeaweedFS S3 server on
# 127.0.0.1 (the `weed` that `make deps` puts into .venv), with an identities
# file so requests are signed and checked, telemetry off, every port given.

# seaweedfs_start WORKDIR FIRST_PORT: S3 on FIRST_PORT, its other servers on
# the next eleven ports; sets S3_ENDPOINT and exports the AWS_* variables
# imgcache reads. seaweedfs_stop WORKDIR ends it.
seaweedfs_start() {
	local work=$1 p=$2 weed
	weed=${IMGCACHE_WEED:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.venv/bin/weed}
	mkdir -p "$work/data" "$work/log"
	cat > "$work/s3.json" <<JSON
{"identities": [{"name": "bench", "credentials": [{"accessKey": "AKIDBENCH", "secretKey": "bench-secret"}],
  "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
JSON
	"$weed" -logdir="$work/log" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$work/data" \
		-master.telemetry=false -filer -s3 -s3.config="$work/s3.json" -volume.max=0 -master.volumeSizeLimitMB=64 \
		-s3.port=$p -s3.port.grpc=$((p + 1)) -master.port=$((p + 2)) -master.port.grpc=$((p + 3)) \
		-volume.port=$((p + 4)) -volume.port.grpc=$((p + 5)) -filer.port=$((p + 6)) -filer.port.grpc=$((p + 7)) \
		-s3.port.iceberg=$((p + 8)) -s3.port.lance=$((p + 9)) -iam.port=$((p + 10)) -metricsPort=$((p + 11)) \
		> "$work/weed.out" 2>&1 &
	echo $! > "$work/weed.pid"
	S3_ENDPOINT=http://127.0.0.1:$p
	export AWS_ENDPOINT_URL=$S3_ENDPOINT AWS_ACCESS_KEY_ID=AKIDBENCH AWS_SECRET_ACCESS_KEY=bench-secret AWS_REGION=us-east-1
	for _ in $(seq 300); do s3_request PUT /imgcache-ready >/dev/null 2>&1 && return 0; sleep 0.2; done
	echo "SeaweedFS did not start (see $work/weed.out)" >&2
	return 1
}

seaweedfs_stop() {
	[ -f "$1/weed.pid" ] && kill -9 "$(cat "$1/weed.pid")" 2>/dev/null || true
}

# s3_request METHOD PATH: one signed request; fails unless it answers 2xx.
s3_request() {
	curl -sf --max-time 30 -X "$1" --aws-sigv4 aws:amz:us-east-1:s3 -u "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$S3_ENDPOINT$2"
}
