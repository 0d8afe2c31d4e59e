package hmmsearch

import (
	"os"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
)

// BenchmarkLoadAndSplit is the host's part of hmmsearch --gpu's start on
// one device before any layout: read every target of a database and
// split it (with a stored plan, no sort). $HMMGO_BENCH_DB names the
// database (e.g. the 175M-residue synthetic one, made with and without
// --gpu-layouts none); skipped without it.
func BenchmarkLoadAndSplit(b *testing.B) {
	path := os.Getenv("HMMGO_BENCH_DB")
	if path == "" {
		b.Skip("HMMGO_BENCH_DB not set")
	}
	abc := alphabet.New(alphabet.Amino)
	for b.Loop() {
		src, err := openSequenceFile(path, nil, abc)
		if err != nil {
			b.Fatal(err)
		}
		l, err := readTargets(src, nil)
		if err != nil {
			b.Fatal(err)
		}
		g := &gpuSearch{gpus: []*gpuKernels{{}}}
		g.splitTargets(l.seqs, l.stored, false)
	}
}
