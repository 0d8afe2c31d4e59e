package search

import (
	"bytes"
	"fmt"
	"io"
	"math"
)

// histogram is HMMER2's score histogram (histogram_s): integer bins
// that grow in lumps of 100, and an optional EVD fit to print beside it.
type histogram struct {
	bins                []int
	min, max            int
	lowscore, highscore int
	lumpsize            int
	total               int

	fitted     bool
	expect     []float32
	mu, lambda float32
	chisq      float32
	chip       float32
}

func newHistogram(min, max, lumpsize int) *histogram {
	return &histogram{
		bins: make([]int, max-min+1), min: min, max: max,
		lowscore: math.MaxInt32, highscore: math.MinInt32, lumpsize: lumpsize,
	}
}

// add bins a score rounded down (AddToHistogram).
func (h *histogram) add(sc float32) {
	h.addN(int(math.Floor(float64(sc))), 1)
}

// addN adds n scores to bin score. The bin range grows as HMMER2's does;
// the printed histogram depends only on the counts, not on the order in
// which the range grew, so a merge may add shards' bins in any order.
func (h *histogram) addN(score, n int) {
	if score < h.min {
		moveby := (h.min - score) + h.lumpsize
		nb := make([]int, len(h.bins)+moveby)
		copy(nb[moveby:], h.bins)
		h.bins = nb
		h.min -= moveby
	} else if score > h.max {
		h.max = h.lumpsize + score
		nb := make([]int, h.max-h.min+1)
		copy(nb, h.bins)
		h.bins = nb
	}
	h.bins[score-h.min] += n
	h.total += n
	if score < h.lowscore {
		h.lowscore = score
	}
	if score > h.highscore {
		h.highscore = score
	}
}

// setEVD attaches the theoretical EVD curve and its chi-square fit over
// lowbound..highbound (ExtremeValueSetHistogram with ndegrees 0).
func (h *histogram) setEVD(mu, lambda float32, lowbound, highbound int) {
	h.fitted = true
	h.mu, h.lambda = mu, lambda
	h.expect = make([]float32, h.max-h.min+1)
	for sc := h.min; sc <= h.max; sc++ {
		e1 := float64(h.total) * ExtremeValueP(float32(sc), mu, lambda)
		e2 := float64(h.total) * ExtremeValueP(float32(sc+1), mu, lambda)
		h.expect[sc-h.min] = float32(e1 - e2)
	}
	h.chisq = 0
	nbins := 0
	for sc := lowbound; sc <= highbound; sc++ {
		e := h.expect[sc-h.min]
		if e >= 5. && h.bins[sc-h.min] >= 5 {
			delta := float32(h.bins[sc-h.min]) - e
			h.chisq += float32(delta*delta) / e
			nbins++
		}
	}
	if nbins > 1 {
		h.chip, _ = reportedChiP(float64(nbins-1)/2., float64(h.chisq)/2.)
	} else {
		h.chip = 0
	}
}

// cInt is C's (int) conversion of a float on x86-64: values out of
// range become INT_MIN.
func cInt(f float32) int {
	if f != f || f >= 2147483648. || f < -2147483648. {
		return math.MinInt32
	}
	return int(int32(f))
}

// print writes the histogram exactly as PrintASCIIHistogram() does,
// including its fixed 80-byte line buffer: lines are padded to 79
// characters, and a "<" or ">" line whose count is 0 ends without a
// newline because its sprintf terminator is never overwritten.
func (h *histogram) print(w io.Writer) {
	const emptybins = 3
	maxbar := 0
	lowbound := 0
	for i := h.lowscore - h.min; i <= h.highscore-h.min; i++ {
		if h.bins[i] > maxbar {
			maxbar = h.bins[i]
			lowbound = i + h.min
		}
	}
	highbound := lowbound
	for num := 0; lowbound > h.lowscore; lowbound-- {
		i := lowbound - h.min
		if h.bins[i] > 0 {
			num = 0
			continue
		}
		num++
		if num == emptybins {
			lowbound += emptybins
			break
		}
	}
	for num := 0; highbound < h.highscore; highbound++ {
		i := highbound - h.min
		if h.bins[i] > 0 {
			num = 0
			continue
		}
		num++
		if num == emptybins {
			highbound -= emptybins
			break
		}
	}
	lowcount, highcount := 0, 0
	for i := h.lowscore - h.min; i <= lowbound-h.min; i++ {
		lowcount += h.bins[i]
	}
	for i := h.highscore - h.min; i >= highbound-h.min; i-- {
		highcount += h.bins[i]
	}
	if lowcount > maxbar {
		maxbar = lowcount
	}
	if highcount > maxbar {
		maxbar = highcount
	}
	units := (maxbar-1)/59 + 1

	fmt.Fprintf(w, "%5s %6s %6s  (one = represents %d sequences)\n", "score", "obs", "exp", units)
	fmt.Fprintf(w, "%5s %6s %6s\n", "-----", "---", "---")
	var buf [81]byte
	put := func(at int, s string) { // sprintf into the buffer, with its NUL
		n := copy(buf[at:80], s)
		if at+n < 81 {
			buf[at+n] = 0
		}
	}
	flush := func() {
		end := bytes.IndexByte(buf[:], 0)
		if end < 0 {
			end = 80
		}
		w.Write(buf[:end])
	}
	bar := func(count int) {
		if count > 0 {
			for pos, num := 20, 1+(count-1)/units; num > 0 && pos < 79; num-- {
				buf[pos] = '='
				pos++
			}
		}
	}
	for i := h.lowscore; i <= h.highscore; i++ {
		for j := 0; j < 79; j++ {
			buf[j] = ' '
		}
		buf[79], buf[80] = '\n', 0
		idx := i - h.min
		switch {
		case i < lowbound, i > highbound:
			continue
		case i == lowbound && i != h.lowscore:
			put(0, fmt.Sprintf("<%4d %6d %6s|", i+1, lowcount, "-"))
			bar(lowcount)
			flush()
			continue
		case i == highbound && i != h.highscore:
			put(0, fmt.Sprintf(">%4d %6d %6s|", i, highcount, "-"))
			bar(highcount)
			flush()
			continue
		}
		if h.fitted {
			put(0, fmt.Sprintf("%5d %6d %6d|", i, h.bins[idx], cInt(h.expect[idx])))
		} else {
			put(0, fmt.Sprintf("%5d %6d %6s|", i, h.bins[idx], "-"))
		}
		buf[20] = ' '
		bar(h.bins[idx])
		if h.fitted && cInt(h.expect[idx]) > 0 {
			pos := 20 + cInt(h.expect[idx]-1)/units
			if pos >= 78 {
				pos = 78
			}
			buf[pos] = '*'
		}
		flush()
	}
	if !h.fitted {
		fmt.Fprintf(w, "\n\n%% No statistical fit available\n")
		return
	}
	fmt.Fprintf(w, "\n\n%% Statistical details of theoretical EVD fit:\n")
	fmt.Fprintf(w, "              mu = %10.4f\n", float64(h.mu))
	fmt.Fprintf(w, "          lambda = %10.4f\n", float64(h.lambda))
	fmt.Fprintf(w, "chi-sq statistic = %10.4f\n", float64(h.chisq))
	fmt.Fprintf(w, "  P(chi-square)  = %10.4g\n", float64(h.chip))
}
