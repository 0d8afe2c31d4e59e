package synthdb

import (
	"math"
	"math/bits"

	"github.com/hmmgo/hmmgo/easel"
)

// The generator is xoshiro256** seeded through splitmix64 (both public
// domain algorithms by Blackman and Vigna). We use our own generator
// rather than math/rand so that a database is defined by its seed alone:
// the bytes must not change with the Go release.

// splitmix64 advances *x and returns its next output.
func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Streams of one seed. Every random choice draws from a stream named by
// its purpose and an index, never from a shared generator, so sequences
// can be made in any order, on any number of threads, with the same bytes.
const (
	streamLengths  uint64 = 1 // background lengths, in database order
	streamResidues uint64 = 2 // one per background sequence: its residues
	streamPlant    uint64 = 3 // one per planted sequence: emission and flanks
	streamPlaces   uint64 = 4 // where the planted sequences go
)

// rng is one xoshiro256** stream.
type rng struct{ s0, s1, s2, s3 uint64 }

// newRNG returns stream (purpose, index) of seed.
func newRNG(seed, purpose, index uint64) *rng {
	x := seed
	x = splitmix64(&x) ^ purpose
	x = splitmix64(&x) ^ index
	r := &rng{splitmix64(&x), splitmix64(&x), splitmix64(&x), splitmix64(&x)}
	if r.s0|r.s1|r.s2|r.s3 == 0 {
		r.s0 = 1 // the one state xoshiro cannot leave
	}
	return r
}

func (r *rng) next() uint64 {
	res := bits.RotateLeft64(r.s1*5, 7) * 9
	t := r.s1 << 17
	r.s2 ^= r.s0
	r.s3 ^= r.s1
	r.s1 ^= r.s2
	r.s0 ^= r.s3
	r.s2 ^= t
	r.s3 = bits.RotateLeft64(r.s3, 45)
	return res
}

// float64 returns a number in [0,1) with 53 random bits.
func (r *rng) float64() float64 { return float64(r.next()>>11) * (1.0 / (1 << 53)) }

// intn returns a number in [0,n), n > 0 (Lemire's multiply; its bias is
// below 2^-40 for the n we use).
func (r *rng) intn(n int) int {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}

// normal returns a standard normal deviate by Marsaglia's polar method.
// It uses easel.Log (glibc's log, bit for bit, in Go) rather than
// math.Log, whose assembly versions differ between architectures, so the
// lengths of a database do not depend on the machine that made it.
func (r *rng) normal() float64 {
	for {
		u := 2*r.float64() - 1
		v := 2*r.float64() - 1
		s := float64(u*u) + float64(v*v)
		if s > 0 && s < 1 {
			return u * math.Sqrt(float64(-2*easel.Log(s))/s)
		}
	}
}

// fill writes len(dst) residues drawn from table: four residues from
// each 64-bit draw, 16 bits each. The state lives in locals so the loop
// runs from registers.
func (r *rng) fill(dst []byte, table *[1 << 16]byte) {
	s0, s1, s2, s3 := r.s0, r.s1, r.s2, r.s3
	i := 0
	for ; i < len(dst); i += 4 {
		x := bits.RotateLeft64(s1*5, 7) * 9
		t := s1 << 17
		s2 ^= s0
		s3 ^= s1
		s1 ^= s2
		s0 ^= s3
		s2 ^= t
		s3 = bits.RotateLeft64(s3, 45)
		if i+4 <= len(dst) {
			d := dst[i : i+4 : i+4]
			d[0] = table[uint16(x)]
			d[1] = table[uint16(x>>16)]
			d[2] = table[uint16(x>>32)]
			d[3] = table[uint16(x>>48)]
			continue
		}
		for j := i; j < len(dst); j++ {
			dst[j] = table[uint16(x)]
			x >>= 16
		}
	}
	r.s0, r.s1, r.s2, r.s3 = s0, s1, s2, s3
}
