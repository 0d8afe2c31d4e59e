package gpu

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// TestShapeLayout checks the node layout for every model length up to
// 3,300 and some larger: each node in exactly one slot, each thread's
// nodes consecutive and following its predecessor's, padding only in
// slot C-1 of ranks from Extra on, registers and shared memory within
// bounds, for every kernel variant.
func TestShapeLayout(t *testing.T) {
	if _, err := ShapeVariant(100, "nonesuch"); err == nil {
		t.Error("an unknown variant was accepted")
	}
	for _, v := range append(Variants, "wscan12", "wscan8", "wscan8.ts", "wscanfit.wave", "wscan12.defer.wave.nb", "strip12", "strip16.nodefer") {
		testShapeLayout(t, v)
	}
}

// TestShapeStrip checks the strip shapes to M = 4,096 and beyond: strips
// exactly where a model needs 2 to 32 warps of C <= N, W and C as wscanN's
// (nodes dealt evenly over every strip), the wavefront's check, one-warp
// blocks without shared memory, defines; the exact build the W-warp group
// of the same layout; modifiers the strip kernel does not take give the
// exact build.
func TestShapeStrip(t *testing.T) {
	for _, v := range []string{"strip", "strip12", "strip13", "strip14", "strip8", "strip16.nodefer", "strip12.clamp", "strip.b64", "strip.se", "strip13.se.b256"} {
		n := 16
		if m, err := strconv.Atoi(strings.TrimPrefix(strings.Split(v, ".")[0], "strip")); err == nil {
			n = m
		}
		for M := 1; M <= 4200; M++ {
			s := shapeVariant(t, M, v)
			want := M > 32*n && M <= 32*32*n
			if s.Strip != want {
				t.Fatalf("%s M=%d: strip %v, want %v (%+v)", v, M, s.Strip, want, s)
			}
			ws := shapeVariant(t, M, fmt.Sprintf("wscan%d", n))
			if s.T != ws.T || s.W != ws.W || s.C != ws.C || s.Extra != ws.Extra || s.C > n {
				t.Fatalf("%s M=%d: layout %+v, wscan%d's %+v", v, M, s, n, ws)
			}
			d := s.Defines()
			if strings.Contains(d, "#define STRIP 1\n") != s.Strip {
				t.Fatalf("%s M=%d: defines of %+v:\n%s", v, M, s, d)
			}
			if !s.Strip {
				continue
			}
			wantBlock, se := stripBlock, strings.Contains(v, ".se")
			switch {
			case strings.HasSuffix(v, ".b64"):
				wantBlock = 64
			case strings.HasSuffix(v, ".b256"):
				wantBlock = 256
			case se:
				wantBlock = stripSharedBlock
			}
			wantShared := 0
			if se {
				wantShared = 8 * plan7.MaxCode * s.C * 32
			}
			if !s.Wave || s.WaveBar || !s.DScan || !s.ScanPass || !s.TransReg || s.EmisShared != se || s.TransShared || s.ns() != 1 ||
				s.Block != wantBlock || s.SharedBytes() != wantShared || s.DDefer == strings.Contains(v, "nodefer") || s.NoClamp == strings.Contains(v, "clamp") {
				t.Fatalf("%s M=%d: strip shape %+v", v, M, s)
			}
			ex := s.exact()
			if ex.Strip || ex.Wave || ex.EmisShared || ex.Block != 32*s.W || ex.G() != s.G() || ex.C != s.C || ex.Extra != s.Extra || ex.PackT() != s.PackT() ||
				strings.Contains(ex.Defines(), "STRIP") || strings.Contains(ex.Defines(), "WAVE") {
				t.Fatalf("%s M=%d: exact build %+v of %+v", v, M, ex, s)
			}
			if s.int32().Strip || s.int32().Block != 32*s.W {
				t.Fatalf("%s M=%d: int32 build %+v", v, M, s.int32())
			}
			for _, mod := range []string{"ts", "nospass", "dpass"} {
				if m := shapeVariant(t, M, v+"."+mod); m.Strip || m.Block != 32*m.W {
					t.Fatalf("%s.%s M=%d: %+v", v, mod, M, m)
				}
			}
		}
	}
}

// TestShapeOneStrip checks ostrip and ostrip2 to M = 600: one strip of T
// = 32 ranks (W = 1, C = ceil(M/32) <= 16, one or two targets a warp)
// exactly for 32 <= M <= 512, with the wavefront's check, the scan's
// switches, the emission table in shared memory (eg: global), and as its
// exact build the same layout in the one-warp kernel; auto's shape
// elsewhere.
func TestShapeOneStrip(t *testing.T) {
	for n := 1; n <= 1200; n++ {
		M, v, ns := n, "ostrip", 1
		if n > 600 {
			M, v, ns = n-600, "ostrip2", 2
		}
		s := shapeVariant(t, M, v)
		if M < 32 || M > 512 {
			if s != autoShape2(M) {
				t.Fatalf("%s M=%d: %+v, want auto2's %+v", v, M, s, autoShape2(M))
			}
			continue
		}
		if !s.Strip || !s.Wave || s.W != 1 || s.T != 32 || s.C != (M+31)/32 || s.Extra != M%32 || s.ns() != ns || s.PackT() != 32/ns || !s.TransReg || s.TransShared ||
			!s.EmisShared || !s.DScan || !s.NoClamp || !s.ScanPass || !s.DDefer || s.WaveBar || s.Block != stripSharedBlock ||
			s.SharedBytes() != 8*plan7.MaxCode*s.C*32 || !strings.Contains(s.Defines(), "#define STRIP 1\n") {
			t.Fatalf("%s M=%d: %+v", v, M, s)
		}
		ex := s.exact()
		if ex.Strip || ex.Wave || ex.W != 1 || ex.C != s.C || ex.Extra != s.Extra || ex.ns() != ns || ex.PackT() != s.PackT() || !ex.EmisShared ||
			strings.Contains(ex.Defines(), "STRIP") || strings.Contains(ex.Defines(), "WAVE") {
			t.Fatalf("%s M=%d: exact build %+v", v, M, ex)
		}
		if g := shapeVariant(t, M, v+".eg"); !g.Strip || g.EmisShared || g.SharedBytes() != 0 {
			t.Fatalf("%s.eg M=%d: %+v", v, M, g)
		}
		for _, mod := range []string{"ts", "nospass", "dpass"} {
			if m := shapeVariant(t, M, v+"."+mod); m.Strip || m.Wave {
				t.Fatalf("%s.%s M=%d: %+v", v, mod, M, m)
			}
		}
	}
}

// TestShapeWave checks the wavefront's shapes to M = 4,096 and beyond:
// only on multi-warp scan shapes with the final pass, one group a block
// and one sequence a thread; named barriers with one slot and at most 8
// warps; its exact build the same layout without the wavefront; its
// defines and exchange slots; auto's wavefront exactly for 2304 < M <=
// 3072, as auto.wave.nb.
func TestShapeWave(t *testing.T) {
	for _, v := range []string{"auto1", "auto1.wave", "auto1.wave.nb", "wscanfit.wave", "wscan12.defer.wave.nb.z20", "wscan8.wave.r2", "auto0.wave", "reg16.wave"} {
		for M := 1; M <= 4200; M++ {
			s := shapeVariant(t, M, v)
			d := s.Defines()
			if s.Wave && (!s.DScan || !s.ScanPass || s.W < 2 || s.ngrp() != 1 || s.ns() != 1) {
				t.Fatalf("%s M=%d: a wavefront on %+v", v, M, s)
			}
			if s.WaveBar && (!s.Wave || s.W > 8 || s.waveRing() != 1) {
				t.Fatalf("%s M=%d: named barriers on %+v", v, M, s)
			}
			if strings.Contains(d, "#define WAVE 1\n") != s.Wave || strings.Contains(d, "#define WBAR 1\n") != s.WaveBar {
				t.Fatalf("%s M=%d: defines of %+v:\n%s", v, M, s, d)
			}
			if s.Wave && s.exchangeBytes() != 4*(4*s.W*s.waveRing()+2*s.W+2) || s.SharedBytes() > maxSharedOptin {
				t.Fatalf("%s M=%d: %d exchange bytes, %d shared (%+v)", v, M, s.exchangeBytes(), s.SharedBytes(), s)
			}
			ex := s.exact()
			if ex.Wave || ex.WaveBar || ex.G() != s.G() || ex.C != s.C || ex.PackT() != s.PackT() || strings.Contains(ex.Defines(), "WAVE") {
				t.Fatalf("%s M=%d: exact build %+v of %+v", v, M, ex, s)
			}
			if s.Wave && (s.int32().Wave || !ex.DScan) {
				t.Fatalf("%s M=%d: the int32 build keeps the wavefront or the exact build loses the scan (%+v)", v, M, s)
			}
			if v == "auto1" {
				want := M > 2304 && M <= 3072
				if s.Wave != want || s.WaveBar != want {
					t.Fatalf("auto M=%d: wavefront %v, named barriers %v, want %v (%+v)", M, s.Wave, s.WaveBar, want, s)
				}
				if nb := shapeVariant(t, M, "auto1.wave.nb"); want && nb != s {
					t.Fatalf("auto1 M=%d: %+v, auto1.wave.nb %+v", M, s, nb)
				}
			}
		}
	}
}

func testShapeLayout(t *testing.T, v string) {
	lengths := []int{5000, 8000, 12288, 20000}
	for M := 1; M <= 3300; M++ {
		lengths = append(lengths, M)
	}
	for _, M := range lengths {
		s, err := ShapeVariant(M, v)
		if err != nil {
			t.Fatal(err)
		}
		g := s.G()
		regC := 64 // nodes a thread keeps in registers (D in shared memory: M and I only)
		if s.DShared {
			regC = maxNodesPerThreadDShared
		}
		if ns := s.ns(); s.T%ns != 0 || ns > 1 && s.W != 1 || ns*s.C > regC {
			t.Fatalf("%s M=%d: %d sequences per thread in %+v", v, M, ns, s)
		}
		maxC := maxNodesPerThreadWarp
		if v != "v1" && v != "ns2" && v != "ns4" && M > 32*maxNodesPerThreadWarp {
			maxC = 32 // w1024's one-warp shapes
		}
		maxCBlock := nodesPerThreadBlock
		if v == "lean64" || v == "leanx" {
			maxC, maxCBlock = 64, 64
		}
		wscanC := 16
		if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(v, "wscan"), ".ts")); err == nil {
			wscanC = n
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(v, "strip"), ".nodefer")); err == nil {
			wscanC = n
		}
		if strings.HasPrefix(v, "strip") { // (wscan's shapes, run strip after strip)
			v = "wscan" + strings.TrimPrefix(v, "strip")
		}
		if v == "dsmx1" || v == "auto" || v == "auto0" || v == "auto1" || v == "ostrip" || v == "ostrip2" || v == "ostripw" || v == "auto2" || v == "automs" || v == "auto3" || v == "auto4" || strings.HasPrefix(v, "wscan") && M > 32*32*wscanC { // (wscan: auto's above 32 warps)
			maxC, maxCBlock = maxNodesPerThreadDShared, 64
		}
		if strings.HasPrefix(v, "wscan") && M <= 32*32*wscanC {
			maxC, maxCBlock = wscanC, wscanC
			if !s.DScan || !s.NoClamp || !s.ScanPass || s.ngrp() != 1 || s.Lean || s.TransReg == strings.HasSuffix(v, ".ts") {
				t.Fatalf("%s M=%d: not a scan shape of one group a block with transitions as asked: %+v", v, M, s)
			}
		}
		if s.DShared && (!s.Lean || s.DExit) || s.DExit && !s.Lean {
			t.Fatalf("%s M=%d: D in shared memory without lean state or with short D passes, or short D passes without lean state (%+v)", v, M, s)
		}
		if s.T < 1 || s.T > 32 || 32%s.T != 0 || (s.W > 1 && s.T != 32) || s.Block%32 != 0 && s.W > 1 {
			t.Fatalf("%s M=%d: bad shape %+v", v, M, s)
		}
		if s.ngrp() > 1 && s.W == 1 || s.Block != s.G()*s.ngrp() && s.W > 1 && !s.Strip || s.Block > 1024 {
			t.Fatalf("%s M=%d: bad groups per block %+v", v, M, s)
		}
		maxRegC := maxNodesPerThreadWarp // (transitions in registers; the strip kernel's wide strips to 21)
		if s.Strip {
			maxRegC = autoWideOneStripMax / 32
		}
		if s.TransReg && (s.TransShared || s.C > maxRegC) {
			t.Fatalf("%s M=%d: transitions both in registers and shared, or too many (%+v)", v, M, s)
		}
		if s.W == 1 && s.C > maxC || s.W > 1 && s.W < 32 && s.C > maxCBlock {
			t.Fatalf("%s M=%d: %d nodes per thread (%+v)", v, M, s.C, s)
		}
		if s.SharedBytes() > maxSharedOptin {
			t.Fatalf("%s M=%d: %d bytes of shared memory", v, M, s.SharedBytes())
		}
		next := 1
		for r := 0; r < g; r++ {
			for j := 0; j < s.C; j++ {
				k := s.node(r, j)
				switch {
				case k == 0 && (j != s.C-1 || s.Extra == 0 || r < s.Extra):
					t.Fatalf("%s M=%d %+v: padding at rank %d slot %d", v, M, s, r, j)
				case k != 0 && k != next:
					t.Fatalf("%s M=%d %+v: rank %d slot %d holds node %d, want %d", v, M, s, r, j, k, next)
				case k != 0:
					next++
				}
			}
		}
		if next != M+1 {
			t.Fatalf("%s M=%d %+v: %d nodes laid out", v, M, s, next-1)
		}
	}
}

// TestKernelSourceDump writes the specialised kernel source of every
// variant (or those $HMMGO_HMM2_VARIANTS lists) for the models lengths of $HMMGO_HMM2_MS (default 100, 1000,
// 3000) into $HMMGO_HMM2_DUMP, named variant_M.cu, for nvcc and
// cuobjdump on a GPU host (instruction counts per shape).
func TestKernelSourceDump(t *testing.T) {
	dir := os.Getenv("HMMGO_HMM2_DUMP")
	if dir == "" {
		t.Skip("set HMMGO_HMM2_DUMP=<dir> to write the specialised kernel sources")
	}
	ms := []string{"100", "1000", "3000"}
	if e := os.Getenv("HMMGO_HMM2_MS"); e != "" {
		ms = strings.Split(e, ",")
	}
	for _, v := range benchVariants(Variants) {
		for _, f := range ms {
			M, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			s, err := ShapeVariant(M, v)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(dir, fmt.Sprintf("%s_%d.cu", v, M))
			if err := os.WriteFile(name, []byte(s.Defines()+kernelSource), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
