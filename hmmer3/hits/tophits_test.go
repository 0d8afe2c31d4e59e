package hits

import (
	"fmt"
	"math"
	"testing"
)

func names(th *TopHits) string {
	s := ""
	for _, h := range th.Hits {
		s += h.Name + " "
	}
	return s
}

func TestSortTies(t *testing.T) {
	dom := func(i, j int64) []Domain { return []Domain{{IAli: i, JAli: j}} }
	th := &TopHits{Hits: []*Hit{
		{Name: "b", SortKey: 5, Domains: dom(10, 20), SeqIdx: 0},
		{Name: "a", SortKey: 5, Domains: dom(10, 20), SeqIdx: 1},
		{Name: "top", SortKey: 9, Domains: dom(1, 2), SeqIdx: 2},
		{Name: "a", SortKey: 5, Domains: dom(3, 20), SeqIdx: 3},
		{Name: "a", SortKey: 5, Domains: dom(30, 4), SeqIdx: 4}, // reverse strand sorts after forward
		{Name: "a", SortKey: 5, Domains: dom(3, 20), SeqIdx: 5}, // full tie: stays after #3
		{Name: "low", SortKey: -1, Domains: dom(1, 2), SeqIdx: 6},
		{Name: "B", SortKey: 5, Domains: dom(1, 2), SeqIdx: 7}, // upper case before lower (strcmp)
	}}
	th.Sort()
	got := ""
	for _, h := range th.Hits {
		got += fmt.Sprintf("%s/%d ", h.Name, h.SeqIdx)
	}
	want := "top/2 B/7 a/3 a/5 a/1 a/4 b/0 low/6 "
	if got != want {
		t.Errorf("order %q, want %q", got, want)
	}
}

// lnPFor returns the log P-value that gives E-value e at search space z.
func lnPFor(e, z float64) float64 { return math.Log(e / z) }

func TestThresholdByEvalue(t *testing.T) {
	const Z = 100
	mk := func(name string, e float64, doms ...float64) *Hit {
		h := &Hit{Name: name, LnP: lnPFor(e, Z), Score: float32(-math.Log(e))}
		for _, de := range doms {
			h.Domains = append(h.Domains, Domain{LnP: lnPFor(de, Z), IAli: int64(len(h.Domains)*100 + 1), JAli: int64(len(h.Domains)*100 + 50)})
		}
		return h
	}
	th := &TopHits{Hits: []*Hit{
		mk("inc", 1e-5, 1e-6, 0.5, 50), // domain E with domZ=3 becomes 3e-8, 0.015, 1.5
		mk("rep", 1, 1e-4),
		mk("edge", 9.99, 20),
		mk("out", 10.5, 1e-9),
	}}
	for _, h := range th.Hits {
		h.SortKey = -h.LnP
	}
	th.Sort()
	thr := Thresholds{E: 10, DomE: 10, IncE: 0.01, IncDomE: 0.01, Z: Z}
	th.Threshold(&thr)

	if th.NReported != 3 || th.NIncluded != 1 || thr.DomZ != 3 {
		t.Fatalf("nreported %d nincluded %d domZ %g, want 3 1 3", th.NReported, th.NIncluded, thr.DomZ)
	}
	flags := ""
	for _, h := range th.Hits {
		flags += fmt.Sprintf("%s:%d:%d/%d:", h.Name, h.Flags, h.NReported, h.NIncluded)
		for _, d := range h.Domains {
			flags += fmt.Sprintf("%v%v", b2i(d.IsReported), b2i(d.IsIncluded))
		}
		flags += " "
	}
	// inc: domain 1 (cE 3e-8) included, domain 2 (cE 0.015) reported only,
	// domain 3 (cE 1.5) reported only. rep: its domain is reported but not
	// included because the hit is not. edge: E 9.99 is reported; its
	// domain (cE 0.6) too. out: not reported, so its domains are untouched.
	want := "inc:3:3/1:111010 rep:1:1/0:10 edge:1:1/0:10 out:0:0/0:00 "
	if flags != want {
		t.Errorf("flags\n got %s\nwant %s", flags, want)
	}

	// --domZ fixes the domain search space.
	for _, h := range th.Hits {
		h.Flags = 0
		for d := range h.Domains {
			h.Domains[d].IsReported, h.Domains[d].IsIncluded = false, false
		}
	}
	thr = Thresholds{E: 10, DomE: 10, IncE: 0.01, IncDomE: 0.01, Z: Z, DomZ: 1e7, DomZFromOpt: true}
	th.Threshold(&thr)
	if thr.DomZ != 1e7 || th.Hits[0].NReported != 1 || th.Hits[0].NIncluded != 0 {
		t.Errorf("with --domZ 1e7: domZ %g, first hit %d reported %d included domains; want 1e7, 1, 0",
			thr.DomZ, th.Hits[0].NReported, th.Hits[0].NIncluded)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestThresholdCutoffs(t *testing.T) {
	// GA 20 per sequence, 15 per domain: a domain of a hit below GA can
	// still be flagged; only flags of reported hits are ever printed.
	h1 := &Hit{Name: "good", Score: 25, Domains: []Domain{{BitScore: 16}, {BitScore: 14, IAli: 50}}}
	h2 := &Hit{Name: "weak", Score: 19, Domains: []Domain{{BitScore: 16}}}
	th := &TopHits{Hits: []*Hit{h1, h2}}
	thr := Thresholds{E: 10, DomE: 10, IncE: 0.01, IncDomE: 0.01, Z: 2, Cutoff: CutGA}
	thr.ApplyCutoffs(20, 15)
	for _, h := range th.Hits {
		h.SortKey = thr.SortKey(h.Score, h.LnP)
	}
	th.Sort()
	th.Threshold(&thr)
	if h1.SortKey != 25 || th.Hits[0] != h1 {
		t.Errorf("with cutoffs hits sort by score")
	}
	if h1.Flags != IsReported|IsIncluded || h2.Flags != 0 || th.NReported != 1 || th.NIncluded != 1 {
		t.Errorf("hit flags %d %d, totals %d %d", h1.Flags, h2.Flags, th.NReported, th.NIncluded)
	}
	if !h1.Domains[0].IsIncluded || h1.Domains[1].IsReported || h1.NReported != 1 || !h2.Domains[0].IsReported {
		t.Errorf("domain flags wrong: %+v %+v", h1.Domains, h2.Domains)
	}
	if thr.DomZ != 1 {
		t.Errorf("domZ %g, want 1", thr.DomZ)
	}
}

func TestThresholdDuplicateAlignments(t *testing.T) {
	h := &Hit{Name: "dup", LnP: -50, NOverlaps: 1, Domains: []Domain{
		{IAli: 5, JAli: 60, BitScore: 30, LnP: -20},
		{IAli: 5, JAli: 60, BitScore: 31, LnP: -21}, // same alignment, better: keeps its flags
		{IAli: 70, JAli: 90, BitScore: 12, LnP: -8},
		{IAli: 70, JAli: 90, BitScore: 12, LnP: -8}, // tie: the later one goes
	}}
	th := &TopHits{Hits: []*Hit{h}}
	thr := Thresholds{E: 10, DomE: 10, IncE: 0.01, IncDomE: 0.01, Z: 1}
	th.Threshold(&thr)
	got := ""
	for _, d := range h.Domains {
		got += fmt.Sprintf("%d%d ", b2i(d.IsReported), b2i(d.IsIncluded))
	}
	if got != "00 11 11 00 " || h.NReported != 2 || h.NIncluded != 2 {
		t.Errorf("flags %q (nrep %d ninc %d), want \"00 11 11 00 \" 2 2", got, h.NReported, h.NIncluded)
	}

	// Without overlapping envelopes HMMER leaves duplicates alone.
	h.NOverlaps = 0
	for d := range h.Domains {
		h.Domains[d].IsReported, h.Domains[d].IsIncluded = false, false
	}
	h.Flags = 0
	th.Threshold(&thr)
	if h.NReported != 4 {
		t.Errorf("noverlaps=0: %d reported domains, want 4", h.NReported)
	}
}

func ExampleTopHits_Threshold() {
	th := &TopHits{Hits: []*Hit{
		{Name: "weak", LnP: math.Log(0.5 / 10), Domains: []Domain{{LnP: math.Log(0.5 / 10)}}},
		{Name: "strong", LnP: math.Log(1e-9 / 10), Domains: []Domain{{LnP: math.Log(1e-9 / 10)}}},
	}}
	thr := Thresholds{E: 10, DomE: 10, IncE: 0.01, IncDomE: 0.01, Z: 10}
	for _, h := range th.Hits {
		h.SortKey = thr.SortKey(h.Score, h.LnP)
	}
	th.Sort()
	th.Threshold(&thr)
	for _, h := range th.Hits {
		fmt.Printf("%s E=%.2g reported=%v included=%v\n", h.Name, EValue(h.LnP, thr.Z),
			h.Flags&IsReported != 0, h.Flags&IsIncluded != 0)
	}
	fmt.Println("domZ", thr.DomZ)
	// Output:
	// strong E=1e-09 reported=true included=true
	// weak E=0.5 reported=true included=false
	// domZ 2
}
