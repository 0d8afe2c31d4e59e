#!/usr/bin/env bash
# Builds what bench/gpu/vf16.sh runs on the GPU host into DIR (CGO_ENABLED=0:
# the host has no Go) with the shared data the GPU tests read.
set -eu
dir=$1
cd "$(dirname "$0")/../.."
mkdir -p "$dir/gpudata/CUDAMPF" "$dir/gpudata/pyhmmer/seqs"
CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o "$dir/vitfilter.test" ./hmmer3/vitfilter
CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o "$dir/hmmsearch.test" ./hmmer3/hmmsearch
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$dir/hmmgo" ./cmd/hmmgo
shared=${HMMGO_SHARED_DATA:-../shared/data}
cp -r "$shared/CUDAMPF/query_models" "$dir/gpudata/CUDAMPF/"
cp "$shared/pyhmmer/seqs/938293.PRJEB85.HG003687.faa" "$dir/gpudata/pyhmmer/seqs/"
cp bench/gpu/vf16.sh bench/gpu/vf16_e2e.sh "$dir/"
du -sh "$dir"
