#!/bin/sh
# Builds what bench/gpu/fwd_batch.sh runs on the GPU host (no Go there):
# .dev/hmmgo and .dev/fwdback.test, static, CGO_ENABLED=0. The script also
# needs, carried in .dev as for hmmsearch_1000.sh: .dev/models/*.hmm.gz
# (the 24 CUDAMPF models), .dev/families.sto (go run ./bench/manymodels
# -n 976 > .dev/families.sto) and .dev/bin/hmmbuild (HMMER's).
set -eu
cd "$(dirname "$0")/../.."
mkdir -p .dev
export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
go build -trimpath -o .dev/hmmgo ./cmd/hmmgo
go test -c -trimpath -o .dev/fwdback.test ./hmmer3/fwdback
ls -l .dev/hmmgo .dev/fwdback.test
