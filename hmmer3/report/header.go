package report

import (
	"io"
	"strconv"
	"strings"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
)

// Version is what hmmgo's reports print where HMMER prints its version.
const Version = "0.1 (HMMER 3.3.2 compatible)"

// Banner writes the four-line program banner and its rule. HMMER's second
// line names HMMER's version, date and web site, and the next two its
// copyright and license; hmmgo names itself there, keeping the layout
// (and "# name version ...; http..." shape) that parsers look for.
func Banner(w io.Writer, program, summary string) error {
	out := &writer{w: w}
	out.printf("# %s :: %s\n", program, summary)
	out.printf("# hmmgo %s; https://github.com/hmmgo/hmmgo\n", Version)
	out.str("# Re-implements HMMER (http://hmmer.org/), Copyright (C) 2020 Howard Hughes Medical Institute.\n")
	out.str("# HMMER is freely distributed under the BSD open source license.\n")
	out.str("# - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n")
	return out.err
}

// Setting is one option in effect: its name as typed in HMMER's option
// table ("-E", "--tblout") and its argument ("" for switches).
type Setting struct{ Name, Value string }

// headerLines maps each option to its header line, in the order
// hmmsearch's output_header prints them. A verb in the text takes the
// option's value: %s as given, %d as C's atoi, %g as C's "%g" of atof,
// %.0f likewise.
var headerLines = []struct{ name, text string }{
	{"-o", "# output directed to file:         %s"},
	{"-A", "# MSA of all hits saved to file:   %s"},
	{"--tblout", "# per-seq hits tabular output:     %s"},
	{"--domtblout", "# per-dom hits tabular output:     %s"},
	{"--pfamtblout", "# pfam-style tabular hit output:   %s"},
	{"--acc", "# prefer accessions over names:    yes"},
	{"--noali", "# show alignments in output:       no"},
	{"--notextw", "# max ASCII text line length:      unlimited"},
	{"--textw", "# max ASCII text line length:      %d"},
	{"-E", "# sequence reporting threshold:    E-value <= %g"},
	{"-T", "# sequence reporting threshold:    score >= %g"},
	{"--domE", "# domain reporting threshold:      E-value <= %g"},
	{"--domT", "# domain reporting threshold:      score >= %g"},
	{"--incE", "# sequence inclusion threshold:    E-value <= %g"},
	{"--incT", "# sequence inclusion threshold:    score >= %g"},
	{"--incdomE", "# domain inclusion threshold:      E-value <= %g"},
	{"--incdomT", "# domain inclusion threshold:      score >= %g"},
	{"--cut_ga", "# model-specific thresholding:     GA cutoffs"},
	{"--cut_nc", "# model-specific thresholding:     NC cutoffs"},
	{"--cut_tc", "# model-specific thresholding:     TC cutoffs"},
	{"--max", "# Max sensitivity mode:            on [all heuristic filters off]"},
	{"--F1", "# MSV filter P threshold:       <= %g"},
	{"--F2", "# Vit filter P threshold:       <= %g"},
	{"--F3", "# Fwd filter P threshold:       <= %g"},
	{"--nobias", "# biased composition HMM filter:   off"},
	{"--restrictdb_stkey", "# Restrict db to start at seq key: %s"},
	{"--restrictdb_n", "# Restrict db to # target seqs:    %d"},
	{"--ssifile", "# Override ssi file to:            %s"},
	{"--nonull2", "# null2 bias corrections:          off"},
	{"-Z", "# sequence search space set to:    %.0f"},
	{"--domZ", "# domain search space set to:      %.0f"},
	{"--seed", "# random number seed set to:       %d"},
	{"--tformat", "# targ <seqfile> format asserted:  %s"},
	{"--cpu", "# number of worker threads:        %d"},
}

// SearchHeader writes hmmsearch's banner-following lines: the input files,
// one line per option in effect (used, in any order; hmmsearch lists an
// option when it differs from its default) and the closing rule with a
// blank line.
func SearchHeader(w io.Writer, hmmfile, seqfile string, used []Setting) error {
	out := &writer{w: w}
	out.printf("# query HMM file:                  %s\n", hmmfile)
	out.printf("# target sequence database:        %s\n", seqfile)
	for _, l := range headerLines {
		for _, s := range used {
			if s.Name != l.name {
				continue
			}
			if l.name == "--seed" && atoi(s.Value) == 0 {
				out.str("# random number seed:              one-time arbitrary\n")
				continue
			}
			out.str(fillValue(l.text, s.Value) + "\n")
		}
	}
	out.str("# - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n\n")
	return out.err
}

func fillValue(text, v string) string {
	switch {
	case strings.HasSuffix(text, "%s"):
		return strings.TrimSuffix(text, "%s") + v
	case strings.HasSuffix(text, "%d"):
		return strings.TrimSuffix(text, "%d") + strconv.Itoa(atoi(v))
	case strings.HasSuffix(text, "%g"):
		return strings.TrimSuffix(text, "%g") + num("%.6g", Atof(v))
	case strings.HasSuffix(text, "%.0f"):
		return strings.TrimSuffix(text, "%.0f") + num("%.0f", Atof(v))
	}
	return text
}

// atoi is C's atoi: leading blanks, an optional sign, then digits; 0 when
// there are none.
func atoi(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	n, i, neg := 0, 0, false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

// Atof reads a number as C's atof does for the arguments Easel accepts:
// surrounding blanks are allowed; anything unreadable is 0.
func Atof(s string) float64 {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil && x == 0 {
		return 0
	}
	return x
}

// Query writes the lines that open one query's results.
func Query(w io.Writer, name, acc, desc string, m int) error {
	out := &writer{w: w}
	out.printf("Query:       %s  [M=%d]\n", name, m)
	if acc != "" {
		out.printf("Accession:   %s\n", acc)
	}
	if desc != "" {
		out.printf("Description: %s\n", desc)
	}
	return out.err
}

// Timing is one query's resource use, printed after the statistics.
type Timing struct {
	User, Sys, Elapsed float64 // seconds
}

// Statistics writes "Internal pipeline statistics summary"
// (p7_pli_Statistics, search mode). t gives Z and domZ and how they were
// set. With timing, the "# CPU time" and "# Mc/sec" lines follow.
func Statistics(w io.Writer, st *hits.Stats, t *hits.Thresholds, timing *Timing) error {
	out := &writer{w: w}
	out.str("Internal pipeline statistics summary:\n")
	out.str("-------------------------------------\n")
	out.printf("Query model(s):              %15d  (%d nodes)\n", st.NModels, st.NNodes)
	out.printf("Target sequences:            %15d  (%d residues searched)\n", st.NSeqs, st.NRes)
	n := float64(st.NSeqs)
	passed := func(label string, count int64, f float64) {
		out.printf("%s%15d  (%s); expected %s (%s)\n", label, count,
			num("%.6g", float64(count)/n), num("%.1f", f*n), num("%.6g", f))
	}
	passed("Passed MSV filter:           ", st.NPastMSV, st.F1)
	passed("Passed bias filter:          ", st.NPastBias, st.F1)
	passed("Passed Vit filter:           ", st.NPastVit, st.F2)
	passed("Passed Fwd filter:           ", st.NPastFwd, st.F3)
	zHow, domZHow := "[actual number of targets]", "[number of targets reported over threshold]"
	if t.ZFromOption {
		zHow = "[as set by --Z on cmdline]"
	}
	if t.DomZFromOpt {
		domZHow = "[as set by --domZ on cmdline]"
	}
	out.printf("Initial search space (Z):    %s  %s\n", num("%15.0f", t.Z), zHow)
	out.printf("Domain search space  (domZ): %s  %s\n", num("%15.0f", t.DomZ), domZHow)
	if timing != nil {
		out.printf("# CPU time: %.2fu %.2fs %s Elapsed: %s\n", timing.User, timing.Sys,
			clock(timing.User+timing.Sys), clock(timing.Elapsed))
		out.printf("# Mc/sec: %s\n", num("%.2f", float64(st.NRes)*float64(st.NNodes)/(timing.Elapsed*1.0e6)))
	}
	return out.err
}

// clock is Easel's hh:mm:ss.xx time format.
func clock(sec float64) string {
	h := int(sec / 3600.)
	m := int(sec/60.) - h*60
	s := int(sec) - h*3600 - m*60
	hs := int(sec*100.) - h*360000 - m*6000 - s*100
	return two(h) + ":" + two(m) + ":" + two(s) + "." + two(hs)
}

func two(n int) string {
	if n < 10 && n >= 0 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}
