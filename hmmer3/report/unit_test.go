package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
)

func TestNum(t *testing.T) {
	cases := []struct {
		verb string
		x    float64
		want string
	}{
		{"%9.2g", 1.5e-10, "  1.5e-10"},
		{"%9.2g", math.Inf(1), "      inf"},
		{"%6.1f", math.Inf(-1), "  -inf"},
		{"%.6g", math.NaN(), "-nan"},
		{"%-5.1f", math.Inf(1), "inf  "},
		{"%.6g", 0.0001234567, "0.000123457"},
		{"%.6g", 1, "1"},
		{"%.6g", 1e-5, "1e-05"},
		{"%15.0f", 45, "             45"},
	}
	for _, c := range cases {
		if got := num(c.verb, c.x); got != c.want {
			t.Errorf("num(%q, %v) = %q, want %q", c.verb, c.x, got, c.want)
		}
	}
}

func TestClock(t *testing.T) {
	for sec, want := range map[float64]string{0: "00:00:00.00", 0.014: "00:00:00.01", 61.5: "00:01:01.50", 3600*101 + 7: "101:00:07.00"} {
		if got := clock(sec); got != want {
			t.Errorf("clock(%v) = %q, want %q", sec, got, want)
		}
	}
}

func TestColumnsCountBytes(t *testing.T) {
	// C pads and cuts by bytes; a two-byte character takes two columns.
	if got := ljust("é", 4); got != "é  " {
		t.Errorf("ljust = %q", got)
	}
	if got := trunc("aéb", 2); got != "a\xc3" {
		t.Errorf("trunc = %q", got)
	}
}

// An alignment wider than the line breaks into blocks; a block of only
// deletions shows "-" for its sequence coordinates, as HMMER prints it.
func TestAliDisplayBlocks(t *testing.T) {
	ad := &hits.AliDisplay{
		Model: strings.Repeat("A", 40) + strings.Repeat("c", 10),
		MLine: strings.Repeat("A", 40) + strings.Repeat(" ", 10),
		ASeq:  strings.Repeat("A", 40) + strings.Repeat("-", 10),
		N:     50, HMMName: "m", HMMFrom: 1, HMMTo: 50, M: 50, SqName: "s", SqFrom: 1, SqTo: 40, L: 40,
	}
	var b bytes.Buffer
	if err := AliDisplay(&b, ad, 40, 50, false); err != nil {
		t.Fatal(err)
	}
	a40 := strings.Repeat("A", 40)
	want := "  m  1 " + a40 + " 40\n" +
		"       " + a40 + "\n" +
		"  s  1 " + a40 + " 40\n" +
		"\n" +
		"  m 41 cccccccccc 50\n" +
		"                 \n" +
		"  s  - ----------  -\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}

	// Unlimited width: one block; accessions replace names with --acc.
	ad.HMMAcc, ad.SqAcc = "PF1", "P12"
	b.Reset()
	AliDisplay(&b, ad, 40, 0, true)
	if lines := strings.Split(b.String(), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[0], "  PF1  1 ") || !strings.HasPrefix(lines[2], "  P12  1 ") {
		t.Errorf("unlimited width with accessions:\n%s", b.String())
	}
}

func TestStatisticsWithoutTargets(t *testing.T) {
	var b bytes.Buffer
	st := &hits.Stats{NModels: 1, NNodes: 10, F1: 0.02, F2: 1e-3, F3: 1e-5}
	Statistics(&b, st, &hits.Thresholds{}, &Timing{})
	// 0/0 is a negative NaN on x86, which glibc prints as "-nan".
	if !strings.Contains(b.String(), "Passed MSV filter:                         0  (-nan); expected 0.0 (0.02)\n") ||
		!strings.Contains(b.String(), "# Mc/sec: -nan\n") {
		t.Errorf("got\n%s", b.String())
	}
}

func TestHeaderValues(t *testing.T) {
	var b bytes.Buffer
	SearchHeader(&b, "q.hmm", "db.fa", []Setting{
		{"--seed", "0"}, {"-E", "1e-5"}, {"-Z", "1.5e6"}, {"--textw", "150"}, {"--acc", ""}, {"--cpu", "4"},
	})
	want := "# query HMM file:                  q.hmm\n" +
		"# target sequence database:        db.fa\n" +
		"# prefer accessions over names:    yes\n" +
		"# max ASCII text line length:      150\n" +
		"# sequence reporting threshold:    E-value <= 1e-05\n" +
		"# sequence search space set to:    1500000\n" +
		"# random number seed:              one-time arbitrary\n" +
		"# number of worker threads:        4\n" +
		"# - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestTabularTail(t *testing.T) {
	var b bytes.Buffer
	date := time.Date(2020, 11, 5, 9, 3, 7, 0, time.Local)
	TabularTail(&b, Tail{Program: "hmmsearch", Version: "x", QueryFile: "q.hmm", TargetFile: "-", Options: "hmmgo hmmsearch q.hmm - ", Date: date})
	want := "#\n# Program:         hmmsearch\n# Version:         x\n# Pipeline mode:   SEARCH\n# Query file:      q.hmm\n" +
		"# Target file:     -\n# Option settings: hmmgo hmmsearch q.hmm - \n# Current dir:     [unknown]\n" +
		"# Date:            Thu Nov  5 09:03:07 2020\n# [ok]\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func ExampleAliDisplay() {
	ad := &hits.AliDisplay{
		Model: "MKv.LLA", MLine: "MK+ LLA", ASeq: "MKIgLLA", PPLine: "***9**8", N: 7,
		HMMName: "toy", HMMFrom: 10, HMMTo: 15, M: 60, SqName: "target", SqFrom: 11, SqTo: 17, L: 30,
	}
	AliDisplay(os.Stdout, ad, 40, 120, false)
	// Output:
	//      toy 10 MKv.LLA 15
	//             MK+ LLA
	//   target 11 MKIgLLA 17
	//             ***9**8 PP
}

func ExampleStatistics() {
	st := &hits.Stats{NModels: 1, NNodes: 149, NSeqs: 45, NRes: 6519, NPastMSV: 45, NPastBias: 45, NPastVit: 45, NPastFwd: 45,
		F1: 0.02, F2: 1e-3, F3: 1e-5}
	Statistics(os.Stdout, st, &hits.Thresholds{Z: 45, DomZ: 45}, nil)
	fmt.Println("//")
	// Output:
	// Internal pipeline statistics summary:
	// -------------------------------------
	// Query model(s):                            1  (149 nodes)
	// Target sequences:                         45  (6519 residues searched)
	// Passed MSV filter:                        45  (1); expected 0.9 (0.02)
	// Passed bias filter:                       45  (1); expected 0.9 (0.02)
	// Passed Vit filter:                        45  (1); expected 0.0 (0.001)
	// Passed Fwd filter:                        45  (1); expected 0.0 (1e-05)
	// Initial search space (Z):                 45  [actual number of targets]
	// Domain search space  (domZ):              45  [number of targets reported over threshold]
	// //
}
