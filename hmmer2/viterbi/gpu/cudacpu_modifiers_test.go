package gpu

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// TestShapeModifiers checks the parsing of launch modifiers.
func TestShapeModifiers(t *testing.T) {
	s := shapeVariant(t, 100, "reg16.b32.m12.c100.eg")
	if s.Block != 32 || s.MinBlocks != 12 || s.Carveout != 100 || s.EmisShared || !s.TransReg {
		t.Errorf("reg16.b32.m12.c100.eg at M=100: %+v", s)
	}
	if !strings.Contains(s.Defines(), "#define MINBLOCKS 12\n") || !strings.Contains(s.Defines(), "#define BLOCK 32\n") {
		t.Errorf("defines of %+v:\n%s", s, s.Defines())
	}
	if d := shapeVariant(t, 1000, "auto").Defines(); strings.Contains(d, "MINBLOCKS") {
		t.Errorf("auto's defines at M=1000 name a register cap:\n%s", d)
	}
	for _, bad := range []string{"auto.", "auto.b33", "auto.b2048", "auto.c101", "auto.m0", "auto.x1", "auto.bq", "nonesuch.b32"} {
		if _, err := ShapeVariant(100, bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if s, d := shapeVariant(t, 6000, "auto.b64"), shapeVariant(t, 6000, "auto"); s != d {
		t.Errorf("a block size changed a multi-warp shape: %+v, not %+v", s, d)
	}
	// Lane chains (lc) on multi-strip shapes only.
	if s := shapeVariant(t, 1000, "strip.se.lc"); !s.StripLC || !strings.Contains(s.Defines(), "#define STRIP_LC 1\n") {
		t.Errorf("strip.se.lc at M=1000: %+v", s)
	}
	if s, d := shapeVariant(t, 500, "ostrip.lc"), shapeVariant(t, 500, "ostrip"); s.Defines() != d.Defines() {
		t.Errorf("lc changed a one-strip shape's defines: %+v", s)
	}
	// Asynchronous emission copies (ea) on multi-strip shapes with shared
	// emissions only.
	if s := shapeVariant(t, 1000, "strip.se.ea"); !s.StripEA || !strings.Contains(s.Defines(), "#define STRIP_EA 1\n") {
		t.Errorf("strip.se.ea at M=1000: %+v", s)
	}
	for _, v := range []string{"strip.ea", "ostrip.ea"} {
		M := map[string]int{"strip.ea": 1000, "ostrip.ea": 500}[v]
		if s := shapeVariant(t, M, v); strings.Contains(s.Defines(), "STRIP_EA") {
			t.Errorf("%s at M=%d defines STRIP_EA: %+v", v, M, s)
		}
	}
	// Predicated record stores (ps): auto's strips of C >= 10 at the
	// lengths measured; one strip (to M = 672) stores no records.
	for M, ps := range map[int]bool{520: false, 576: false, 620: false, 672: false, 673: true, 700: true, 760: true, 830: true, 890: true, 950: true, 1000: true,
		1200: true, 1500: true, 2000: true, 2500: true, 3000: true, 4000: true, 4500: true, 5000: true} {
		if s := shapeVariant(t, M, "auto"); s.StripPS != ps || strings.Contains(s.Defines(), "#define STRIP_PS 1\n") != ps {
			t.Errorf("auto at M=%d: predicated stores %v, want %v", M, s.StripPS, ps)
		}
	}
	// Short strips (sh): switched on only where some ranks are short.
	if s := shapeVariant(t, 1153, "strip13.se.sh"); !s.StripShort || !strings.Contains(s.Defines(), "#define STRIP_SHORT 1\n") {
		t.Errorf("strip13.se.sh at M=1153: %+v", s)
	}
	if s := shapeVariant(t, 1248, "strip13.se.sh"); strings.Contains(s.Defines(), "STRIP_SHORT") {
		t.Errorf("strip13.se.sh at M=1248 (no short ranks) defines STRIP_SHORT: %+v", s)
	}
	// auto's strips of C <= 15 take it (not C = 16, or auto4's wide strips).
	for M, sh := range map[int]bool{700: true, 1000: false, 1100: true, 1250: true, 1800: true, 4000: true, 4500: false} {
		if s := shapeVariant(t, M, "auto"); s.StripShort != sh {
			t.Errorf("auto at M=%d: short strips %v, want %v", M, s.StripShort, sh)
		}
	}
	// Rows two an iteration (u2) on every strip of auto; the first and
	// last strips built apart (fl) except at C = 14; neither on one
	// strip.
	for M, fl := range map[int]bool{673: true, 704: true, 760: true, 800: true, 890: false, 950: true, 1000: true, 1100: true, 1153: true, 1300: false,
		1537: true, 1700: false, 1729: false, 1800: true, 3000: true, 4000: false} {
		s := shapeVariant(t, M, "auto")
		if !s.StripU2 || s.StripFL != fl || !strings.Contains(s.Defines(), "#define STRIP_U2 1\n") || strings.Contains(s.Defines(), "#define STRIP_FL 1\n") != fl {
			t.Errorf("auto at M=%d: u2 %v, fl %v, want fl %v", M, s.StripU2, s.StripFL, fl)
		}
	}
	if s := shapeVariant(t, 600, "ostripw.u2.fl"); strings.Contains(s.Defines(), "STRIP_U2") || strings.Contains(s.Defines(), "STRIP_FL") {
		t.Errorf("u2 or fl on one strip: %+v", s)
	}
	if s := shapeVariant(t, 500, "ostrip.ps"); s.StripPS {
		t.Errorf("ps on one strip: %+v", s)
	}
	if s := shapeVariant(t, 100, "auto.ecg"); s.EmisHint != 0 {
		t.Errorf("a hint for shared emissions: %+v", s)
	}
	if s := shapeVariant(t, 2000, "auto1.ecs"); s.EmisHint != 2 || !strings.Contains(s.Defines(), "#define EMIS_HINT 2\n") {
		t.Errorf("auto1.ecs at M=2000: %+v", s)
	}
	// Spot checks of auto's strips: M = 2,000 four strips of C = 16 with
	// everything, 1,300 three of C = 14 and 2,100 five of C = 14 with
	// everything, 1,600 four of C = 13 without lane chains, 4,000 nine of
	// C = 14 (strip15's) and 700 two of C = 11 with everything, 1,100
	// three of C = 12; auto4 1,600 three of C = 17 (wide) and 1,100 two
	// of C = 18; auto3 520 two of C = 9 without predicated stores.
	for _, c := range []struct {
		v          string
		M, W, C    int
		lc, ps, ea bool
	}{{"auto", 2000, 4, 16, true, true, true}, {"auto", 1300, 3, 14, true, true, true}, {"auto", 2100, 5, 14, true, true, true}, {"auto", 1600, 4, 13, false, true, true},
		{"auto", 4000, 9, 14, true, true, true}, {"auto", 700, 2, 11, true, true, true}, {"auto", 1100, 3, 12, true, true, true},
		{"auto4", 1600, 3, 17, true, true, true}, {"auto4", 1100, 2, 18, true, true, true}, {"auto3", 520, 2, 9, true, false, true}} {
		s := shapeVariant(t, c.M, c.v)
		if s.W != c.W || s.C != c.C || s.StripLC != c.lc || s.StripPS != c.ps || s.StripEA != c.ea || !s.StripRW || s.Block != map[bool]int{true: stripWideBlock, false: stripSharedBlock}[c.C > 16] {
			t.Errorf("%s at M=%d: %+v", c.v, c.M, s)
		}
	}
	// Wide one strip: auto at M = 513 (C = 17, one rank with 17 nodes),
	// 576, 640 and 672 (C = 21); 673 two strips of C = 11.
	for M, C := range map[int]int{513: 17, 576: 18, 640: 20, 672: 21, 673: 11} {
		s := shapeVariant(t, M, "auto")
		if s.C != C || s.Extra != M%32 && C > 16 || (s.W == 1) != (C > 16) || !s.Strip || !s.EmisShared || s.ns() != 1 {
			t.Errorf("auto at M=%d: %+v, want C = %d", M, s, C)
		}
	}
	// auto's launch choices (autoShape); the D chain by a scan on every
	// one-warp shape to M = 512 (all of them have no lean state).
	for _, c := range []struct {
		M          int
		wide, hint bool
	}{{50, false, false}, {100, false, false}, {150, false, false}, {192, false, false}, {193, false, false}, {255, false, false}, {256, false, false}, {257, false, false},
		{288, false, false}, {289, false, false}, {300, false, false}, {384, false, false}, {385, true, false}, {448, true, false}, {449, true, false}, {512, true, false}, {513, false, false}, {576, false, false}, {577, false, false}, {672, false, false}, {673, false, false}, {1000, false, false},
		{1025, false, true}, {1152, false, true}, {1153, false, true}, {1500, false, true}, {1728, false, true}, {1729, false, true}, {1536, false, true}, {1537, false, true}, {2000, false, true}, {2048, false, true}, {2049, false, false}, {2304, false, false}, {2305, false, false}, {3000, false, false},
		{3072, false, false}, {3073, false, false}, {4096, false, false}, {4097, false, false}, {5000, false, false}, {5120, false, false}, {5121, false, false}} {
		s := shapeVariant(t, c.M, "auto0")
		if wide := s.Block == wideBlock && s.MinBlocks == 1; wide != c.wide || (s.EmisHint == 1) != c.hint || s.EmisHint > 1 || s.Carveout != 0 {
			t.Errorf("auto0 at M=%d: %+v, want 12-warp blocks %v, emission hint %v", c.M, s, c.wide, c.hint)
		}
		scan := c.M <= autoScanMax
		if s.DScan != scan || strings.Contains(s.Defines(), "#define DSCAN 1\n") != scan || (scan && (s.W != 1 || s.Lean)) {
			t.Errorf("auto0 at M=%d: %+v, want the scan %v", c.M, s, scan)
		}
		if u := scan && c.M <= autoNoClampMax; s.NoClamp != u || s.ScanPass != u || strings.Contains(s.Defines(), "NOCLAMP") != u {
			t.Errorf("auto0 at M=%d: %+v, want no clamps and the final pass %v", c.M, s, u)
		}
		// auto: wscan's shapes from autoWScanMin to autoWScanMax (W a
		// power of two to 2,048 and above 3,072, C <= 12 between), the D
		// pass deferred except with one or four warps of C = 16; auto0's
		// elsewhere; from 2,305 to 3,072 as a wavefront (wave.nb).
		a, fit := shapeVariant(t, c.M, "auto1"), shapeVariant(t, c.M, "wscanfit")
		if c.M > 2048 && c.M <= 3072 {
			fit = shapeVariant(t, c.M, "wscan12")
		}
		fit.DDefer = fit.C < 16 || fit.W == 2 || fit.W == 8
		if c.M > autoWaveMin && c.M <= autoWaveMax { // (the wavefront with named barriers)
			fit = shapeVariant(t, c.M, "wscan12.defer.wave.nb")
		}
		if c.M > autoWScanMin && c.M <= autoWScanMax {
			if a != fit || !a.DScan || !a.NoClamp || !a.ScanPass || !a.TransReg || a.C > 16 || a.C < 13 && a.W == 1 || a.W > 8 || c.M <= 2048 && 8%a.W != 0 || c.M > 2048 && c.M <= 3072 && a.C > 12 {
				t.Errorf("auto1 at M=%d: %+v, want %+v", c.M, a, fit)
			}
		} else if a != s {
			t.Errorf("auto1 at M=%d: %+v, want auto0's %+v", c.M, a, s)
		}
		// auto2: strips of C <= 16 for 512 < M <= autoStripMax (C <= 15
		// for 1536 < M <= 4096), emissions in shared memory; auto1's
		// elsewhere.
		au := shapeVariant(t, c.M, "auto2")
		if c.M > 512 && c.M <= autoStripMax {
			v := "strip.se"
			if c.M > 1536 && c.M <= 4096 {
				v = "strip15.se"
			}
			if st := shapeVariant(t, c.M, v); au != st || !au.Strip {
				t.Errorf("auto2 at M=%d: %+v, want strip's %+v", c.M, au, st)
			}
		} else if au != a {
			t.Errorf("auto2 at M=%d: %+v, want auto1's %+v", c.M, au, a)
		}
		// automs: one strip of one target a warp for 256 < M <= 288, of
		// two to 448, of one to 512; auto2's elsewhere.
		want := au
		switch {
		case c.M > 256 && c.M <= 288:
			want = shapeVariant(t, c.M, "ostrip")
		case c.M > 288 && c.M <= 448:
			want = shapeVariant(t, c.M, "ostrip2")
		case c.M > 448 && c.M <= 512:
			want = shapeVariant(t, c.M, "ostrip")
		}
		if s := shapeVariant(t, c.M, "automs"); s != want || want != au && (!s.Strip || s.W != 1) {
			t.Errorf("automs at M=%d: %+v, want %+v", c.M, s, want)
		}
		// auto3: automs's, whose strips (512 < M <= autoStripMax) take
		// the ring, no second shuffle and the sums once a strip, strips
		// of C <= 16 to 3,584 (strip15's for 3584 < M <= 4096),
		// asynchronous emission copies, residues through the ring, and by
		// C: lane chains except at C = 10 and 13, predicated stores at C
		// >= 10.
		laneChains := false
		if c.M > 512 && c.M <= autoStripMax {
			v := "strip.se.rs.nr.bs"
			if c.M > 3584 && c.M <= 4096 {
				v = "strip15.se.rs.nr.bs"
			}
			C := shapeVariant(t, c.M, v).C
			if laneChains = C != 10 && C != 13; laneChains {
				v += ".lc"
			}
			if predStore := C >= 10; predStore {
				v += ".ps"
			}
			v += ".ea.rw"
			want = shapeVariant(t, c.M, v)
		}
		if s := shapeVariant(t, c.M, "auto3"); s != want || c.M > 512 && c.M <= autoStripMax && !(s.Strip && s.StripRing && s.StripNR && s.StripBS && s.StripLC == laneChains) {
			t.Errorf("auto3 at M=%d: %+v, want %+v", c.M, s, want)
		}
		// auto4: auto3's, but one strip of C = 17-21 for 512 < M <= 672 and
		// two or three strips of C = 17-18 in blocks of 8 warps for 1024 <
		// M <= 1152 and 1536 < M <= 1728.
		switch {
		case c.M > 512 && c.M <= 672:
			want = shapeVariant(t, c.M, "ostripw")
		case c.M > 1024 && c.M <= 1152 || c.M > 1536 && c.M <= 1728:
			want = shapeVariant(t, c.M, "strip18.se.rs.nr.bs.lc.ps.ea.rw.b256")
		case c.M > 512 && c.M <= autoStripMax && want.C < 16: // (short strips)
			var err error
			if want, err = want.withModifiers("sh"); err != nil || !want.StripShort {
				t.Fatalf("auto3 at M=%d with sh: %+v, %v", c.M, want, err)
			}
		}
		if s := shapeVariant(t, c.M, "auto4"); s != want {
			t.Errorf("auto4 at M=%d: %+v, want %+v", c.M, s, want)
		}
		// auto: one strip of C = 17-21 as auto4, else auto3's, its strips
		// with u2, sh where C < 16, and fl except at C = 14.
		if want = shapeVariant(t, c.M, "auto3"); c.M > 512 && c.M <= 672 {
			want = shapeVariant(t, c.M, "ostripw")
		} else if want.Strip && want.W > 1 {
			mods := map[bool]string{true: "u2.fl", false: "u2"}[want.C != 14]
			if want.C < 16 {
				mods += ".sh"
			}
			want, _ = want.withModifiers(mods)
			if !want.StripU2 {
				t.Fatalf("auto3 at M=%d with %s: %+v", c.M, mods, want)
			}
		}
		if s := shapeVariant(t, c.M, "auto"); s != want {
			t.Errorf("auto at M=%d: %+v, want %+v", c.M, s, want)
		}
		// automs.rs.nr.bs: auto before lane chains, predicated stores and
		// asynchronous emission copies.
		if s := shapeVariant(t, c.M, "automs.rs.nr.bs"); s.StripPS || s.StripEA || s.StripRW {
			t.Errorf("automs.rs.nr.bs at M=%d: %+v", c.M, s)
		}
		if s := shapeVariant(t, c.M, "automs.rs.nr.bs"); c.M > 512 && c.M <= autoStripMax && (s.StripLC || s.C != au.C || !s.StripBS) {
			t.Errorf("automs.rs.nr.bs at M=%d: %+v", c.M, s)
		}
	}
	// The scan (iscan) only on one-warp shapes without lean state; dpass
	// and int32 take it away, leaving the rest of the shape as it was.
	for _, c := range []struct {
		M    int
		v    string
		scan bool
	}{{100, "reg16.iscan", true}, {300, "w1024.iscan", true}, {1000, "auto0.iscan", true}, {1000, "auto0", false},
		{1500, "auto0.iscan", false}, {5000, "auto1.iscan", false}, {1500, "auto1", true}, {2000, "v1.iscan", true}, {200, "lean64.iscan", false}, {300, "auto.dpass", false},
		{300, "auto2.b384.m1", true}, {40, "dsmx1", true}} {
		s := shapeVariant(t, c.M, c.v)
		if s.DScan != c.scan || strings.Contains(s.Defines(), "DSCAN") != c.scan {
			t.Errorf("%s at M=%d: %+v, want the scan %v", c.v, c.M, s, c.scan)
		}
		i := s.int32()
		if i.DScan || strings.Contains(i.Defines(), "DSCAN") {
			t.Errorf("%s at M=%d: build with D passes %+v", c.v, c.M, i)
		}
		if i.DScan, i.NoClamp, i.ScanPass, i.DDefer = s.DScan, s.NoClamp, s.ScanPass, s.DDefer; i != s {
			t.Errorf("%s at M=%d: int32 changed more than the scan: %+v, not %+v", c.v, c.M, i, s)
		}
	}
	if s, d := shapeVariant(t, 300, "auto.dpass"), shapeVariant(t, 300, "auto").int32(); s != d {
		t.Errorf("auto.dpass at M=300: %+v, not auto's build with D passes %+v", s, d)
	}
	for _, gone := range []string{"auto.float", "auto.dscan"} {
		if _, err := ShapeVariant(100, gone); err == nil {
			t.Errorf("removed modifier %q accepted", gone)
		}
	}
	if _, err := ShapeVariant(3000, "dsmx1.b1024"); err == nil {
		t.Error("a block whose D cells exceed shared memory accepted")
	}
}

// The modifiers through the kernel on the CPU: blocks of 1, 2, 4 and 12
// warps with transitions in registers or shared memory, emissions in
// shared or global memory, lean state with D in shared memory.
func TestKernelSourceOnCPUModifiers(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(9))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	variant := func(M int, v string) Shape { return shapeVariant(t, M, v) }
	cases := []shimCase{
		{variant(100, "reg16.b32.m12.c100"), 100, amino, 20, 40, "reg16 in one-warp blocks"},
		{variant(200, "reg16.b64.eg"), 200, dna, 20, 40, "reg16 T=16, emissions in global memory, 2-warp blocks"},
		{variant(500, "w1024.b32.m8"), 500, amino, 4, 30, "w1024 T=32 C=16 NS=2 in one-warp blocks"},
		{variant(300, "w1024.b384.m1"), 300, amino, 16, 30, "w1024 T=32 C=10 NS=2 in 12-warp blocks"},
		{variant(1700, "dsmx1.b128"), 1700, amino, 3, 20, "dsmx1, C=54, D in shared memory, 4-warp blocks"},
		{variant(600, "w1024.ecg"), 600, dna, 4, 30, "w1024 C=19, emissions cached in L2 only"},
		{variant(1500, "auto0.ecs"), 1500, amino, 3, 20, "leanx C=47, emissions evict-first"},
	}
	checkShapesOnCPU(t, rng, cases, 1000,
		40, func(M int) []Shape {
			return []Shape{variant(M, "reg16.b32"), variant(M, "w1024.b384.m1.eg")}
		},
		30, []wrapCase{{300, variant(300, "w1024.b384.m1")}, {40, variant(40, "reg16.b32")}, {2000, variant(2000, "dsmx1.b32")}},
		func(M int) []Shape {
			return []Shape{variant(M, "w1024.b384.m1"), variant(M, "reg16.b32.eg")}
		})
}
