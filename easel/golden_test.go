package easel

import (
	"bufio"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pair is one golden vector: input and output bit patterns.
type pair struct{ in, out uint64 }

// readGolden loads testdata/<name>.golden.gz, written by libmgolden.c.
func readGolden(t *testing.T, name string) []pair {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".golden.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var ps []pair
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 2 {
			t.Fatalf("%s: bad line %q", name, sc.Text())
		}
		a, err1 := strconv.ParseUint(fs[0], 16, 64)
		b, err2 := strconv.ParseUint(fs[1], 16, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: bad line %q", name, sc.Text())
		}
		ps = append(ps, pair{a, b})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ps) < 1000 {
		t.Fatalf("%s: only %d vectors", name, len(ps))
	}
	return ps
}

// check32 compares f with a golden file bit for bit (any NaN matches any NaN).
func check32(t *testing.T, name string, f func(float32) float32) {
	t.Helper()
	bad := 0
	for _, p := range readGolden(t, name) {
		x := math.Float32frombits(uint32(p.in))
		want := math.Float32frombits(uint32(p.out))
		got := f(x)
		if want != want && got != got {
			continue
		}
		if math.Float32bits(got) != uint32(p.out) {
			if bad++; bad <= 5 {
				t.Errorf("%s(%g [%08x]) = %g [%08x], C gives %g [%08x]", name, x, p.in, got, math.Float32bits(got), want, p.out)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d vectors differ", name, bad)
	}
}

func check64(t *testing.T, name string, f func(float64) float64) {
	t.Helper()
	bad := 0
	for _, p := range readGolden(t, name) {
		x := math.Float64frombits(p.in)
		want := math.Float64frombits(p.out)
		got := f(x)
		if want != want && got != got {
			continue
		}
		if math.Float64bits(got) != p.out {
			if bad++; bad <= 5 {
				t.Errorf("%s(%g [%016x]) = %g [%016x], C gives %g [%016x]", name, x, p.in, got, math.Float64bits(got), want, p.out)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d vectors differ", name, bad)
	}
}
