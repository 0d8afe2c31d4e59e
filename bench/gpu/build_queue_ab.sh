#!/usr/bin/env bash
# Builds what bench/gpu/queue_overhead.sh and queue_ab.sh run on the GPU
# host (no Go there): this tree's hmmgo and a baseline checkout's, side by
# side, and a redis-server with its libraries (as build_queue.sh does).
#   bench/gpu/build_queue_ab.sh BASE_CHECKOUT [OUTDIR]
# OUTDIR (default .dev/qover) gets new/hmmgo, base/hmmgo, redis/ and the
# scripts; carry it, e.g. build into the lead's checkout's .dev/qover.
set -eu
base=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$here/.dev/qover}
mkdir -p "$out/new" "$out/base" "$out/redis/bin" "$out/redis/lib"
out=$(cd "$out" && pwd)
export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
(cd "$here" && go build -trimpath -ldflags="-s -w" -o "$out/new/hmmgo" ./cmd/hmmgo)
(cd "$base" && go build -trimpath -ldflags="-s -w" -o "$out/base/hmmgo" ./cmd/hmmgo)
# This tree's GPU tests (bench/gpu/queue_overhead.sh TESTS=1).
mkdir -p "$out/tests"
for p in msvfilter vitfilter biasfilter hmmsearch; do
	(cd "$here" && go test -c -trimpath -ldflags="-s -w" -o "$out/tests/$p.test" ./hmmer3/$p)
done
echo "new: $(git -C "$here" rev-parse --short HEAD); base: $(git -C "$base" rev-parse --short HEAD)" > "$out/builds.txt"
server=$(command -v redis-server) || { echo "build_queue_ab.sh: install redis-server here first" >&2; exit 1; }
real=$(readlink -f "$server")
cp "$real" "$out/redis/bin/redis-server"
for lib in $(ldd "$real" | awk '/=>/ {print $3}'); do
	case $(basename "$lib") in
	libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
	*) cp -L "$lib" "$out/redis/lib/" ;;
	esac
done
cat > "$out/redis/redis-server" <<'SH'
#!/bin/sh
# Debian's redis-server with its own copies of the libraries it needs.
case $0 in */*) d=${0%/*} ;; *) d=. ;; esac
d=$(cd "$d" && pwd)
LD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/bin/redis-server" "$@"
SH
chmod +x "$out/redis/redis-server"
# The scripts and the models they read, laid out as in the repository.
mkdir -p "$out/bench/gpu" "$out/testdata/hmmer3/models"
cp "$here/bench/gpu/queue_overhead.sh" "$here/bench/gpu/queue_ab.sh" "$out/bench/gpu/"
cp "$here/bench/queue_scaling.sh" "$out/bench/"
for m in Caudal_act LuxC Patched RRM_1 SMC_N; do cp "$here/testdata/hmmer3/models/$m.hmm.gz" "$out/testdata/hmmer3/models/"; done
cat "$out/builds.txt"
du -sh "$out"
