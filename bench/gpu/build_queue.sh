#!/usr/bin/env bash
# Builds what bench/gpu/queue.sh runs on the GPU host, which has no Go and
# may have no redis-server, into .dev/queue/ (git-ignored; carry it):
#   hmmgo                    static (CGO_ENABLED=0), linux/amd64
#   hmmsearch.test, workercmd.test   the packages' test binaries
#   redis/redis-server       a wrapper that runs this machine's (Debian's)
#                            redis-server from redis/bin/ with the shared
#                            libraries it needs beyond glibc, from redis/lib/
set -eu
cd "$(dirname "$0")/../.."
out=.dev/queue
rm -rf "$out"
mkdir -p "$out/redis/bin" "$out/redis/lib"
export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
go build -trimpath -ldflags="-s -w" -o "$out/hmmgo" ./cmd/hmmgo
go test -c -trimpath -ldflags="-s -w" -o "$out/hmmsearch.test" ./hmmer3/hmmsearch
go test -c -trimpath -ldflags="-s -w" -o "$out/workercmd.test" ./internal/workercmd
server=$(command -v redis-server) || { echo "build_queue.sh: install redis-server here first" >&2; exit 1; }
real=$(readlink -f "$server")
# The binary chooses its role by the name it is run as: keep "redis-server".
cp "$real" "$out/redis/bin/redis-server"
for lib in $(ldd "$real" | awk '/=>/ {print $3}'); do
	case $(basename "$lib") in
	libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;; # the host's glibc
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
"$out/redis/redis-server" --version
du -sh "$out"
