package hits_test

import (
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/hits/hitsjson"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// The dumps under testdata/hmmer3 hold HMMER 3.3.2's hit lists straight
// from the library's pipeline (database order) together with the state
// p7_tophits_SortBySortkey and p7_tophits_Threshold left them in.
func loadDumps(t *testing.T) map[string]*hitsjson.File {
	paths, _ := filepath.Glob(testutil.Testdata(t, "hmmer3/*/*/dump.json.gz"))
	if len(paths) == 0 {
		t.Fatal("no dumps under testdata/hmmer3")
	}
	out := map[string]*hitsjson.File{}
	for _, p := range paths {
		d, err := hitsjson.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(filepath.Dir(p))] = d
	}
	return out
}

func TestSortAndThresholdMatchHMMER(t *testing.T) {
	nhits, nh74 := 0, 0
	for name, d := range loadDumps(t) {
		for qi := range d.Queries {
			q := &d.Queries[qi]
			list := q.HitList()
			th := &hits.TopHits{Hits: append([]*hits.Hit(nil), list...)}
			thr := q.HitsThresholds()
			th.Sort()
			th.Threshold(&thr)
			f := &q.Final
			nhits += len(list)

			for r, h := range th.Hits {
				if want := list[f.Order[r]]; h != want {
					t.Fatalf("%s/%s: rank %d is %s, HMMER ranks %s there", name, q.Name, r, h.Name, want.Name)
				}
			}
			for i, h := range list {
				doms := ""
				for _, dm := range h.Domains {
					c := byte('0')
					if dm.IsReported {
						c++
					}
					if dm.IsIncluded {
						c += 2
					}
					doms += string(c)
				}
				if h.Flags != hitsjson.Flags(f.Flags[i]) || h.NReported != f.NReported[i] || h.NIncluded != f.NIncluded[i] || doms != f.DomFlags[i] {
					t.Errorf("%s/%s hit %s: flags %d nrep %d ninc %d domains %s; HMMER %d %d %d %s", name, q.Name, h.Name,
						h.Flags, h.NReported, h.NIncluded, doms, hitsjson.Flags(f.Flags[i]), f.NReported[i], f.NIncluded[i], f.DomFlags[i])
				}
				if h.NOverlaps > 0 {
					for a := range h.Domains {
						for b := a + 1; b < len(h.Domains); b++ {
							if h.Domains[a].IAli == h.Domains[b].IAli && h.Domains[a].JAli == h.Domains[b].JAli {
								nh74++
							}
						}
					}
				}
			}
			if th.NReported != f.NReportedTotal || th.NIncluded != f.NIncludedTotal || thr.DomZ != f.DomZ {
				t.Errorf("%s/%s: totals %d %d domZ %g; HMMER %d %d %g", name, q.Name,
					th.NReported, th.NIncluded, thr.DomZ, f.NReportedTotal, f.NIncludedTotal, f.DomZ)
			}
		}
	}
	t.Logf("%d hits checked; %d duplicate-alignment pairs (bug h74 workaround) among them", nhits, nh74)
}

func TestAliDisplaysMatchHMMER(t *testing.T) {
	n := 0
	for name, d := range loadDumps(t) {
		for qi := range d.Queries {
			q := &d.Queries[qi]
			for hi := range q.Hits {
				for di := range q.Hits[hi].Domains {
					dm := &q.Hits[hi].Domains[di]
					tr, m, sq, ok, err := q.DisplayInputs(dm)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !ok {
						continue
					}
					n++
					got := hits.NewAliDisplay(tr, 0, m, sq)
					want := dm.Ad.Convert()
					if got == nil || *got != want {
						t.Fatalf("%s/%s/%s domain %d:\n got %+v\nwant %+v", name, q.Name, q.Hits[hi].Name, di+1, got, want)
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no dump carries traces")
	}
	t.Logf("%d alignment displays rebuilt from HMMER's traces", n)
}
