#!/usr/bin/env bash
# Builds what bench/gpu/bias.sh runs on the GPU host (which has no Go) into
# .dev/: the biasfilter test binary and hmmgo, static (CGO_ENABLED=0), and
# the shared data its GPU test reads (../shared does not travel there).
#   bash bench/gpu/build_bias.sh        # here, then carry .dev
set -eu
cd "$(dirname "$0")/../.."
mkdir -p .dev/gpudata/CUDAMPF .dev/gpudata/pyhmmer/seqs
CGO_ENABLED=0 go test -c -o .dev/biasfilter.test ./hmmer3/biasfilter
CGO_ENABLED=0 go build -o .dev/hmmgo ./cmd/hmmgo
shared=${HMMGO_SHARED_DATA:-../shared/data}
cp -r "$shared/CUDAMPF/query_models" .dev/gpudata/CUDAMPF/
cp "$shared/pyhmmer/seqs/938293.PRJEB85.HG003687.faa" .dev/gpudata/pyhmmer/seqs/
du -sh .dev
