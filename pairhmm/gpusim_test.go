package pairhmm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hmmgo/hmmgo/internal/ftz"
)

// simulateGroupKernel executes the schedule of ph_forward in pairhmm.cu
// for one pair, lane by lane, with the warp shuffles emulated (every lane
// reads what lane-1 held before the shuffle). It mirrors the CUDA code
// statement for statement: the carrier rows above the read, the steps
// without conditions (lanes before their first column or past their last
// compute on zeros or on columns nobody reads), the base of column k-lane
// read from the padded haplotype, the unconditional sums. So the
// wavefront bookkeeping is tested here even though this machine has no
// GPU. Quality-derived values come from the rows the CPU uses; the kernel
// derives them identically from the same tables.
//
// paddedHap holds the haplotype codes at [pad, pad+H), with valid codes
// (0..4) for pad >= group positions before and after. fused selects the
// cell of PH_FUSED=1 (the fused arithmetic).
func simulateGroupKernel[T float32 | float64](rows []row[T], paddedHap []uint8, pad, H int, initial T, group, perLane int, fused bool) T {
	R := len(rows)
	if R > group*perLane || pad < group {
		panic("read too long for the configuration, or haplotype padding too short")
	}
	shift := (perLane - R%perLane) % perLane
	lastLane := (R+shift)/perLane - 1
	initY := initial / T(H)
	type laneState struct {
		mm, gapm, mx, gcp, my []T
		emis                  [5][]T
		M, X, Y               []T
		upM, upX, upY         T
		dgM, dgX, dgY         T
		sumM, sumX            T
		code                  int
	}
	lanes := make([]laneState, group)
	for l := range lanes {
		s := &lanes[l]
		for _, p := range []*[]T{&s.mm, &s.gapm, &s.mx, &s.gcp, &s.my, &s.M, &s.X, &s.Y} {
			*p = make([]T, perLane)
		}
		for c := range s.emis {
			s.emis[c] = make([]T, perLane)
		}
		for r := 0; r < perLane; r++ {
			switch row := l*perLane + r - shift; {
			case row < 0: // carrier
				s.gcp[r] = 1
				s.Y[r] = initY
			case row < R:
				p := rows[row]
				s.mm[r], s.gapm[r], s.mx[r], s.gcp[r], s.my[r] = p.mm, p.gapm, p.mx, p.gcp, p.my
				for c := range s.emis {
					s.emis[c][r] = p.emis[c]
				}
			}
		}
		if l == 0 {
			s.upY = initY
		}
		s.dgM, s.dgX, s.dgY = s.upM, s.upX, s.upY
		s.code = int(paddedHap[pad-l])
	}
	steps := H + lastLane
	for k := 0; k < steps; k++ {
		for l := range lanes {
			s := &lanes[l]
			nextCode := int(paddedHap[pad-l+k+1])
			pM, pX := s.upM, s.upX
			qM, qX, qY := s.dgM, s.dgX, s.dgY
			for r := 0; r < perLane; r++ {
				oM, oX, oY := s.M[r], s.X[r], s.Y[r]
				e := s.emis[s.code][r]
				var nM, nX, nY T
				if fused {
					nM = simMul(simFMA(qX+qY, s.gapm[r], simMul(qM, s.mm[r])), e)
					nX = simFMA(pM, s.mx[r], simMul(pX, s.gcp[r]))
					nY = simFMA(oM, s.my[r], simMul(oY, s.gcp[r]))
				} else {
					nM = simMul(T(simMul(qM, s.mm[r])+simMul(qX, s.gapm[r]))+simMul(qY, s.gapm[r]), e)
					nX = simMul(pM, s.mx[r]) + simMul(pX, s.gcp[r])
					nY = simMul(oM, s.my[r]) + simMul(oY, s.gcp[r])
				}
				s.M[r], s.X[r], s.Y[r] = nM, nX, nY
				pM, pX = nM, nX
				qM, qX, qY = oM, oX, oY
			}
			s.sumM += s.M[perLane-1]
			s.sumX += s.X[perLane-1]
			s.dgM, s.dgX, s.dgY = s.upM, s.upX, s.upY
			s.code = nextCode
		}
		// The three shuffles: lane l receives lane l-1's last row; lane 0
		// then replaces it with the virtual top row.
		for l := group - 1; l >= 1; l-- {
			src := &lanes[l-1]
			lanes[l].upM, lanes[l].upX, lanes[l].upY = src.M[perLane-1], src.X[perLane-1], src.Y[perLane-1]
		}
		lanes[0].upM, lanes[0].upX, lanes[0].upY = 0, 0, initY
	}
	return lanes[lastLane].sumM + lanes[lastLane].sumX
}

// simMul is a product of the kernel: in float, flushed to zero when
// subnormal, as the kernels compiled with --ftz=true and the CPU's float
// pass (ftz.Mul) compute it; in double, plain.
func simMul[T float32 | float64](a, b T) T {
	if f, ok := any(a).(float32); ok {
		return T(ftz.Mul(f, float32(b)))
	}
	return a * b
}

// simFMA is a fused multiply-add of the kernel (__fmaf_rn with --ftz=true,
// or __fma_rn).
func simFMA[T float32 | float64](a, b, c T) T {
	if f, ok := any(a).(float32); ok {
		return T(fma32(f, float32(b), float32(c)))
	}
	return T(math.FMA(float64(a), float64(b), float64(c)))
}

// padHap returns codes with pad N codes on each side.
func padHap(codes []uint8, pad int) []uint8 {
	p := make([]uint8, 0, len(codes)+2*pad)
	for i := 0; i < pad; i++ {
		p = append(p, codeN)
	}
	p = append(p, codes...)
	for i := 0; i < pad; i++ {
		p = append(p, codeN)
	}
	return p
}

// TestGPUScheduleMatchesCPU runs the simulated kernel schedule for every
// configuration on reads that fill it exactly, partly, or only one
// thread, in both precisions and both arithmetics.
func TestGPUScheduleMatchesCPU(t *testing.T) {
	for _, fused := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(4, 4))
		var s scratch
		fwd32 := forwardFloat
		if fused {
			fwd32 = forwardFloatFused
		}
		for _, cfg := range allGPUConfigs() {
			for trial := 0; trial < 5; trial++ {
				maxLen := cfg.maxLen()
				n := []int{maxLen, 1 + rng.IntN(maxLen), 1 + rng.IntN(cfg.rows), maxLen - 1, 1}[trial]
				n = max(n, 1)
				hap := synthHap(rng, 1+rng.IntN(300))
				r := synthRead(rng, hap, n, 5, 40, trial != 3)
				var p preparedRead
				p.prepare(&r)
				codes, _ := encodeBases(nil, hap)
				s.grow(len(codes) + 1)
				padded := padHap(codes, hapPad)
				want := fwd32(p.rows32, codes, initial32, s.m32, s.x32, s.y32)
				got := simulateGroupKernel(p.rows32, padded, hapPad, len(codes), initial32, cfg.group, cfg.rows, fused)
				if got != want {
					t.Errorf("fused %v, %s, read %d, hap %d: float kernel schedule %x, CPU %x", fused, cfg, n, len(hap), got, want)
				}
				want64 := forward(p.doubleRows(), codes, fused, initial64, s.m64, s.x64, s.y64)
				got64 := simulateGroupKernel(p.doubleRows(), padded, hapPad, len(codes), initial64, cfg.group, cfg.rows, fused)
				if got64 != want64 {
					t.Errorf("fused %v, %s, read %d, hap %d: double kernel schedule %x, CPU %x", fused, cfg, n, len(hap), got64, want64)
				}
			}
		}
	}
}
