#!/bin/sh
# Builds what bench/gpu/smoke.sh runs on the GPU host, which has no Go:
# hmmgo and one test binary per GPU package, static Go code with no cgo
# (CGO_ENABLED=0), for linux/amd64, into .dev/ (git-ignored; carry it).
set -eu
cd "$(dirname "$0")/../.."
mkdir -p .dev
export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
flags="-trimpath -ldflags=-s -ldflags=-w"
go build $flags -o .dev/hmmgo ./cmd/hmmgo
for p in cuda nvrtc devices gpucheck gpuinfo; do
  go test -c $flags -o ".dev/$p.test" "./gpu/$p"
done
ls -l .dev
du -sh .dev
