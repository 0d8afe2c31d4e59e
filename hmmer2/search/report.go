package search

import (
	"fmt"
	"io"
	"math"
)

// writeHeader prints the banner and the settings block.
func writeHeader(w io.Writer, o *Options, hmmName string, th thresholds, autocut cutoff) {
	writeBanner(w)
	fmt.Fprintf(w, "HMM file:                   %s [%s]\n", o.HMMFile, hmmName)
	fmt.Fprintf(w, "Sequence database:          %s\n", o.SeqFile)
	tag := func(n int) string {
		switch autocut {
		case cutGA:
			return fmt.Sprintf(" [GA%d]", n)
		case cutNC:
			return fmt.Sprintf(" [NC%d]", n)
		case cutTC:
			return fmt.Sprintf(" [TC%d]", n)
		}
		return ""
	}
	fmt.Fprintf(w, "per-sequence score cutoff:  ")
	if th.globT == -math.MaxFloat32 {
		fmt.Fprintf(w, "[none]\n")
	} else {
		fmt.Fprintf(w, ">= %.1f%s\n", float64(th.globT), tag(1))
	}
	fmt.Fprintf(w, "per-domain score cutoff:    ")
	if th.domT == -math.MaxFloat32 {
		fmt.Fprintf(w, "[none]\n")
	} else {
		fmt.Fprintf(w, ">= %.1f%s\n", float64(th.domT), tag(2))
	}
	fmt.Fprintf(w, "per-sequence Eval cutoff:   ")
	if th.globE == math.MaxFloat32 {
		fmt.Fprintf(w, "[none]\n")
	} else {
		fmt.Fprintf(w, "<= %-10.2g\n", th.globE)
	}
	fmt.Fprintf(w, "per-domain Eval cutoff:     ")
	if th.domE == math.MaxFloat32 {
		fmt.Fprintf(w, "[none]\n")
	} else {
		fmt.Fprintf(w, "<= %10.2g\n", th.domE)
	}
	fmt.Fprintf(w, "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n")
}

func writeBanner(w io.Writer) {
	fmt.Fprintf(w, "%s\n", banner)
	fmt.Fprintf(w, "HMMER 2.3.2 (Oct 2003)\n")
	fmt.Fprintf(w, "Copyright (C) 1992-2003 HHMI/Washington University School of Medicine\n")
	fmt.Fprintf(w, "Freely distributed under the GNU General Public License (GPL)\n")
	fmt.Fprintf(w, "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n")
}

// writeReport prints everything after the search: the per-sequence and
// per-domain tables, the alignments, the histogram and the hit list
// summaries, as hmmsearch's main() does.
func (e *engine) writeReport(w io.Writer) {
	h, th, o := e.h, e.th, e.opt
	if h.HasStats {
		e.hist.setEVD(h.Mu, h.Lambda, e.hist.lowscore, e.hist.highscore)
	}
	Z := float64(th.Z)
	if th.Z == 0 {
		Z = float64(e.nseq)
	}
	acc, desc := "[none]", "[none]"
	if h.HasAcc {
		acc = h.Acc
	}
	if h.HasDesc {
		desc = h.Desc
	}
	if o.Compat {
		acc, desc = "", ""
		if h.HasAcc {
			acc = h.Acc
		}
		if h.HasDesc {
			desc = h.Desc
		}
		fmt.Fprintf(w, "\nQuery HMM: %s|%s|%s\n", h.Name, acc, desc)
	} else {
		fmt.Fprintf(w, "\nQuery HMM:   %s\n", h.Name)
		fmt.Fprintf(w, "Accession:   %s\n", acc)
		fmt.Fprintf(w, "Description: %s\n", desc)
	}
	if h.HasStats {
		fmt.Fprintf(w, "  [HMM has been calibrated; E-values are empirical estimates]\n")
	} else {
		fmt.Fprintf(w, "  [No calibration for HMM; E-values are upper bounds]\n")
	}

	e.ghit.sort()
	namewidth := max(8, e.ghit.maxName())
	descwidth := max(52-namewidth, 11)
	fmt.Fprintf(w, "\nScores for complete sequences (score includes all domains):\n")
	fmt.Fprintf(w, "%-*s %-*s %7s %10s %3s\n", namewidth, "Sequence", descwidth, "Description", "Score", "E-value", " N ")
	fmt.Fprintf(w, "%-*s %-*s %7s %10s %3s\n", namewidth, "--------", descwidth, "-----------", "-----", "-------", "---")
	nreported := 0
	for _, g := range e.ghit.hits {
		evalue := g.pvalue * Z
		if evalue <= th.globE && g.score >= th.globT {
			d := ""
			if g.hasDesc {
				d = g.desc
			}
			if len(d) > descwidth {
				d = d[:descwidth]
			}
			fmt.Fprintf(w, "%-*s %-*s %7.1f %10.2g %3d\n", namewidth, g.name, descwidth, d, float64(g.score), evalue, g.ndom)
			nreported++
		}
	}
	if nreported == 0 {
		fmt.Fprintf(w, "\t[no hits above thresholds]\n")
	}

	e.dhit.sort()
	namewidth = max(8, e.dhit.maxName())
	fmt.Fprintf(w, "\nParsed for domains:\n")
	fmt.Fprintf(w, "%-*s %7s %5s %5s    %5s %5s    %7s %8s\n",
		namewidth, "Sequence", "Domain ", "seq-f", "seq-t", "hmm-f", "hmm-t", "score", "E-value")
	fmt.Fprintf(w, "%-*s %7s %5s %5s    %5s %5s    %7s %8s\n",
		namewidth, "--------", "-------", "-----", "-----", "-----", "-----", "-----", "-------")
	shown := func(d *hit) bool {
		if d.motherp*Z > th.globE || d.mothersc < th.globT {
			return false
		}
		return d.pvalue*Z <= th.domE && d.score >= th.domT
	}
	nreported = 0
	for _, d := range e.dhit.hits {
		if !shown(d) {
			continue
		}
		fmt.Fprintf(w, "%-*s %3d/%-3d %5d %5d %c%c %5d %5d %c%c %7.1f %8.2g\n",
			namewidth, d.name, d.domidx, d.ndom, d.sqfrom, d.sqto,
			bracket(d.sqfrom == 1, '['), bracket(d.sqto == d.sqlen, ']'),
			d.hmmfrom, d.hmmto,
			bracket(d.hmmfrom == 1, '['), bracket(d.hmmto == h.M, ']'),
			float64(d.score), d.pvalue*Z)
		nreported++
	}
	if nreported == 0 {
		fmt.Fprintf(w, "\t[no hits above thresholds]\n")
	}

	if o.Alimit != 0 {
		fmt.Fprintf(w, "\nAlignments of top-scoring domains:\n")
		nreported = 0
		for _, d := range e.dhit.hits {
			if nreported == o.Alimit {
				break
			}
			if !shown(d) {
				continue
			}
			fmt.Fprintf(w, "%s: domain %d of %d, from %d to %d: score %.1f, E = %.2g\n",
				d.name, d.domidx, d.ndom, d.sqfrom, d.sqto, float64(d.score), d.pvalue*Z)
			d.ali.print(w)
			nreported++
		}
		if nreported == 0 {
			fmt.Fprintf(w, "\t[no hits above thresholds]\n")
		}
		if nreported == o.Alimit {
			fmt.Fprintf(w, "\t[output cut off at A = %d top alignments]\n", o.Alimit)
		}
	}

	fmt.Fprintf(w, "\nHistogram of all scores:\n")
	e.hist.print(w)

	fmt.Fprintf(w, "\nTotal sequences searched: %d\n", e.nseq)
	fmt.Fprintf(w, "\nWhole sequence top hits:\n")
	e.ghit.report(w, th.globE, e.nseq)
	fmt.Fprintf(w, "\nDomain top hits:\n")
	e.dhit.report(w, th.domE, e.nseq)
}

func bracket(cond bool, c byte) byte {
	if cond {
		return c
	}
	return '.'
}
