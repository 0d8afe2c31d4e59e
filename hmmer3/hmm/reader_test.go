package hmm

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func readGz(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// compareDumps reports the first differing line of two dumps.
func compareDumps(t *testing.T, name, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			t.Fatalf("%s: line %d differs from HMMER's reader:\n go:   %.200s\n hmmer: %.200s", name, i+1, g[i], w[i])
		}
	}
	t.Fatalf("%s: dump has %d lines, HMMER's has %d", name, len(g), len(w))
}

// Every fixture must read exactly as HMMER 3.3.2's own reader read it.
func TestGoldenDumps(t *testing.T) {
	fixtures := []string{
		"globins4.3a.hmm", "globins4.3b.hmm", "globins4.3c.hmm", "globins4.3d.hmm", "globins4.3e.hmm",
		"globins4.hmm2", "globins4.3f.bin", "MADE1.hmm", "minifam.hmm.gz",
	}
	for _, f := range fixtures {
		t.Run(f, func(t *testing.T) {
			compareDumps(t, f, dumpFile(t, filepath.Join("testdata", f)), readGz(t, filepath.Join("testdata", f+".dump.gz")))
		})
	}
	t.Run("globins4.hmm", func(t *testing.T) {
		got := dumpFile(t, repoTestdata(t, "globins4.hmm"))
		compareDumps(t, "globins4.hmm", got, readGz(t, "testdata/globins4.hmm.dump.gz"))
	})
}

// Binary files of every format version (gzip'd ones found by their
// magic bytes) hold the same values as the 3/f text file, apart from the
// fields older formats lack.
func TestBinaryFormats(t *testing.T) {
	want := readGz(t, "testdata/globins4.3f.bin.dump.gz")
	for _, v := range []string{"a", "b", "c", "d", "e"} {
		f := "testdata/globins4.3" + v + ".bin.gz"
		got := dumpFile(t, f)
		// The ASCII file of the same version is the reference for the
		// version-specific fields (3/a: one lambda; < 3/c: no MAXL; < 3/e:
		// computed consensus).
		compareDumps(t, f, got, readGz(t, "testdata/globins4.3"+v+".hmm.dump.gz"))
		if v == "e" {
			compareDumps(t, f, got, want)
		}
	}
}

// The SHA-256 of HMMER's dump of every model in Debian's hmmer-examples
// and in the shared data set must match the Go reader's dump.
func TestManyModels(t *testing.T) {
	f, err := os.Open("testdata/hmmdump.sha256")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		sum, id := fs[0], fs[1]
		n++
		t.Run(id, func(t *testing.T) {
			var path string
			switch {
			case strings.HasPrefix(id, "examples:"):
				path = hmmerExamples(t, strings.TrimPrefix(id, "examples:"))
			case strings.HasPrefix(id, "shared:"):
				path = sharedData(t, strings.TrimPrefix(id, "shared:"))
			default:
				t.Fatalf("bad id %q", id)
			}
			h := sha256.Sum256([]byte(dumpFile(t, path)))
			if got := hex.EncodeToString(h[:]); got != sum {
				t.Errorf("dump of %s differs from HMMER's (sha256 %s, want %s); rerun testdata/hmmdump.c on it to see where", path, got, sum)
			}
		})
	}
	if n < 50 {
		t.Fatalf("manifest has only %d models", n)
	}
}

func TestMultipleModelsAndFormat(t *testing.T) {
	r, err := OpenFile("testdata/minifam.hmm.gz", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Format() != Format3f {
		t.Errorf("format %v", r.Format())
	}
	var names []string
	var abc0 any
	for {
		h, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if abc0 == nil {
			abc0 = h.Alph
		} else if any(h.Alph) != abc0 {
			t.Error("models of one file should share one alphabet")
		}
		names = append(names, h.Name)
	}
	if len(names) != 5 {
		t.Errorf("read %d models (%v), want 5", len(names), names)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Errorf("Read after the end: %v, want io.EOF", err)
	}
}

// "-" reads standard input, gzip'd or not.
func TestStdin(t *testing.T) {
	plain, err := os.ReadFile("testdata/MADE1.hmm")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	for name, in := range map[string][]byte{"plain": plain, "gzip": gz.Bytes()} {
		r, err := OpenFile("-", bytes.NewReader(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		h, err := r.Read()
		if err != nil || h.Name != "MADE1" || h.M != 80 || h.Alph.K != 4 {
			t.Fatalf("%s: %v %+v", name, err, h)
		}
		if _, err := r.Read(); err != io.EOF {
			t.Errorf("%s: second Read: %v", name, err)
		}
		r.Close()
	}
}

// hmmsearch reads path.h3m instead of path when it exists (and then
// needs .h3f, .h3p and .h3i beside it).
func TestPressedPrecedence(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "db.hmm")
	copyFile(t, "testdata/MADE1.hmm", text)
	bin, err := os.ReadFile("testdata/globins4.3f.bin")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(text+".h3m", bin, 0o644)
	if _, err := OpenFile(text, nil); err == nil || !strings.Contains(err.Error(), ".h3f is missing") {
		t.Fatalf("missing .h3f: got %v", err)
	}
	for _, ext := range []string{".h3f", ".h3p", ".h3i"} {
		os.WriteFile(text+ext, nil, 0o644)
	}
	for _, p := range []string{text, filepath.Join(dir, "gone.hmm")} {
		if p != text {
			os.Rename(text+".h3m", p+".h3m")
			for _, ext := range []string{".h3f", ".h3p", ".h3i"} {
				os.Rename(text+ext, p+ext)
			}
		}
		r, err := OpenFile(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		h, err := r.Read()
		if err != nil || h.Name != "globins4" || r.Path() != p+".h3m" {
			t.Fatalf("%s: read %v, %v from %s; want the pressed globins4", p, h, err, r.Path())
		}
		r.Close()
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Live cross-check: HMMER's hmmconvert -b writes the floats its reader
// parsed; our binary reader must find the same values our text reader
// computed.
func TestLiveHmmconvert(t *testing.T) {
	hmmconvert := tool(t, "hmmconvert")
	files := []string{"testdata/globins4.3b.hmm", "testdata/MADE1.hmm", "testdata/minifam.hmm.gz",
		"testdata/globins4.hmm2", repoTestdata(t, "globins4.hmm")}
	for _, f := range files {
		out, err := exec.Command(hmmconvert, "-b", f).Output()
		if err != nil {
			t.Fatalf("hmmconvert -b %s: %v", f, err)
		}
		bin := filepath.Join(t.TempDir(), "m.bin")
		os.WriteFile(bin, out, 0o644)
		fromText, fromBin := dumpFile(t, f), dumpFile(t, bin)
		if strings.HasSuffix(f, ".hmm2") {
			// hmmconvert's binary carries the calibration; ours does not.
			fromBin = dropLines(fromBin, "stats ")
		}
		compareDumps(t, f, fromText, fromBin)
	}
}

func dropLines(s, prefix string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, prefix) {
			b.WriteString(l)
		}
	}
	return b.String()
}

func TestH2Calibrate(t *testing.T) {
	r, err := OpenFile("testdata/globins4.hmm2", nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	if !h.Calibrate || h.HasStats || h.EvParam[MSVMu] != Unset || h.Format != Format20 {
		t.Errorf("HMMER2 model: Calibrate %v HasStats %v evparam %v", h.Calibrate, h.HasStats, h.EvParam)
	}
}
