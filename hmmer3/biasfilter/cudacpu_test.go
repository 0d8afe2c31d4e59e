package biasfilter

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/cudacpu"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// These tests run bias.cu itself on the CPU: testdata/cudacpu/shim.h with
// internal/cudacpu/emu.h stands in for the CUDA built-ins (each GPU thread
// a coroutine), the host's SSE2 arithmetic for the GPU's IEEE float and
// double arithmetic (subnormals kept, nothing contracted but fma()). They
// check the log ports bit for bit against easel.Log and easel.Logf over
// millions of inputs, and the kernel, through the same packing and
// parameter layout as gpu.go, against FilterScore. NVRTC and the device
// itself are checked by gpu_test.go on a GPU host.

var shims = cudacpu.Builds[struct{}]{Name: "biascpu"}

func TestMain(m *testing.M) {
	code := m.Run()
	shims.Remove()
	os.Exit(code)
}

// shimDriver compiles the driver once per test binary, or skips.
func shimDriver(t *testing.T) string {
	t.Helper()
	cc := cudacpu.Compiler(t, "bias.cu")
	return shims.Exe(t, struct{}{}, func(dir string) (string, error) {
		files := map[string]string{"bias_tables.h": tablesSource()}
		if err := cudacpu.ReadFiles(files, "bias.cu", "testdata/cudacpu/shim.h", "testdata/cudacpu/driver.cc"); err != nil {
			return "", err
		}
		exe, err := cudacpu.Compile(cc, dir, "biascpu", files, "-O2", "-ffp-contract=off", "-fno-strict-aliasing", "-msse2", "-DBLOCK=64")
		if err != nil {
			return "", fmt.Errorf("compiling bias.cu with the CPU shim: %w", err)
		}
		return exe, nil
	})
}

// runDriver runs the driver in mode with stdin in and returns its stdout.
func runDriver(t *testing.T, exe, mode string, in []byte) []byte {
	t.Helper()
	var out, stderr bytes.Buffer
	cmd := exec.Command(exe, mode)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("driver %s: %v\n%s", mode, err, stderr.Bytes())
	}
	return out.Bytes()
}

// logInputs are the doubles the log port is checked on: every path of
// glibc's log and its edges, then random bit patterns.
func logInputs(rng *rand.Rand, n int) []float64 {
	f := math.Float64frombits
	var xs []float64
	add := func(v ...float64) { xs = append(xs, v...) }
	add(0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, math.SmallestNonzeroFloat64, 2, 0.5)
	for e := -1074; e <= 1023; e++ { // powers of two, their neighbours
		p := math.Ldexp(1, e)
		add(p, math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)))
	}
	for _, edge := range []uint64{0x3fee000000000000, 0x3ff1090000000000, 0x3ff0000000000000, 0x3fe6000000000000, 0x0010000000000000} {
		for d := uint64(0); d < 2000; d++ { // both sides of the near-1 window and table boundaries
			add(f(edge+d), f(edge-d))
		}
	}
	for i := 0; i < 200000; i++ { // near 1
		add(1+(rng.Float64()-0.5)*0.25, 1+rng.NormFloat64()*1e-8)
	}
	for i := 0; i < 100000; i++ { // subnormals
		add(f(uint64(rng.Int63n(1 << 52))))
	}
	for i := 0; i < 100000; i++ { // float32 values, as the kernel takes
		add(float64(math.Float32frombits(uint32(rng.Int63n(0x7f800000)))))
	}
	for len(xs) < n {
		add(f(rng.Uint64() &^ (1 << 63)))
	}
	for i := 0; i < n/16; i++ { // some negatives
		add(-f(rng.Uint64() &^ (1 << 63)))
	}
	return xs
}

func TestLogPortOnCPU(t *testing.T) {
	t.Parallel()
	exe := shimDriver(t)
	n := 4_000_000
	if testing.Short() {
		n = 400_000
	}
	xs := logInputs(rand.New(rand.NewSource(5)), n)
	in := make([]byte, 8*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint64(in[8*i:], math.Float64bits(x))
	}
	out := runDriver(t, exe, "log", in)
	if len(out) != len(in) {
		t.Fatalf("%d bytes back for %d inputs", len(out), len(xs))
	}
	bad := 0
	for i, x := range xs {
		got := math.Float64frombits(binary.LittleEndian.Uint64(out[8*i:]))
		want := easel.Log(x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			if bad++; bad <= 5 {
				t.Errorf("log(%x = %g): port %x, easel %x", math.Float64bits(x), x, math.Float64bits(got), math.Float64bits(want))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d logs differ", bad, len(xs))
	}
}

func TestLogfPortOnCPU(t *testing.T) {
	t.Parallel()
	exe := shimDriver(t)
	n := 4_000_000
	if testing.Short() {
		n = 400_000
	}
	rng := rand.New(rand.NewSource(6))
	var xs []float32
	add := func(v ...float32) { xs = append(xs, v...) }
	add(0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()))
	for e := -149; e <= 127; e++ {
		p := float32(math.Ldexp(1, e))
		add(p, math.Nextafter32(p, 0), math.Nextafter32(p, float32(math.Inf(1))))
	}
	for L := 1; L <= 200000; L++ { // the kernel's inputs: P1 and 1-P1 for every length
		p1 := float32(L) / float32(L+1)
		add(p1, float32(1.0-float64(p1)))
	}
	for i := 0; i < 100000; i++ {
		add(math.Float32frombits(uint32(rng.Int63n(1 << 23)))) // subnormals
	}
	for len(xs) < n {
		add(math.Float32frombits(rng.Uint32() &^ (1 << 31)))
	}
	in := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(x))
	}
	out := runDriver(t, exe, "logf", in)
	if len(out) != len(in) {
		t.Fatalf("%d bytes back for %d inputs", len(out), len(xs))
	}
	bad := 0
	for i, x := range xs {
		got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
		want := easel.Logf(x)
		if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			if bad++; bad <= 5 {
				t.Errorf("logf(%x = %g): port %x, easel %x", math.Float32bits(x), x, math.Float32bits(got), math.Float32bits(want))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d logfs differ", bad, len(xs))
	}
}

// runKernel runs bias.cu on the CPU over the targets with want[i] (all
// when nil) and returns what the GPU path would, NaN where untouched.
func runKernel(t *testing.T, exe string, bg *profile.Background, dsqs [][]byte, want []bool) []float32 {
	t.Helper()
	p, ok := bg.FilterParams()
	if !ok {
		t.Fatal("no filter")
	}
	var idx []int
	for i, d := range dsqs {
		if (want == nil || want[i]) && len(d) > 0 {
			idx = append(idx, i)
		}
	}
	packed := gpudb.Pack(dsqs, idx, threadsPerTarget)
	par, odds := paramBytes(p)
	var in bytes.Buffer
	w := func(v any) { binary.Write(&in, binary.LittleEndian, v) }
	// Two blocks of two warps: more 32-target blocks than warps, so warps
	// come back for more work.
	w([]int32{int32(len(p.Odds)), int32(packed.NBlocks), int32(len(dsqs)), 2, 64})
	for _, a := range [][]byte{par, odds, packed.Res, packed.Table} {
		w(int64(len(a)))
		in.Write(a)
	}
	out := runDriver(t, exe, "kernel", in.Bytes())
	if len(out) != 4*len(dsqs) {
		t.Fatalf("kernel output: %d bytes for %d targets", len(out), len(dsqs))
	}
	sc := make([]float32, len(dsqs))
	for i := range sc {
		sc[i] = math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
	}
	return sc
}

// cpuScore is the reference: FilterScore with the target's own length.
func cpuScore(bg *profile.Background, dsq []byte) float32 {
	b := *bg
	b.SetLength(len(dsq))
	return b.FilterScore(dsq)
}

// filterBackground is the pipeline's bias filter for h (pipeline.NewModel),
// with HMMER's unset composition (-1) when h has none.
func filterBackground(h *hmm.HMM) *profile.Background {
	bg := profile.NewBackground(h.Alph)
	compo := h.Compo
	if compo == nil {
		compo = make([]float32, h.Alph.K)
		for i := range compo {
			compo[i] = -1
		}
	}
	bg.SetFilter(h.M, compo)
	return bg
}

// sameScore is bit-for-bit equality, except that any NaN equals any NaN:
// an unset composition (-1) gives negative odds and 0/0 for some targets,
// and a GPU's arithmetic makes one canonical NaN where x86 propagates the
// operands' payloads and signs. The pipeline only compares scores, for
// which all NaNs are alike.
func sameScore(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

// compareKernel checks every selected non-empty target bit for bit and
// that the others were left alone; it returns how many were compared.
func compareKernel(t *testing.T, what string, got []float32, bg *profile.Background, dsqs [][]byte, want []bool) int {
	t.Helper()
	bad, n := 0, 0
	for i, d := range dsqs {
		sel := (want == nil || want[i]) && len(d) > 0
		if !sel {
			if math.Float32bits(got[i]) != 0x7fc0dead {
				t.Errorf("%s target %d (L=%d, not selected): written %v", what, i, len(d), got[i])
			}
			continue
		}
		n++
		if ref := cpuScore(bg, d); !sameScore(got[i], ref) {
			if bad++; bad <= 5 {
				t.Errorf("%s target %d (L=%d): kernel %v (%08x), CPU %v (%08x)", what, i, len(d), got[i], math.Float32bits(got[i]), ref, math.Float32bits(ref))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d targets differ", what, bad, n)
	}
	return n
}

// biasedTargets are random targets of many lengths, some of them made of
// the model's favourite residues (where the filter's second state wins),
// some with every special code.
func biasedTargets(rng *rand.Rand, abc *alphabet.Alphabet, compo []float32, n int) [][]byte {
	var dsqs [][]byte
	for _, L := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 32, 33, 64, 65} {
		dsqs = append(dsqs, testmodels.RandomDsq(rng, abc, L))
	}
	dsqs = append(dsqs, nil, []byte{}) // empty targets are skipped
	specials := make([]byte, 0, abc.Kp)
	for x := 0; x < abc.Kp; x++ {
		specials = append(specials, byte(x))
	}
	dsqs = append(dsqs, specials)
	top := 0
	for x := range compo {
		if compo[x] > compo[top] {
			top = x
		}
	}
	for len(dsqs) < n {
		L := 1 + rng.Intn(400)
		d := testmodels.RandomDsq(rng, abc, L)
		switch rng.Intn(4) {
		case 0: // a low-complexity stretch
			a := rng.Intn(L)
			for i := a; i < min(L, a+rng.Intn(200)); i++ {
				d[i] = byte(top)
			}
		case 1: // a target the composition state explains throughout
			for i := range d {
				if rng.Intn(3) > 0 {
					d[i] = byte(top)
				}
			}
		}
		dsqs = append(dsqs, d)
	}
	return dsqs
}

func TestKernelOnCPU(t *testing.T) {
	t.Parallel()
	exe := shimDriver(t)
	rng := rand.New(rand.NewSource(9))
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	total := 0
	for _, c := range []struct {
		abc   *alphabet.Alphabet
		M     int
		unset bool
	}{{amino, 1, false}, {amino, 7, false}, {amino, 120, false}, {amino, 900, false}, {amino, 60, true}, {dna, 30, false}, {dna, 300, true}} {
		h := testmodels.RandomHMM(rng, c.abc, c.M)
		if c.unset {
			h.Compo = nil
		}
		bg := filterBackground(h)
		compo := h.Compo
		if compo == nil {
			compo = make([]float32, c.abc.K)
		}
		dsqs := biasedTargets(rng, c.abc, compo, 150)
		what := fmt.Sprintf("%v M=%d unset=%v", c.abc.Type, c.M, c.unset)
		total += compareKernel(t, what, runKernel(t, exe, bg, dsqs, nil), bg, dsqs, nil)
		// A subset, as the pipeline asks for its MSV survivors.
		want := make([]bool, len(dsqs))
		for i := range want {
			want[i] = rng.Intn(3) == 0
		}
		total += compareKernel(t, what+" subset", runKernel(t, exe, bg, dsqs, want), bg, dsqs, want)
	}
	// Long targets: one lane walks each alone.
	h := testmodels.RandomHMM(rng, amino, 200)
	bg := filterBackground(h)
	long := [][]byte{testmodels.RandomDsq(rng, amino, 40000), testmodels.RandomDsq(rng, amino, 9999), testmodels.RandomDsq(rng, amino, 3)}
	total += compareKernel(t, "long", runKernel(t, exe, bg, long, nil), bg, long, nil)
	t.Logf("%d targets bit for bit", total)
}

func TestKernelOnCPURealModels(t *testing.T) {
	t.Parallel()
	exe := shimDriver(t)
	dir := testutil.Testdata(t, "hmmer3")
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	prot := testmodels.ReadDsqs(t, filepath.Join(dir, "prot.fa"), amino)
	prot = append(prot, testmodels.ReadDsqs(t, filepath.Join(dir, "synth.fa"), amino)...)
	nuc := testmodels.ReadDsqs(t, filepath.Join(dir, "synth_dna.fa"), dna)
	for _, h := range testmodels.ReadModels(t, filepath.Join(dir, "models", "*.hmm.gz")) {
		dsqs := prot
		if h.Alph.Type == alphabet.DNA {
			dsqs = nuc
		}
		dsqs = dsqs[:min(len(dsqs), 300)]
		bg := filterBackground(h)
		compareKernel(t, h.Name, runKernel(t, exe, bg, dsqs, nil), bg, dsqs, nil)
	}
}

// TestKernelCompilesForNVPTX compiles bias.cu, as gpu.go assembles it, for
// a GPU with clang's NVPTX back end (no CUDA toolkit needed) and checks
// that no float multiply-add was contracted: the double fma()s of the log
// ports must be there, and nothing else fused. It skips where clang cannot
// target NVPTX.
func TestKernelCompilesForNVPTX(t *testing.T) {
	t.Parallel()
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Skip("clang not on PATH: device compilation of bias.cu not checked")
	}
	dir := t.TempDir()
	nvptx := func(src string) ([]byte, error) {
		out := filepath.Join(dir, "out.ptx")
		args := []string{"-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_80",
			"-Xclang", "-target-feature", "-Xclang", "+ptx70", "-ffp-contract=off", "-O2", "-S", "-o", out,
			"-include", filepath.Join("testdata", "cudacpu", "nvptx.h"), src}
		if msg, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
			return msg, err
		}
		return os.ReadFile(out)
	}
	probe := filepath.Join(dir, "probe.cu")
	os.WriteFile(probe, []byte("extern \"C\" __global__ void k(int* p) { p[threadIdx.x] = __shfl_sync(0xffffffffu, p[0], 1); }\n"), 0o644)
	if msg, err := nvptx(probe); err != nil {
		t.Skipf("clang cannot compile CUDA for NVPTX here: %v\n%s", err, msg)
	}
	prog := filepath.Join(dir, "bias.cu")
	if err := os.WriteFile(prog, []byte(program().Source), 0o644); err != nil {
		t.Fatal(err)
	}
	ptx, err := nvptx(prog)
	if err != nil {
		t.Fatalf("%v\n%s", err, ptx)
	}
	if !bytes.Contains(ptx, []byte(".entry bias_kernel")) {
		t.Error("no bias_kernel entry in the PTX")
	}
	if bytes.Contains(ptx, []byte("fma.rn.f32")) || bytes.Contains(ptx, []byte("mad.f32")) {
		t.Error("the PTX has fused float multiply-adds")
	}
	if !bytes.Contains(ptx, []byte("fma.rn.f64")) {
		t.Error("the PTX has no double fma: the log ports lost their fused steps")
	}
	if !bytes.Contains(ptx, []byte("div.rn.f32")) || bytes.Contains(ptx, []byte("div.approx")) || bytes.Contains(ptx, []byte("div.full")) {
		t.Error("the PTX's float division is not IEEE round-to-nearest")
	}
	if bytes.Contains(ptx, []byte(".ftz.")) {
		t.Error("the PTX flushes subnormals")
	}
}
