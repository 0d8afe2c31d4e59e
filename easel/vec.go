package easel

// FSum adds v with Kahan compensation in float32, as esl_vec_FSum does;
// HMMER's sequence null2 correction is such a sum, so plain summation
// would move printed bias values.
func FSum(v []float32) float32 {
	var sum, c float32
	for _, x := range v {
		y := x - c
		t := sum + y
		c = (t - sum) - y
		sum = t
	}
	return sum
}

// FNorm scales v to sum to one (esl_vec_FNorm); an all-zero vector
// becomes uniform.
func FNorm(v []float32) {
	sum := FSum(v)
	if sum != 0 {
		for i := range v {
			v[i] = Flush32(v[i] / sum) // hmmsearch runs in flush-to-zero mode
		}
		return
	}
	u := float32(1.0 / float64(float32(len(v))))
	for i := range v {
		v[i] = u
	}
}

// FChoose draws an index from the distribution p (esl_rnd_FChoose): the
// cumulative sum and its normaliser are kept in double precision, as
// Easel does, so that the same roll picks the same index.
func FChoose(r *Random, p []float32) int {
	var norm, sum float64
	roll := r.Float64()
	for _, x := range p {
		norm += float64(x)
	}
	for i, x := range p {
		sum += float64(x)
		if roll < sum/norm {
			return i
		}
	}
	panic("easel: FChoose: probabilities do not sum to one")
}

// FArgMax returns the index of the first maximum of v.
func FArgMax(v []float32) int {
	best := 0
	for i := 1; i < len(v); i++ {
		if v[i] > v[best] {
			best = i
		}
	}
	return best
}

// IArgMax returns the index of the first maximum of v.
func IArgMax(v []int) int {
	best := 0
	for i := 1; i < len(v); i++ {
		if v[i] > v[best] {
			best = i
		}
	}
	return best
}
