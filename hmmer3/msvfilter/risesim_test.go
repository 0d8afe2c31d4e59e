package msvfilter

import (
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
)

// TestMSVRiseSimulation (HMMGO_MSVRISE_SIM=residues) counts, on the CPU,
// how often the MSV pass's xB rises: for blocks of B rows, the share of
// a warp's blocks (32 undecided targets of similar length, as the pass
// lays them out on one thread a target) in which any target's xB rises.
// A block in which no xB rises could run its rows with xB fixed.
func TestMSVRiseSimulation(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HMMGO_MSVRISE_SIM"))
	if n == 0 {
		t.Skip("set HMMGO_MSVRISE_SIM=<residues>")
	}
	amino := alphabet.New(alphabet.Amino)
	rng := rand.New(rand.NewSource(1))
	dsqs, _ := testmodels.RandomDatabase(rng, amino, n)
	for _, M := range intList(t, os.Getenv("HMMGO_MSVSEG_M"), []int{10, 16, 25, 32, 40}) {
		h := testmodels.RandomHMM(rng, amino, M)
		o := profileOf(h)
		om := &o.MSV
		rest := undecidedBySSV(om, dsqs)
		rises := make([][]int, len(rest))
		parallel(len(rest), func(j int) { rises[j] = riseRows(dsqs[rest[j]], om) })
		order := make([]int, len(rest))
		for j := range order {
			order[j] = j
		}
		slices.SortFunc(order, func(a, b int) int { return len(dsqs[rest[b]]) - len(dsqs[rest[a]]) })
		total := 0
		for _, r := range rises {
			total += len(r)
		}
		line := fmt.Sprintf("M=%d: %d undecided, %.1f rises a target;", M, len(rest), float64(total)/float64(len(rest)))
		for _, B := range []int{4, 8, 16} {
			var blocks, dirty, firstBlocks, firstDirty int
			for w := 0; w*32 < len(order); w++ {
				lanes := order[w*32 : min(len(order), w*32+32)]
				L := len(dsqs[rest[lanes[0]]])
				nb := (L + B - 1) / B
				hit := make([]bool, nb)
				for _, j := range lanes {
					for _, r := range rises[j] {
						hit[r/B] = true
					}
				}
				d := 0
				for _, h := range hit {
					if h {
						d++
					}
				}
				blocks += nb
				dirty += d
				if w == 0 {
					firstBlocks, firstDirty = nb, d
				}
			}
			line += fmt.Sprintf(" B=%d: all warps %.3f of blocks, longest warp %d/%d;", B, float64(dirty)/float64(blocks), firstDirty, firstBlocks)
		}
		fmt.Println(line)
	}
}

// riseRows is the rows of dsq after which the MSV program's xB rises
// (kernel form: e - K > xB).
func riseRows(dsq []byte, om *oprofile.MSVProfile) []int {
	p := *om
	p.TJB = p.TJBFor(len(dsq))
	tjbm := int(uint8(p.TJB + p.TBM))
	K := int(p.TEC) + tjbm
	st := msvState{make([]uint8, om.M+1), int(satU8(int(p.Base) - tjbm))}
	tmp := make([]uint8, om.M+1)
	var out []int
	for i := range dsq {
		before := st.xB
		msvRows(dsq[i:i+1], om, K, &st, tmp)
		if st.xB > before {
			out = append(out, i)
		}
	}
	return out
}
