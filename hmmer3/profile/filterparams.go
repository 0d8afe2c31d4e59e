package profile

// FilterParams is the bias filter's two-state HMM as SetFilter configured
// it, for accelerators that compute FilterScore away from the Background
// (the GPU). T[0][0] and T[0][1] are SetLength's, replaced per target.
type FilterParams struct {
	T    [2][3]float32 // transitions s->0, s->1, s->end
	Pi   [2]float32    // initial state probabilities
	Odds [][2]float32  // emission odds by residue code (Kp of them), then state
}

// FilterParams returns a copy of the bias filter HMM; ok is false until
// SetFilter has been called.
func (bg *Background) FilterParams() (p FilterParams, ok bool) {
	return FilterParams{T: bg.ft, Pi: bg.fpi, Odds: append([][2]float32(nil), bg.feo...)}, bg.ready
}
