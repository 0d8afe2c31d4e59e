package pairhmm

import (
	"math/rand/v2"
	"testing"
)

// simulateGroupKernel executes the schedule of ph_forward in pairhmm.cu
// for one pair, lane by lane, with the warp shuffles emulated (every lane
// reads what lane-1 held before the shuffle). It mirrors the CUDA code
// statement for statement, so that the wavefront bookkeeping (which step
// handles which column, which shuffled value is "above" and which is the
// diagonal, where the last row is summed) is tested here even though this
// machine has no GPU. Quality-derived values come from the same rows the
// CPU uses; the kernel derives them identically from the same tables.
func simulateGroupKernel(rows []row[float32], hap []uint8, group, perLane int) float32 {
	R, H := len(rows), len(hap)
	maxLen := group * perLane
	if R > maxLen {
		panic("read too long for the configuration")
	}
	type laneState struct {
		mm, gapm, mx, gcp, my []float32
		M, X, Y               []float32
		upM, upX, upY         float32
		dgM, dgX, dgY         float32
		sumM, sumX            float32
		code                  int
	}
	emis := func(c, r int) float32 {
		if r >= R {
			return 0
		}
		return rows[r].emis[c]
	}
	lanes := make([]laneState, group)
	initY := initial32 / float32(H)
	for l := range lanes {
		s := &lanes[l]
		for _, p := range []*[]float32{&s.mm, &s.gapm, &s.mx, &s.gcp, &s.my, &s.M, &s.X, &s.Y} {
			*p = make([]float32, perLane)
		}
		for r := 0; r < perLane; r++ {
			if row := l*perLane + r; row < R {
				p := rows[row]
				s.mm[r], s.gapm[r], s.mx[r], s.gcp[r], s.my[r] = p.mm, p.gapm, p.mx, p.gcp, p.my
			}
		}
		if l == 0 {
			s.dgY = initY
		}
		s.code = codeN
	}
	lastLane, lastReg := (R-1)/perLane, (R-1)%perLane
	steps := H + lastLane
	shuffle := func(get func(*laneState) float32) []float32 {
		v := make([]float32, group)
		for l := range lanes {
			src := l - 1
			if src < 0 {
				src = l
			}
			v[l] = get(&lanes[src])
		}
		return v
	}
	for k := 0; k < steps; k++ {
		codes := make([]int, group)
		for l := range lanes {
			codes[l] = lanes[max(l-1, 0)].code
		}
		for l := range lanes {
			s := &lanes[l]
			if l == 0 {
				s.code = codeN
				if k < H {
					s.code = int(hap[k])
				}
			} else {
				s.code = codes[l]
			}
			j := k - l
			if l == 0 {
				s.upM, s.upX = 0, 0
				s.dgM, s.dgX, s.dgY = 0, 0, initY
			}
			if j >= 0 && j < H && l <= lastLane {
				pM, pX := s.upM, s.upX
				qM, qX, qY := s.dgM, s.dgX, s.dgY
				for r := 0; r < perLane; r++ {
					oM, oX, oY := s.M[r], s.X[r], s.Y[r]
					e := emis(s.code, l*perLane+r)
					nM := (float32(qM*s.mm[r]) + float32(qX*s.gapm[r]) + float32(qY*s.gapm[r])) * e
					nX := float32(pM*s.mx[r]) + float32(pX*s.gcp[r])
					nY := float32(oM*s.my[r]) + float32(oY*s.gcp[r])
					s.M[r], s.X[r], s.Y[r] = nM, nX, nY
					pM, pX = nM, nX
					qM, qX, qY = oM, oX, oY
					if r == lastReg && l == lastLane {
						s.sumM += nM
						s.sumX += nX
					}
				}
			}
		}
		for l := range lanes {
			s := &lanes[l]
			s.dgM, s.dgX, s.dgY = s.upM, s.upX, s.upY
		}
		upM := shuffle(func(s *laneState) float32 { return s.M[perLane-1] })
		upX := shuffle(func(s *laneState) float32 { return s.X[perLane-1] })
		upY := shuffle(func(s *laneState) float32 { return s.Y[perLane-1] })
		for l := range lanes {
			lanes[l].upM, lanes[l].upX, lanes[l].upY = upM[l], upX[l], upY[l]
		}
	}
	return lanes[lastLane].sumM + lanes[lastLane].sumX
}

// TestGPUScheduleMatchesCPU runs the simulated kernel schedule for every
// group/rows-per-thread configuration on reads that fill the
// configuration exactly, partly, or only its first thread.
func TestGPUScheduleMatchesCPU(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var s scratch
	for _, cfg := range gpuConfigs {
		for trial := 0; trial < 4; trial++ {
			maxLen := cfg.group * cfg.rows
			n := []int{maxLen, 1 + rng.IntN(maxLen), 1 + rng.IntN(cfg.rows), maxLen - 1}[trial]
			n = max(n, 1)
			hap := synthHap(rng, 1+rng.IntN(300))
			r := synthRead(rng, hap, n, 5, 40, true)
			var p preparedRead
			p.prepare(&r)
			codes, _ := encodeBases(nil, hap)
			s.grow(len(codes) + 1)
			want := forward(p.rows32, codes, initial32, s.m32, s.x32, s.y32)
			got := simulateGroupKernel(p.rows32, codes, cfg.group, cfg.rows)
			if got != want {
				t.Errorf("group %d x %d rows, read %d, hap %d: kernel schedule %x, CPU %x",
					cfg.group, cfg.rows, n, len(hap), got, want)
			}
		}
	}
}
