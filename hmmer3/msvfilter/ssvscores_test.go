package msvfilter

import (
	"encoding/binary"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/testmodels"
)

// TestSSVScoresMatchesPerTarget checks the host pass after the SSV kernel
// (length costs from tjbTable, chunks on all cores) against the plain
// per-target rule, on raw kernel results of every kind (decided, left to
// MSV, overflow) and lengths inside and beyond the table.
func TestSSVScoresMatchesPerTarget(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	abc := alphabet.New(alphabet.Amino)
	for _, M := range []int{20, 150, 900} {
		h := testmodels.RandomHMM(rng, abc, M)
		om := &profileOf(h).MSV
		n := 50_000
		dsqs := make([][]byte, n)
		maxw := make([]uint32, n)
		for i := range dsqs {
			L := rng.Intn(3000)
			switch i % 97 {
			case 0:
				L = 0
			case 1:
				L = tjbTableLen + rng.Intn(5000)
			}
			dsqs[i] = make([]byte, L) // only the lengths matter here
			maxw[i] = uint32(rng.Intn(160))
		}
		got := make([]float32, n)
		// least: a bound that lists some of the decided targets.
		least := func(L int) float32 { return float32(L%7) - 1 }
		rest, above := ssvScores(om, lensOf(dsqs), le32(maxw), got, least)
		if again, none := ssvScores(om, lensOf(dsqs), le32(maxw), make([]float32, n), nil); none != nil || !slices.Equal(again, rest) {
			t.Fatalf("M=%d: without a bound, a list (%d) or other targets left to MSV", M, len(none))
		}
		var wantRest, wantAbove []int
		for i := range dsqs {
			p := *om
			p.TJB = om.TJBFor(len(dsqs[i]))
			if len(dsqs[i]) > 0 && ssvApplies(&p) {
				cell := uint8(255)
				if int(maxw[i]) < 127-int(p.Bias) {
					cell = uint8(maxw[i]) + 128
				}
				if sc, ok := ssvDecide(cell, &p); ok {
					if math.Float32bits(sc) != math.Float32bits(got[i]) {
						t.Fatalf("M=%d target %d (L=%d): score %v, want %v", M, i, len(dsqs[i]), got[i], sc)
					}
					if sc >= least(len(dsqs[i])) {
						wantAbove = append(wantAbove, i)
					}
					continue
				}
			}
			wantRest = append(wantRest, i)
		}
		if len(rest) != len(wantRest) {
			t.Fatalf("M=%d: %d targets left to MSV, want %d", M, len(rest), len(wantRest))
		}
		for k := range rest {
			if rest[k] != wantRest[k] {
				t.Fatalf("M=%d: left to MSV #%d is %d, want %d", M, k, rest[k], wantRest[k])
			}
		}
		if !slices.Equal(above, wantAbove) {
			t.Fatalf("M=%d: %d targets listed at or above the bound, want %d", M, len(above), len(wantAbove))
		}
		if len(wantAbove) == 0 || len(wantAbove) == n-len(rest) {
			t.Fatalf("M=%d: %d of %d decided targets above the bound: the test would compare nothing", M, len(wantAbove), n-len(rest))
		}
		if len(rest) == 0 || len(rest) == n {
			t.Logf("M=%d: %d of %d left to MSV: the case mix is one-sided", M, len(rest), n)
		}
	}
}

func TestTJBTable(t *testing.T) {
	h := testmodels.RandomHMM(rand.New(rand.NewSource(1)), alphabet.New(alphabet.Amino), 50)
	om := &profileOf(h).MSV
	table := tjbTable(om)
	for _, L := range []int{0, 1, 2, 100, 4097, tjbTableLen - 1, tjbTableLen, 1 << 20} {
		if got, want := tjbOf(table, om, L), om.TJBFor(L); got != want {
			t.Errorf("L=%d: %d, want %d", L, got, want)
		}
	}
}

// le32 is w as the kernel's results come back: 4 little-endian bytes each.
func le32(w []uint32) []byte {
	b := make([]byte, 0, 4*len(w))
	for _, v := range w {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

// TestMSVScoresMatchesPerTarget checks the host pass after the MSV
// kernel: only the targets asked for are set (the others keep what they
// held, their raw entries unread), each to finalScore with its length's
// cost, or +Inf for an overflow.
func TestMSVScoresMatchesPerTarget(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	abc := alphabet.New(alphabet.Amino)
	h := testmodels.RandomHMM(rng, abc, 120)
	om := &profileOf(h).MSV
	n := 40_000
	dsqs := make([][]byte, n)
	raw := make([]byte, 2*n)
	var idx []int
	for i := range dsqs {
		L := 1 + rng.Intn(3000)
		if i%89 == 0 {
			L = tjbTableLen + rng.Intn(5000)
		}
		dsqs[i] = make([]byte, L)
		xj := uint16(rng.Intn(400))
		if i%53 == 0 {
			xj = 0xffff
		}
		binary.LittleEndian.PutUint16(raw[2*i:], xj)
		if i%7 == 3 {
			idx = append(idx, i)
		}
	}
	const untouched = -12345
	got := make([]float32, n)
	for i := range got {
		got[i] = untouched
	}
	msvScores(om, dsqs, idx, raw, got)
	asked := make([]bool, n)
	for _, i := range idx {
		asked[i] = true
	}
	for i := range dsqs {
		if !asked[i] {
			if got[i] != untouched {
				t.Fatalf("target %d not asked for was set to %v", i, got[i])
			}
			continue
		}
		want := float32(math.Inf(1))
		if xj := binary.LittleEndian.Uint16(raw[2*i:]); xj != 0xffff {
			p := *om
			p.TJB = om.TJBFor(len(dsqs[i]))
			want = finalScore(int(xj), &p)
		}
		if math.Float32bits(got[i]) != math.Float32bits(want) {
			t.Fatalf("target %d (L=%d): %v, want %v", i, len(dsqs[i]), got[i], want)
		}
	}
}

// BenchmarkSSVScores times the host pass after the SSV kernel over
// 485,000 targets of lengths like the 175M-residue benchmark database's,
// longest first as a device holds them.
func BenchmarkSSVScores(b *testing.B) {
	rng := rand.New(rand.NewSource(7))
	abc := alphabet.New(alphabet.Amino)
	h := testmodels.RandomHMM(rng, abc, 200)
	om := &profileOf(h).MSV
	n := 485_000
	lens := make([]int32, n)
	maxw := make([]uint32, n)
	for i := range lens {
		lens[i] = 30 + int32(rng.ExpFloat64()*330)
		maxw[i] = uint32(rng.Intn(40))
	}
	slices.Sort(lens)
	slices.Reverse(lens)
	raw, out := le32(maxw), make([]float32, n)
	b.ResetTimer()
	for range b.N {
		ssvScores(om, lens, raw, out, nil)
	}
}

// lensOf is the targets' lengths, as gpudb.DB.Lengths gives them.
func lensOf(dsqs [][]byte) []int32 {
	lens := make([]int32, len(dsqs))
	for i, d := range dsqs {
		lens[i] = int32(len(d))
	}
	return lens
}
