package hits

import (
	"github.com/hmmgo/hmmgo/easel"
	"sort"
	"strings"
)

// TopHits is one query's hit list: the hits the pipeline kept, in
// database order until Sort ranks them, and the totals Threshold sets.
type TopHits struct {
	Hits      []*Hit
	NReported int // hits flagged IsReported
	NIncluded int // hits flagged IsIncluded
}

// EValue is exp(lnP)*Z as hmmsearch computes it: glibc's exp, in the
// flush-to-zero mode hmmsearch runs in, so P-values below the smallest
// normal double give E-value 0 as HMMER prints them.
func EValue(lnP, z float64) float64 { return easel.Flush64(easel.ExpFTZ(lnP) * z) }

// ApplyCutoffs switches t to model-specific bit-score thresholds (Pfam
// GA, TC or NC lines): seq for sequences and dom for domains, both for
// reporting and inclusion, as p7_pli_NewModelThresholds does.
func (t *Thresholds) ApplyCutoffs(seq, dom float32) {
	t.ByBits, t.DomByBits, t.IncByBits, t.IncDomByBits = true, true, true, true
	t.T, t.IncT = float64(seq), float64(seq)
	t.DomT, t.IncDomT = float64(dom), float64(dom)
}

// TargetReportable is p7_pli_TargetReportable: E-value exp(lnP)*Z <= E,
// or score >= T when reporting is by bits.
func (t *Thresholds) TargetReportable(score float32, lnP float64) bool {
	if t.ByBits {
		return float64(score) >= t.T
	}
	return EValue(lnP, t.Z) <= t.E
}

// TargetIncludable is p7_pli_TargetIncludable.
func (t *Thresholds) TargetIncludable(score float32, lnP float64) bool {
	if t.IncByBits {
		return float64(score) >= t.IncT
	}
	return EValue(lnP, t.Z) <= t.IncE
}

// DomainReportable is p7_pli_DomainReportable: conditional E-value
// exp(lnP)*domZ <= domE, or bit score >= domT.
func (t *Thresholds) DomainReportable(bits float32, lnP float64) bool {
	if t.DomByBits {
		return float64(bits) >= t.DomT
	}
	return EValue(lnP, t.DomZ) <= t.DomE
}

// DomainIncludable is p7_pli_DomainIncludable.
func (t *Thresholds) DomainIncludable(bits float32, lnP float64) bool {
	if t.IncDomByBits {
		return float64(bits) >= t.IncDomT
	}
	return EValue(lnP, t.DomZ) <= t.IncDomE
}

// SortKey is the key a new hit gets in p7_Pipeline: -lnP, or the bit
// score when inclusion is by bit score (-T alone does not change it;
// --incT and the --cut_* options do).
func (t *Thresholds) SortKey(score float32, lnP float64) float64 {
	if t.IncByBits {
		return float64(score)
	}
	return -lnP
}

// Sort ranks the hits as p7_tophits_SortBySortkey does: sort key
// descending; ties by name (byte order, like strcmp), then by the first
// domain's alignment start (forward-strand hits first, then by iali
// ascending). Hits equal in all of these keep their database order: HMMER
// 3.3.2 uses glibc's qsort on pointers, which is a stable merge sort.
func (th *TopHits) Sort() {
	sort.SliceStable(th.Hits, func(a, b int) bool { return hitBefore(th.Hits[a], th.Hits[b]) })
}

func hitBefore(h1, h2 *Hit) bool {
	if h1.SortKey != h2.SortKey {
		return h1.SortKey > h2.SortKey
	}
	if c := strings.Compare(h1.Name, h2.Name); c != 0 {
		return c < 0
	}
	if len(h1.Domains) == 0 || len(h2.Domains) == 0 {
		return false // HMMER never lists a hit without domains
	}
	d1, d2 := &h1.Domains[0], &h2.Domains[0]
	fwd1, fwd2 := d1.IAli < d1.JAli, d2.IAli < d2.JAli
	if fwd1 != fwd2 {
		return fwd1
	}
	return d1.IAli < d2.IAli
}

// Threshold flags the reported and included hits and domains as
// p7_tophits_Threshold does (hits must be sorted first):
//
//   - hits: reported by -E/-T with the final Z, included when also within
//     --incE/--incT; with --cut_ga/tc/nc the model cutoffs decide instead
//     (as p7_Pipeline flags them; flags already set are kept);
//   - domZ becomes the number of reported hits unless --domZ set it;
//   - domains of reported hits: reported by --domE/--domT with domZ,
//     included only when the hit is included too; with cutoffs each
//     domain is judged by the domain cutoff alone, whatever its hit;
//   - per-hit NReported/NIncluded count the flagged domains;
//   - last, workaround_bug_h74: of two domains of a hit with overlapping
//     envelopes (NOverlaps > 0) whose alignments have the same iali and
//     jali, the one with the lower bit score (the later one on ties) loses
//     its flags.
func (th *TopHits) Threshold(t *Thresholds) {
	cutoffs := t.Cutoff != NoCutoff
	for _, h := range th.Hits {
		if cutoffs {
			// p7_Pipeline sets these when it creates the hit.
			if t.TargetReportable(h.Score, h.LnP) {
				h.Flags |= IsReported
				if t.TargetIncludable(h.Score, h.LnP) {
					h.Flags |= IsIncluded
				}
			}
			for d := range h.Domains {
				dom := &h.Domains[d]
				if t.DomainReportable(dom.BitScore, dom.LnP) {
					dom.IsReported = true
					if t.DomainIncludable(dom.BitScore, dom.LnP) {
						dom.IsIncluded = true
					}
				}
			}
		} else if h.Flags&IsDuplicate == 0 && t.TargetReportable(h.Score, h.LnP) {
			h.Flags |= IsReported
			if t.TargetIncludable(h.Score, h.LnP) {
				h.Flags |= IsIncluded
			}
		}
	}

	th.NReported, th.NIncluded = 0, 0
	for _, h := range th.Hits {
		if h.Flags&IsReported != 0 {
			th.NReported++
		}
		if h.Flags&IsIncluded != 0 {
			th.NIncluded++
		}
	}
	if !t.DomZFromOpt {
		t.DomZ = float64(th.NReported)
	}

	if !cutoffs {
		for _, h := range th.Hits {
			if h.Flags&IsReported == 0 {
				continue
			}
			for d := range h.Domains {
				dom := &h.Domains[d]
				if t.DomainReportable(dom.BitScore, dom.LnP) {
					dom.IsReported = true
				}
				if h.Flags&IsIncluded != 0 && t.DomainIncludable(dom.BitScore, dom.LnP) {
					dom.IsIncluded = true
				}
			}
		}
	}

	for _, h := range th.Hits {
		h.NReported, h.NIncluded = 0, 0
		for d := range h.Domains {
			if h.Domains[d].IsReported {
				h.NReported++
			}
			if h.Domains[d].IsIncluded {
				h.NIncluded++
			}
		}
	}
	th.dropDuplicateAlignments()
}

// dropDuplicateAlignments is HMMER's workaround_bug_h74: overlapping
// envelopes can be rescored into the very same alignment; only the better
// one is shown.
func (th *TopHits) dropDuplicateAlignments() {
	for _, h := range th.Hits {
		if h.NOverlaps == 0 {
			continue
		}
		for d1 := 0; d1 < len(h.Domains); d1++ {
			for d2 := d1 + 1; d2 < len(h.Domains); d2++ {
				a, b := &h.Domains[d1], &h.Domains[d2]
				if a.IAli != b.IAli || a.JAli != b.JAli {
					continue
				}
				drop := a
				if a.BitScore >= b.BitScore {
					drop = b
				}
				if drop.IsReported {
					drop.IsReported = false
					h.NReported--
				}
				if drop.IsIncluded {
					drop.IsIncluded = false
					h.NIncluded--
				}
			}
		}
	}
}
