package gpudb

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestDevicePackMatchesHost makes every layout on the GPU and compares it
// byte for byte with Pack's: random targets of every length modulo four,
// empty ones, and enough blocks that the kernel's CUDA blocks take
// several warp blocks each; then the same targets cut into windows.
// The residues of the first and last databases go up early
// (UploadResidues), as a search's do, the last from one section as a
// makedb file holds them (UseResidues); none go up again once a
// database is freed. Skipped without a GPU.
func TestDevicePackMatchesHost(t *testing.T) {
	ctx := testutil.GPUContext(t)
	rng := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{1, 37, 200_000} {
		dsqs := randomDsqs(rng, n)
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		var section []byte
		if n == 200_000 {
			// As a makedb file's targets lie: in one section, which the
			// device copy takes as it is (UseResidues).
			section, dsqs = asSection(dsqs)
		}
		db := New(ctx, dsqs)
		if section != nil {
			db.UseResidues(section)
		}
		if n != 37 {
			if err := db.UploadResidues(); err != nil {
				t.Fatal(err)
			}
		}
		for _, T := range []int{1, 2, 4, 8, 16, 32} {
			want := Pack(dsqs, all, T)
			d, err := db.Layout(T)
			if err != nil {
				t.Fatal(err)
			}
			sameLayout(t, fmt.Sprintf("n=%d T=%d", n, T), d, want)
			// The same targets cut into windows (most of them: step 40).
			want = PackWindows(dsqs, all, T, 40, 9+T)
			if d, err = db.WindowLayout(T, 40, 9+T); err != nil {
				t.Fatal(err)
			}
			sameLayout(t, fmt.Sprintf("n=%d T=%d windows", n, T), d, want)
		}
		if section != nil && db.onDevice.raw.Size() != len(section) {
			t.Errorf("n=%d: %d residue bytes on the device, want the section's %d", n, db.onDevice.raw.Size(), len(section))
		}
		db.Free()
		if err := db.UploadResidues(); err == nil {
			t.Fatalf("n=%d: the residues went up again after Free", n)
		}
	}
}

// sameLayout fails the test unless the device layout d holds exactly
// the host's packing want: block count, block table and residues.
func sameLayout(t *testing.T, what string, d *Device, want *Packed) {
	t.Helper()
	if d.NBlocks != want.NBlocks {
		t.Fatalf("%s: %d blocks, host %d", what, d.NBlocks, want.NBlocks)
	}
	res, table := make([]byte, len(want.Res)), make([]byte, len(want.Table))
	if err := d.Res.CopyToHost(res, 0); err != nil {
		t.Fatal(err)
	}
	if err := d.Table.CopyToHost(table, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(table, want.Table) {
		t.Fatalf("%s: block tables differ", what)
	}
	if i := firstDiff(res, want.Res); i >= 0 {
		t.Fatalf("%s: residue byte %d of %d: device %#x, host %#x", what, i, len(res), res[i], want.Res[i])
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
