package core

import (
	"math"
	"testing"
)

// pmatrixGolden holds transition matrices PaPaRa 2.5's probgap_model
// computes (JAMA eigen-decomposition, uBLAS LU inverse, glibc exp),
// printed in hex by a driver linked against PaPaRa's sources:
// {gap frequency, branch length, P00 P01 P10 P11}. A gap frequency of
// exactly 1/2 takes JAMA's symmetric branch (tred2/tql2).
var pmatrixGolden = []struct {
	gapFreq, t float64
	p          [4]float64
}{
	{0x0p+0, 0x0p+0, [4]float64{0x1.fffffffffffffp-1, 0x0p+0, -0x1p-52, 0x1p+0}},
	{0x0p+0, 0x1.0c6f7a0b5ed8dp-20, [4]float64{0x1.fffffffffffffp-1, 0x1.7b9ff7a8p-74, 0x1.0c6f713e8p-20, 0x1.ffffde7211d82p-1}},
	{0x0p+0, 0x1.930be0ded288dp-7, [4]float64{0x1.fffffffffffffp-1, 0x1.1b4053a220dp-60, 0x1.9093ea7502c8p-7, 0x1.f9bdb0562bf4dp-1}},
	{0x0p+0, 0x1p-2, [4]float64{0x1.fffffffffffffp-1, 0x1.4054a7a3406bp-56, 0x1.c5041854df7ccp-3, 0x1.8ebef9eac820cp-1}},
	{0x0p+0, 0x1p+0, [4]float64{0x1.ffffffffffffep-1, 0x1.c9b444d4d472fp-55, 0x1.43a54e4e98862p-1, 0x1.78b56362cef38p-2}},
	{0x0p+0, 0x1.d99999999999ap+1, [4]float64{0x1.ffffffffffffep-1, 0x1.61167a0372ec3p-54, 0x1.f357701cbc77cp-1, 0x1.9511fc687105bp-6}},
	{0x1.6e0689427378fp-6, 0x0p+0, [4]float64{0x1p+0, 0x0p+0, 0x0p+0, 0x1p+0}},
	{0x1.6e0689427378fp-6, 0x1.0c6f7a0b5ed8dp-20, [4]float64{0x1.ffffff4018e8dp-1, 0x1.7fce2e72p-26, 0x1.06703885p-20, 0x1.ffffdf31f8ef6p-1}},
	{0x1.6e0689427378fp-6, 0x1.930be0ded288dp-7, [4]float64{0x1.ffdc3424c8e14p-1, 0x1.1e5ed9b8f608p-12, 0x1.87a0f3a73b2p-7, 0x1.f9e17c3163138p-1}},
	{0x1.6e0689427378fp-6, 0x1p-2, [4]float64{0x1.fd784894394e1p-1, 0x1.43dbb5e358f7cp-8, 0x1.bae53aa5c4b58p-3, 0x1.9146b1568ed2ap-1}},
	{0x1.6e0689427378fp-6, 0x1p+0, [4]float64{0x1.f8c5059a914a5p-1, 0x1.cebe995bad6bap-7, 0x1.3c6a53e929d08p-1, 0x1.872b582dac5efp-2}},
	{0x1.6e0689427378fp-6, 0x1.d99999999999ap+1, [4]float64{0x1.f4d830f7bb846p-1, 0x1.64f9e1088f747p-6, 0x1.e82fa11477fc4p-1, 0x1.7d05eeb8803c6p-5}},
	{0x1.3333333333333p-2, 0x0p+0, [4]float64{0x1p+0, 0x0p+0, 0x0p+0, 0x1p+0}},
	{0x1.3333333333333p-2, 0x1.0c6f7a0b5ed8dp-20, [4]float64{0x1.fffff5ef055a7p-1, 0x1.421f54b2p-22, 0x1.77cf3826p-21, 0x1.ffffe8830c7dap-1}},
	{0x1.3333333333333p-2, 0x1.930be0ded288dp-7, [4]float64{0x1.fe1f4e804063p-1, 0x1.e0b17fbf9cf8p-9, 0x1.18678a851b94p-7, 0x1.fb9e61d5eb91bp-1}},
	{0x1.3333333333333p-2, 0x1p-2, [4]float64{0x1.de0617c66f3dp-1, 0x1.0fcf41cc8617ep-4, 0x1.3d1c776e9c718p-3, 0x1.b0b8e22458e3ap-1}},
	{0x1.3333333333333p-2, 0x1p+0, [4]float64{0x1.9ee8021b9f0afp-1, 0x1.845ff79183d46p-3, 0x1.c51aa0d46f225p-2, 0x1.1d72af95c86eep-1}},
	{0x1.3333333333333p-2, 0x1.d99999999999ap+1, [4]float64{0x1.6a329190faa8dp-1, 0x1.2b9adcde0aae6p-2, 0x1.5d8a01adb720bp-1, 0x1.44ebfca491beap-2}},
	{0x1.8p-1, 0x0p+0, [4]float64{0x1p+0, 0x0p+0, 0x0p+0, 0x1.fffffffffffffp-1}},
	{0x1.8p-1, 0x1.0c6f7a0b5ed8dp-20, [4]float64{0x1.ffffe6d58d621p-1, 0x1.92a729dfp-21, 0x1.0c6f713fp-22, 0x1.fffff79c8475fp-1}},
	{0x1.8p-1, 0x1.930be0ded288dp-7, [4]float64{0x1.fb4e4440a0f79p-1, 0x1.2c6eefd7c21cp-7, 0x1.9093ea7502dp-9, 0x1.fe6f6c158afd2p-1}},
	{0x1.8p-1, 0x1p-2, [4]float64{0x1.ab0f3b7016188p-1, 0x1.53c3123fa79dcp-3, 0x1.c5041854df7d4p-5, 0x1.e3afbe7ab2082p-1}},
	{0x1.8p-1, 0x1p+0, [4]float64{0x1.0d4405450d9b5p-1, 0x1.e577f575e4c95p-2, 0x1.43a54e4e98864p-3, 0x1.af16ac6c59de6p-1}},
	{0x1.8p-1, 0x1.d99999999999ap+1, [4]float64{0x1.12fcd7d4e54c3p-2, 0x1.768194158d59dp-1, 0x1.f357701cbc77ep-3, 0x1.832a23f8d0e2p-1}},
	{0x1.dcc63f141205cp-1, 0x0p+0, [4]float64{0x1p+0, 0x0p+0, 0x0p+0, 0x1p+0}},
	{0x1.dcc63f141205cp-1, 0x1.0c6f7a0b5ed8dp-20, [4]float64{0x1.ffffe0c10e918p-1, 0x1.f3ef16e8p-21, 0x1.277e5cb7p-24, 0x1.fffffdb103469p-1}},
	{0x1.dcc63f141205cp-1, 0x1.930be0ded288dp-7, [4]float64{0x1.fa2bed85e693ap-1, 0x1.75049e865b18p-7, 0x1.b8f4beea7b88p-11, 0x1.ff91c2d045612p-1}},
	{0x1.dcc63f141205cp-1, 0x1p-2, [4]float64{0x1.9689b23efb136p-1, 0x1.a5d9370413b24p-3, 0x1.f2ae150cbcacp-7, 0x1.f83547abcd0d5p-1}},
	{0x1.dcc63f141205cp-1, 0x1p+0, [4]float64{0x1.a53e00cc3da41p-2, 0x1.2d60ff99e12dep-1, 0x1.6444eb4b75848p-5, 0x1.e9bbb14b48a7cp-1}},
	{0x1.dcc63f141205cp-1, 0x1.d99999999999ap+1, [4]float64{0x1.781aeb80c3109p-4, 0x1.d0fca28fe79dep-1, 0x1.12d66c66a6cf9p-4, 0x1.dda532732b261p-1}},
	{0x1.4f8b588e368f1p-17, 0x0p+0, [4]float64{0x1.fffffffffffffp-1, 0x0p+0, 0x0p+0, 0x1.fffffffffffffp-1}},
	{0x1.4f8b588e368f1p-17, 0x1.0c6f7a0b5ed8dp-20, [4]float64{0x1.ffffffffea027p-1, 0x1.5fd7f29p-37, 0x1.0c6ec153p-20, 0x1.ffffde7227d59p-1}},
	{0x1.4f8b588e368f1p-17, 0x1.930be0ded288dp-7, [4]float64{0x1.fffffbe5e8ca9p-1, 0x1.0685cd586a68p-23, 0x1.9092e3ef3574p-7, 0x1.f9bdb470432a2p-1}},
	{0x1.4f8b588e368f1p-17, 0x1p-2, [4]float64{0x1.ffffb5c721c74p-1, 0x1.28e378e2b0b6p-19, 0x1.c502ef71669a4p-3, 0x1.8ebf4423a6596p-1}},
	{0x1.4f8b588e368f1p-17, 0x1p+0, [4]float64{0x1.ffff2be541e87p-1, 0x1.a8357c2f02c8ep-18, 0x1.43a47a33da6ebp-1, 0x1.78b70b984b228p-2}},
	{0x1.4f8b588e368f1p-17, 0x1.d99999999999ap+1, [4]float64{0x1.fffeb8c0638a7p-1, 0x1.473f9c757c311p-17, 0x1.f35628dd20025p-1, 0x1.953ae45bffb3cp-6}},
	{0x1p-1, 0x0p+0, [4]float64{0x1p+0, 0x0p+0, 0x0p+0, 0x1p+0}},
	{0x1p-1, 0x1.0c6f7a0b5ed8dp-20, [4]float64{0x1.ffffef3908ecp-1, 0x1.0c6f713f8p-21, 0x1.0c6f713f8p-21, 0x1.ffffef3908ecp-1}},
	{0x1p-1, 0x1.930be0ded288dp-7, [4]float64{0x1.fcded82b15fa6p-1, 0x1.9093ea7502dp-8, 0x1.9093ea7502dp-8, 0x1.fcded82b15fa6p-1}},
	{0x1p-1, 0x1p-2, [4]float64{0x1.c75f7cf564106p-1, 0x1.c5041854df7d4p-4, 0x1.c5041854df7d4p-4, 0x1.c75f7cf564106p-1}},
	{0x1p-1, 0x1p+0, [4]float64{0x1.5e2d58d8b3bcep-1, 0x1.43a54e4e98864p-2, 0x1.43a54e4e98864p-2, 0x1.5e2d58d8b3bcep-1}},
	{0x1p-1, 0x1.d99999999999ap+1, [4]float64{0x1.065447f1a1c41p-1, 0x1.f357701cbc77ep-2, 0x1.f357701cbc77ep-2, 0x1.065447f1a1c41p-1}},
}

func TestGapModelMatchesPaPaRa(t *testing.T) {
	for _, g := range pmatrixGolden {
		m, err := NewGapModel(g.gapFreq)
		if err != nil {
			t.Fatal(err)
		}
		p := m.PMatrix(g.t)
		got := [4]float64{p[0][0], p[0][1], p[1][0], p[1][1]}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(g.p[i]) {
				t.Errorf("gap freq %v, t=%v: P[%d] = %x, PaPaRa has %x", g.gapFreq, g.t, i, got[i], g.p[i])
			}
		}
	}
}

// TestExactExp checks exp against correctly rounded values (Python's
// decimal module at 50 digits); math.Exp is one ulp off on the first three.
func TestExactExp(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{-1.5197233883529861, 0x1.c00bbd9d655cbp-3},
		{-2.2995054085641007, 0x1.9add06adad438p-4},
		{-1.069918871123805, 0x1.5f44eb853ff48p-2},
		{-0.0123, 0x1.f9bdb0562bf4cp-1},
		{-3.7, 0x1.9511fc6871044p-6},
		{-1e-06, 0x1.ffffde7211d81p-1},
		{0.5, 0x1.a61298e1e069cp+0},
		{-700.25, 0x1.af5fe9a485c8ep-1011},
		{1e-300, 1},
		{0, 1},
		{math.Inf(-1), 0},
	} {
		if got := exactExp(c.x); got != c.want {
			t.Errorf("exp(%v) = %x, want %x", c.x, got, c.want)
		}
	}
}
