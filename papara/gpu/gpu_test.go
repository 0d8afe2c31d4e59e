package gpu

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/papara/cmd"
	"github.com/hmmgo/hmmgo/papara/core"
)

// Tests named TestGPU* need a GPU: they skip without one (saying so) and
// run on the GPU host through bench/papara_gpu.sh. Each compares the GPU
// with the CPU: scores, best branches and, through the command, the
// alignments byte for byte with PaPaRa 2.5's.

var (
	gpuOnce   sync.Once
	gpuShared *Scorer
	gpuWhy    string
	gpuErr    error
)

// realGPU is a scorer on the first usable GPU, shared by the tests.
func realGPU(t testing.TB) *Scorer {
	t.Helper()
	gpuOnce.Do(func() {
		devs, err := devices.Usable()
		if err != nil {
			gpuWhy = fmt.Sprintf("no usable GPU: %v (the GPU tests run on the GPU host: bench/papara_gpu.sh)", err)
			return
		}
		gpuShared, gpuErr = New(devs[0])
	})
	if gpuWhy != "" {
		t.Skip(gpuWhy)
	}
	if gpuErr != nil {
		t.Fatal(gpuErr)
	}
	return gpuShared
}

// TestGPURandom: every case of the model and emulator tests on the device,
// and a larger job with many units.
func TestGPURandom(t *testing.T) {
	s := realGPU(t)
	cases := append(scorerCases(false),
		jobSpec{model: core.DNA, taxa: 400, cols: 600, readLens: lengths(12, 300, 30, 160), params: core.DefaultParams, seed: 12},
		jobSpec{model: core.Protein, taxa: 150, cols: 300, readLens: lengths(13, 120, 20, 120), params: core.DefaultParams, seed: 13})
	for _, spec := range cases {
		t.Run(caseName(spec), func(t *testing.T) {
			job := randomJob(t, spec)
			before := s.Stats()
			checkScorer(t, s, job)
			st := s.Stats()
			t.Logf("%s on %s: %d calls, %d launches, %d cells on the device (kernels %v), %d on the CPU", describeJob(job),
				s.Name(), st.Calls-before.Calls, st.Launches-before.Launches, st.Cells-before.Cells,
				st.KernelTime-before.KernelTime, st.CPUCells-before.CPUCells)
		})
	}
}

// sharedSet is one of the five sets PaPaRa 2.5's outputs were made for.
type sharedSet struct {
	name, tree, aln, reads string
	want, wantR            string // outputs without and with -r
}

func sharedSets(t *testing.T) []sharedSet {
	d := func(p string) string { return testutil.GPUData(t, p) }
	exp := func(p string) string { return d("papara/expected/papara_alignment." + p) }
	q2 := "sepp/q2-fragment-insertion/"
	return []sharedSet{
		{"epa_small", d("epa-ng/ref.tre"), d("epa-ng/aln.phy"), d("epa-ng/query.fasta"), exp("epa_small"), exp("epa_small_r")},
		{"pyrg", d("sepp/pyrg/sate.tre"), d("sepp/pyrg/sate.phy"), d("sepp/pyrg/pyrg.even.fas"), exp("pyrg.gz"), exp("pyrg_r.gz")},
		{"q2tiny", d(q2 + "reference_phylogeny_tiny.unrooted.nwk"), d(q2 + "ref_tiny.phy.gz"), d(q2 + "input_fragments.fasta"), exp("q2tiny.gz"), exp("q2tiny_r.gz")},
		{"rpsS", d("sepp/rpsS/sate.tre"), d("sepp/rpsS/sate.phy.gz"), d("sepp/rpsS/rpsS.even.fas.gz"), exp("rpsS.gz"), exp("rpsS_r.gz")},
		{"gut16S", d(q2 + "reference_phylogeny_tiny.unrooted.nwk"), d(q2 + "ref_tiny.phy.gz"), d("sepp/16S_bacteria/human_gut_16S.fas.gz"), exp("gut16S_refgaps.gz"), exp("gut16S.gz")},
	}
}

func readMaybeGz(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// runPapara runs `hmmgo papara` in-process (this test binary registers the
// GPU scorer, as cmd/hmmgo does).
func runPapara(args ...string) (int, string) {
	var out, errb bytes.Buffer
	code := cmd.Command.Run(cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, args)
	return code, errb.String()
}

// TestGPUSharedSets: the five sets, with and without -r, on the CPU, the
// GPU alone and both: every alignment equals PaPaRa 2.5's byte for byte and
// the three placement tables (best branch and score of every read) are
// identical.
func TestGPUSharedSets(t *testing.T) {
	realGPU(t)
	checkSharedSets(t, 5)
}

func checkSharedSets(t *testing.T, nsets int) {
	threads := strconv.Itoa(runtime.NumCPU())
	runs := []struct {
		name string
		args []string
	}{
		{"cpu", []string{"--no-gpu", "-j", threads}},
		{"gpu", []string{"--gpu", "-j", "0"}},
		{"hybrid", []string{"--gpu", "-j", threads}},
	}
	for _, s := range sharedSets(t)[:nsets] {
		t.Run(s.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir) // the log papara_log.<name> goes to the working directory
			var placements [][]byte
			for _, r := range runs {
				for _, noRef := range []bool{false, true} {
					out := filepath.Join(dir, r.name+".phy")
					args := append([]string{"-t", s.tree, "-s", s.aln, "-q", s.reads, "-o", out, "--placement", out + ".pl", "-n", r.name, "-f"}, r.args...)
					want := s.want
					if noRef {
						args = append(args, "-r")
						want = s.wantR
					}
					code, stderr := runPapara(args...)
					if code != 0 {
						t.Fatalf("%s: exit %d: %s", r.name, code, stderr)
					}
					if r.name != "cpu" && !strings.Contains(stderr, "scoring on gpu [") {
						t.Fatalf("%s: the GPU was not used: %s", r.name, stderr)
					}
					got := readMaybeGz(t, out)
					if !bytes.Equal(got, readMaybeGz(t, want)) {
						t.Errorf("%s, -r %v: alignment differs from PaPaRa 2.5 (%s)", r.name, noRef, filepath.Base(want))
					}
					pl, err := os.ReadFile(out + ".pl")
					if err != nil {
						t.Fatal(err)
					}
					placements = append(placements, pl)
				}
			}
			for i := 1; i < len(placements); i++ {
				if !bytes.Equal(placements[i], placements[0]) {
					t.Errorf("placement table of run %d differs from the CPU's", i)
				}
			}
			t.Logf("%s: CPU, GPU and hybrid alignments identical to PaPaRa 2.5's, with and without -r", s.name)
		})
	}
}
