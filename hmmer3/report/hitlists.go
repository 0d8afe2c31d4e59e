package report

import (
	"io"
	"math"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
)

// Options are the command-line settings that change the text report.
type Options struct {
	TextWidth      int  // --textw; 0 means unlimited (--notextw)
	ShowAccessions bool // --acc: accessions instead of names where present
	ShowAlignments bool // false with --noali
}

// DefaultOptions are hmmsearch's defaults.
func DefaultOptions() Options { return Options{TextWidth: 120, ShowAlignments: true} }

// shownName is the hit's accession under --acc when it has one.
func shownName(h *hits.Hit, acc bool) string {
	if acc && h.Acc != "" {
		return h.Acc
	}
	return h.Name
}

// The name column is as wide as the longest name of every hit in the list,
// reported or not, as in p7_tophits_GetMaxNameLength and ...ShownLength.
func maxShownLength(th *hits.TopHits, acc bool) int {
	n := 0
	for _, h := range th.Hits {
		n = max(n, len(shownName(h, acc)))
	}
	return n
}

func maxAccLength(th *hits.TopHits) int {
	n := 0
	for _, h := range th.Hits {
		n = max(n, len(h.Acc))
	}
	return n
}

// evalue is exp(lnP) times a search space size, as HMMER prints E-values.
func evalue(lnP, z float64) float64 { return hits.EValue(lnP, z) }

// Targets writes the "Scores for complete sequences" table
// (p7_tophits_Targets). th must be sorted and thresholded; t gives Z.
func Targets(w io.Writer, th *hits.TopHits, t *hits.Thresholds, o Options) error {
	out := &writer{w: w}
	namew := max(8, maxShownLength(th, o.ShowAccessions))
	descw := 0
	if o.TextWidth > 0 {
		descw = max(32, o.TextWidth-namew-61)
	}
	out.str("Scores for complete sequences (score includes all domains):\n")
	out.printf("  %22s  %22s  %8s\n", " --- full sequence ---", " --- best 1 domain ---", "-#dom-")
	out.printf("  %9s %6s %5s  %9s %6s %5s  %5s %2s  %s %s\n",
		"E-value", " score", " bias", "E-value", " score", " bias", "  exp", "N", ljust("Sequence", namew), "Description")
	out.printf("  %9s %6s %5s  %9s %6s %5s  %5s %2s  %s %s\n",
		"-------", "------", "-----", "-------", "------", "-----", " ----", "--", ljust("--------", namew), "-----------")

	incthresh := false
	for _, h := range th.Hits {
		if h.Flags&hits.IsReported == 0 {
			continue
		}
		if h.Flags&hits.IsIncluded == 0 && !incthresh {
			out.str("  ------ inclusion threshold ------\n")
			incthresh = true
		}
		newness := ' '
		switch {
		case h.Flags&hits.IsNew != 0:
			newness = '+'
		case h.Flags&hits.IsDropped != 0:
			newness = '-'
		}
		d := &h.Domains[h.BestDomain]
		out.printf("%c %s %6.1f %5.1f  %s %6.1f %5.1f  %5.1f %2d  %s ",
			newness, num("%9.2g", evalue(h.LnP, t.Z)), float64(h.Score), float64(h.PreScore-h.Score),
			num("%9.2g", evalue(d.LnP, t.Z)), float64(d.BitScore), log2e*float64(d.DomBias),
			float64(h.NExpected), h.NReported, ljust(shownName(h, o.ShowAccessions), namew))
		if o.TextWidth > 0 {
			out.printf(" %s\n", trunc(h.Desc, descw))
		} else {
			out.printf(" %s\n", h.Desc)
		}
	}
	if th.NReported == 0 {
		out.str("\n   [No hits detected that satisfy reporting thresholds]\n")
	}
	return out.err
}

// Domains writes "Domain annotation for each sequence" with each reported
// hit's domain table and, unless --noali, its alignments
// (p7_tophits_Domains). t gives Z and domZ.
func Domains(w io.Writer, th *hits.TopHits, t *hits.Thresholds, o Options) error {
	out := &writer{w: w}
	ali := ""
	if o.ShowAlignments {
		ali = " (and alignments)"
	}
	out.printf("Domain annotation for each sequence%s:\n", ali)
	for _, h := range th.Hits {
		if h.Flags&hits.IsReported == 0 {
			continue
		}
		name := shownName(h, o.ShowAccessions)
		if o.TextWidth > 0 {
			out.printf(">> %s  %s\n", name, trunc(h.Desc, max(32, o.TextWidth-len(name)-5)))
		} else {
			out.printf(">> %s  %s\n", name, h.Desc)
		}
		if h.NReported == 0 {
			out.str("   [No individual domains that satisfy reporting thresholds (although complete target did)]\n\n")
			continue
		}
		out.printf(" %3s   %6s %5s %9s %9s %7s %7s %2s %7s %7s %2s %7s %7s %2s %4s\n",
			"#", "score", "bias", "c-Evalue", "i-Evalue", "hmmfrom", "hmm to", "  ", "alifrom", "ali to", "  ", "envfrom", "env to", "  ", "acc")
		out.printf(" %3s   %6s %5s %9s %9s %7s %7s %2s %7s %7s %2s %7s %7s %2s %4s\n",
			"---", "------", "-----", "---------", "---------", "-------", "-------", "  ", "-------", "-------", "  ", "-------", "-------", "  ", "----")
		nd := 0
		for i := range h.Domains {
			d := &h.Domains[i]
			if !d.IsReported {
				continue
			}
			nd++
			ad := d.Ad
			mark := '?'
			if d.IsIncluded {
				mark = '!'
			}
			out.printf(" %3d %c %6.1f %5.1f %s %s %7d %7d %c%c",
				nd, mark, float64(d.BitScore), float64(d.DomBias)*log2e,
				num("%9.2g", evalue(d.LnP, t.DomZ)), num("%9.2g", evalue(d.LnP, t.Z)),
				ad.HMMFrom, ad.HMMTo, bracket(ad.HMMFrom == 1, '['), bracket(ad.HMMTo == ad.M, ']'))
			out.printf(" %7d %7d %c%c", ad.SqFrom, ad.SqTo, bracket(ad.SqFrom == 1, '['), bracket(ad.SqTo == ad.L, ']'))
			out.printf(" %7d %7d %c%c", d.IEnv, d.JEnv, bracket(d.IEnv == 1, '['), bracket(d.JEnv == ad.L, ']'))
			out.printf(" %4.2f\n", meanPostProb(d))
		}

		if !o.ShowAlignments {
			out.str("\n")
			continue
		}
		out.str("\n  Alignments for each domain:\n")
		nd = 0
		for i := range h.Domains {
			d := &h.Domains[i]
			if !d.IsReported {
				continue
			}
			nd++
			out.printf("  == domain %d", nd)
			out.printf("  score: %.1f bits", float64(d.BitScore))
			out.printf(";  conditional E-value: %s\n", num("%.2g", evalue(d.LnP, t.DomZ)))
			if out.err == nil {
				out.err = AliDisplay(w, d.Ad, 40, o.TextWidth, o.ShowAccessions)
			}
			out.str("\n")
		}
	}
	if th.NReported == 0 {
		out.str("\n   [No targets detected that satisfy reporting thresholds]\n")
	}
	return out.err
}

func bracket(end bool, c rune) rune {
	if end {
		return c
	}
	return '.'
}

// meanPostProb is the "acc" column: the optimal accuracy score divided by
// the envelope length, with C's float/double mix (the length difference
// is cast to float before fabs).
func meanPostProb(d *hits.Domain) float64 {
	return float64(d.OASc) / (1.0 + math.Abs(float64(float32(d.JEnv-d.IEnv))))
}

// AliDisplay writes one domain alignment in blocks, as
// p7_nontranslated_alidisplay_Print does: each block is as wide as
// lineWidth allows after the name and coordinate columns (the whole
// alignment when lineWidth is 0), but at least minAliWidth unless the
// alignment is shorter. With showAcc, accessions replace names when set.
func AliDisplay(w io.Writer, ad *hits.AliDisplay, minAliWidth, lineWidth int, showAcc bool) error {
	out := &writer{w: w}
	hmmName, seqName := ad.HMMName, ad.SqName
	if showAcc && ad.HMMAcc != "" {
		hmmName = ad.HMMAcc
	}
	if showAcc && ad.SqAcc != "" {
		seqName = ad.SqAcc
	}
	namew := max(len(hmmName), len(seqName))
	coordw := max(digits(int64(ad.HMMFrom)), digits(int64(ad.HMMTo)), digits(ad.SqFrom), digits(ad.SqTo))
	aliw := ad.N
	if lineWidth > 0 {
		aliw = lineWidth - namew - 2*coordw - 5
	}
	if aliw < ad.N && aliw < minAliWidth {
		aliw = minAliWidth
	}
	if aliw <= 0 {
		return nil // HMMER would loop forever; no display is possible
	}

	forward := ad.SqFrom < ad.SqTo
	i1, k1 := ad.SqFrom, ad.HMMFrom
	pad := rjust("", namew+coordw+1)
	for pos := 0; pos < ad.N; pos += aliw {
		end := min(pos+aliw, ad.N)
		if pos > 0 {
			out.str("\n")
		}
		ni, nk := int64(0), 0
		for z := pos; z < end; z++ {
			if ad.Model[z] != '.' {
				nk++
			}
			if ad.ASeq[z] != '-' {
				ni++
			}
		}
		k2 := k1 + nk - 1
		i2 := i1 - ni + 1
		if forward {
			i2 = i1 + ni - 1
		}

		if ad.CSLine != "" {
			out.printf("  %s %s CS\n", pad, ad.CSLine[pos:end])
		}
		if ad.RFLine != "" {
			out.printf("  %s %s RF\n", pad, ad.RFLine[pos:end])
		}
		if ad.MMLine != "" {
			out.printf("  %s %s MM\n", pad, ad.MMLine[pos:end])
		}
		out.printf("  %s %*d %s %-*d\n", rjust(hmmName, namew), coordw, k1, ad.Model[pos:end], coordw, k2)
		out.printf("  %s %s\n", rjust(" ", namew+coordw+1), ad.MLine[pos:end])
		if ni > 0 {
			out.printf("  %s %*d %s %-*d\n", rjust(seqName, namew), coordw, i1, ad.ASeq[pos:end], coordw, i2)
		} else {
			out.printf("  %s %*s %s %*s\n", rjust(seqName, namew), coordw, "-", ad.ASeq[pos:end], coordw, "-")
		}
		if ad.PPLine != "" {
			out.printf("  %s %s PP\n", pad, ad.PPLine[pos:end])
		}
		k1 += nk
		if forward {
			i1 += ni
		} else {
			i1 -= ni
		}
	}
	return out.err
}

// digits is the printed width of n (HMMER's integer_textwidth; 0 for 0).
func digits(n int64) int {
	w := 0
	if n < 0 {
		w = 1
	}
	for n != 0 {
		n /= 10
		w++
	}
	return w
}
