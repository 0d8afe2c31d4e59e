package easel

import "math"

// smallX1 is Easel's threshold below which 1-exp(-x) is taken as x.
const smallX1 = 5e-9

// GumbelSurv is P(S > x) for a Gumbel with location mu and scale lambda
// (esl_gumbel_surv), with Easel's small-tail approximation.
func GumbelSurv(x, mu, lambda float64) float64 {
	y := lambda * (x - mu)
	ey := -ExpFTZ(-y)
	if math.Abs(ey) < smallX1 {
		return -ey
	}
	return 1 - ExpFTZ(ey)
}

// ExpSurv is P(S > x) for an exponential tail starting at mu (esl_exp_surv).
func ExpSurv(x, mu, lambda float64) float64 {
	if x < mu {
		return 1.0
	}
	return ExpFTZ(-lambda * (x - mu))
}

// ExpLogSurv is log P(S > x) for the exponential tail (esl_exp_logsurv).
func ExpLogSurv(x, mu, lambda float64) float64 {
	if x < mu {
		return 0.0
	}
	return -lambda * (x - mu)
}
