#!/usr/bin/env bash
# Builds what bench/gpu/hmmer3_filters.sh and bench/gpu/fwd.sh run on the
# GPU host into .dev/
# (CGO_ENABLED=0: the GPU host has no Go) and copies the shared data the
# GPU tests read (../shared does not travel to the GPU host).
set -eu
cd "$(dirname "$0")/../.."
mkdir -p .dev/gpudata/CUDAMPF .dev/gpudata/pyhmmer/seqs
for p in msvfilter vitfilter fwdback; do CGO_ENABLED=0 go test -c -o .dev/$p.test ./hmmer3/$p; done
CGO_ENABLED=0 go build -o .dev/hmmgo ./cmd/hmmgo
shared=${HMMGO_SHARED_DATA:-../shared/data}
cp -r "$shared/CUDAMPF/query_models" .dev/gpudata/CUDAMPF/
cp "$shared/pyhmmer/seqs/938293.PRJEB85.HG003687.faa" .dev/gpudata/pyhmmer/seqs/
du -sh .dev
