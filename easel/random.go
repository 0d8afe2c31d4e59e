package easel

// Random is Easel's "fast" generator (esl_randomness_CreateFast): Knuth's
// 32-bit linear congruential generator, seeded through Jenkins' mix. HMMER
// uses it for stochastic traceback and reseeds it for every multidomain
// region, so reproducing its exact sequence of numbers is part of
// reproducing HMMER's domain scores.
type Random struct {
	seed uint32
	x    uint32
}

// NewRandom returns a generator seeded with seed, which must not be 0
// (Easel would pick a time-based seed; callers do that themselves).
func NewRandom(seed uint32) *Random {
	r := &Random{}
	r.Init(seed)
	return r
}

// Init reseeds r, restarting its sequence.
func (r *Random) Init(seed uint32) {
	r.seed = seed
	r.x = mix3(seed, 87654321, 12345678)
	if r.x == 0 {
		r.x = 42
	}
}

// Seed returns the seed r was last initialised with.
func (r *Random) Seed() uint32 { return r.seed }

// Float64 returns the next number in [0,1) (esl_random).
func (r *Random) Float64() float64 {
	r.x = r.x*69069 + 1
	return float64(r.x) / 4294967296.0
}

// mix3 is Bob Jenkins' 96-bit mix, as Easel uses it to spread a seed.
func mix3(a, b, c uint32) uint32 {
	a -= b
	a -= c
	a ^= c >> 13
	b -= c
	b -= a
	b ^= a << 8
	c -= a
	c -= b
	c ^= b >> 13
	a -= b
	a -= c
	a ^= c >> 12
	b -= c
	b -= a
	b ^= a << 16
	c -= a
	c -= b
	c ^= b >> 5
	a -= b
	a -= c
	a ^= c >> 3
	b -= c
	b -= a
	b ^= a << 10
	c -= a
	c -= b
	c ^= b >> 15
	return c
}
