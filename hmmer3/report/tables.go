package report

import (
	"io"
	"time"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
)

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// tableWidths are the name and accession columns of both tables: at least
// 20 and 10 characters, wider for the longest name or accession in the
// whole hit list (reported or not).
func tableWidths(qname, qacc string, th *hits.TopHits) (tnamew, taccw, qnamew, qaccw int) {
	return max(20, maxShownLength(th, false)), max(10, maxAccLength(th)), max(20, len(qname)), max(10, len(qacc))
}

// TabularTargets writes one query's --tblout lines
// (p7_tophits_TabularTargets), with the three-line column header when
// header is set (hmmsearch sets it for the first query only).
func TabularTargets(w io.Writer, qname, qacc string, th *hits.TopHits, t *hits.Thresholds, header bool) error {
	out := &writer{w: w}
	tnamew, taccw, qnamew, qaccw := tableWidths(qname, qacc, th)
	if header {
		out.printf("#%s %22s %22s %33s\n", rjust("", tnamew+qnamew+taccw+qaccw+2),
			"--- full sequence ----", "--- best 1 domain ----", "--- domain number estimation ----")
		out.printf("#%s %s %s %s %9s %6s %5s %9s %6s %5s %5s %3s %3s %3s %3s %3s %3s %3s %s\n",
			ljust(" target name", tnamew-1), ljust("accession", taccw), ljust("query name", qnamew), ljust("accession", qaccw),
			"  E-value", " score", " bias", "  E-value", " score", " bias", "exp", "reg", "clu", " ov", "env", "dom", "rep", "inc",
			"description of target")
		out.printf("#%s %s %s %s %9s %6s %5s %9s %6s %5s %5s %3s %3s %3s %3s %3s %3s %3s %s\n",
			rjust("-------------------", tnamew-1), rjust("----------", taccw), rjust("--------------------", qnamew), rjust("----------", qaccw),
			"---------", "------", "-----", "---------", "------", "-----", "---", "---", "---", "---", "---", "---", "---", "---",
			"---------------------")
	}
	for _, h := range th.Hits {
		if h.Flags&hits.IsReported == 0 {
			continue
		}
		d := &h.Domains[h.BestDomain]
		out.printf("%s %s %s %s %s %6.1f %5.1f %s %6.1f %5.1f %5.1f %3d %3d %3d %3d %3d %3d %3d %s\n",
			ljust(h.Name, tnamew), ljust(orDash(h.Acc), taccw), ljust(qname, qnamew), ljust(orDash(qacc), qaccw),
			num("%9.2g", evalue(h.LnP, t.Z)), float64(h.Score), float64(h.PreScore-h.Score),
			num("%9.2g", evalue(d.LnP, t.Z)), float64(d.BitScore), float64(d.DomBias)*log2e,
			float64(h.NExpected), h.NRegions, h.NClustered, h.NOverlaps, h.NEnvelopes, len(h.Domains), h.NReported, h.NIncluded,
			orDash(h.Desc))
	}
	return out.err
}

// TabularDomains writes one query's --domtblout lines
// (p7_tophits_TabularDomains): one per reported domain of each reported
// hit.
func TabularDomains(w io.Writer, qname, qacc string, th *hits.TopHits, t *hits.Thresholds, header bool) error {
	out := &writer{w: w}
	tnamew, taccw, qnamew, qaccw := tableWidths(qname, qacc, th)
	if header {
		out.printf("#%s %22s %40s %11s %11s %11s\n", rjust("", tnamew+qnamew-1+15+taccw+qaccw),
			"--- full sequence ---", "-------------- this domain -------------", "hmm coord", "ali coord", "env coord")
		out.printf("#%s %s %5s %s %s %5s %9s %6s %5s %3s %3s %9s %9s %6s %5s %5s %5s %5s %5s %5s %5s %4s %s\n",
			ljust(" target name", tnamew-1), ljust("accession", taccw), "tlen", ljust("query name", qnamew), ljust("accession", qaccw),
			"qlen", "E-value", "score", "bias", "#", "of", "c-Evalue", "i-Evalue", "score", "bias",
			"from", "to", "from", "to", "from", "to", "acc", "description of target")
		out.printf("#%s %s %5s %s %s %5s %9s %6s %5s %3s %3s %9s %9s %6s %5s %5s %5s %5s %5s %5s %5s %4s %s\n",
			rjust("-------------------", tnamew-1), rjust("----------", taccw), "-----", rjust("--------------------", qnamew),
			rjust("----------", qaccw), "-----", "---------", "------", "-----", "---", "---", "---------", "---------",
			"------", "-----", "-----", "-----", "-----", "-----", "-----", "-----", "----", "---------------------")
	}
	for _, h := range th.Hits {
		if h.Flags&hits.IsReported == 0 {
			continue
		}
		nd := 0
		for i := range h.Domains {
			d := &h.Domains[i]
			if !d.IsReported {
				continue
			}
			nd++
			ad := d.Ad
			out.printf("%s %s %5d %s %s %5d %s %6.1f %5.1f %3d %3d %s %s %6.1f %5.1f %5d %5d %5d %5d %5d %5d %4.2f %s\n",
				ljust(h.Name, tnamew), ljust(orDash(h.Acc), taccw), ad.L, ljust(qname, qnamew), ljust(orDash(qacc), qaccw), ad.M,
				num("%9.2g", evalue(h.LnP, t.Z)), float64(h.Score), float64(h.PreScore-h.Score), nd, h.NReported,
				num("%9.2g", evalue(d.LnP, t.DomZ)), num("%9.2g", evalue(d.LnP, t.Z)), float64(d.BitScore), float64(d.DomBias)*log2e,
				ad.HMMFrom, ad.HMMTo, ad.SqFrom, ad.SqTo, d.IEnv, d.JEnv, meanPostProb(d), orDash(h.Desc))
		}
	}
	return out.err
}

// Tail describes a table's closing comment block (p7_tophits_TabularTail).
type Tail struct {
	Program    string // "hmmsearch"
	Version    string // printed as "# Version:" (HMMER prints "3.3.2 (Nov 2020)")
	QueryFile  string
	TargetFile string
	Options    string // the command line, options then arguments, each followed by a blank
	Cwd        string // empty prints "[unknown]"
	Date       time.Time
}

// TabularTail writes the trailer that ends both tables.
func TabularTail(w io.Writer, tail Tail) error {
	out := &writer{w: w}
	cwd := tail.Cwd
	if cwd == "" {
		cwd = "[unknown]"
	}
	out.str("#\n")
	out.printf("# Program:         %s\n", noneIfEmpty(tail.Program))
	out.printf("# Version:         %s\n", tail.Version)
	out.printf("# Pipeline mode:   %s\n", "SEARCH")
	out.printf("# Query file:      %s\n", noneIfEmpty(tail.QueryFile))
	out.printf("# Target file:     %s\n", noneIfEmpty(tail.TargetFile))
	out.printf("# Option settings: %s\n", tail.Options)
	out.printf("# Current dir:     %s\n", cwd)
	out.printf("# Date:            %s\n", ctime(tail.Date))
	out.str("# [ok]\n")
	return out.err
}

func noneIfEmpty(s string) string {
	if s == "" {
		return "[none]"
	}
	return s
}

// ctime is C's ctime() text without its newline: "Wed Jun 30 21:49:08 1993".
func ctime(t time.Time) string { return t.Format("Mon Jan _2 15:04:05 2006") }
