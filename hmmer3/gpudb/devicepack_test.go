package gpudb

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestDevicePackMatchesHost makes every layout on the GPU and compares it
// byte for byte with Pack's: random targets of every length modulo four,
// empty ones, and enough blocks that the kernel's CUDA blocks take
// several warp blocks each; then the same targets cut into windows.
// Skipped without a GPU.
func TestDevicePackMatchesHost(t *testing.T) {
	ctx := testutil.GPUContext(t)
	rng := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{1, 37, 200_000} {
		dsqs := randomDsqs(rng, n)
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		db := New(ctx, dsqs)
		for _, T := range []int{1, 2, 4, 8, 16, 32} {
			want := Pack(dsqs, all, T)
			d, err := db.Layout(T)
			if err != nil {
				t.Fatal(err)
			}
			if d.NBlocks != want.NBlocks {
				t.Fatalf("n=%d T=%d: %d blocks, host %d", n, T, d.NBlocks, want.NBlocks)
			}
			res, table := make([]byte, len(want.Res)), make([]byte, len(want.Table))
			if err := d.Res.CopyToHost(res, 0); err != nil {
				t.Fatal(err)
			}
			if err := d.Table.CopyToHost(table, 0); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(table, want.Table) {
				t.Fatalf("n=%d T=%d: block tables differ", n, T)
			}
			if i := firstDiff(res, want.Res); i >= 0 {
				t.Fatalf("n=%d T=%d: residue byte %d of %d: device %#x, host %#x", n, T, i, len(res), res[i], want.Res[i])
			}
			// The same targets cut into windows (most of them: step 40).
			want = PackWindows(dsqs, all, T, 40, 9+T)
			if d, err = db.WindowLayout(T, 40, 9+T); err != nil {
				t.Fatal(err)
			}
			if d.NBlocks != want.NBlocks {
				t.Fatalf("n=%d T=%d windows: %d blocks, host %d", n, T, d.NBlocks, want.NBlocks)
			}
			res, table = make([]byte, len(want.Res)), make([]byte, len(want.Table))
			if err := d.Res.CopyToHost(res, 0); err != nil {
				t.Fatal(err)
			}
			if err := d.Table.CopyToHost(table, 0); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(table, want.Table) {
				t.Fatalf("n=%d T=%d windows: block tables differ", n, T)
			}
			if i := firstDiff(res, want.Res); i >= 0 {
				t.Fatalf("n=%d T=%d windows: residue byte %d of %d: device %#x, host %#x", n, T, i, len(res), res[i], want.Res[i])
			}
		}
		db.Free()
	}
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}
