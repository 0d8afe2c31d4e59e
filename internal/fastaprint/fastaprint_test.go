package fastaprint

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, content []byte) string {
	p := filepath.Join(t.TempDir(), "db.fa")
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Record starts are the '>' that open a header; a '>' inside a header is
// not one, and one inside a sequence line is (Easel ends the record there).
func TestScanStarts(t *testing.T) {
	text := ">a desc > with arrow\nACDE\n>b\r\nAC>c\nGG\n\n>d\n"
	p, err := Scan(write(t, []byte(text)), true)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{0, 26, 32, 39}
	if !reflect.DeepEqual(p.Starts, want) {
		t.Fatalf("starts %v, want %v", p.Starts, want)
	}
	sum := sha256.Sum256([]byte(text))
	if p.SHA256 != hex.EncodeToString(sum[:]) || p.Size != int64(len(text)) {
		t.Fatalf("print %s %d", p.SHA256, p.Size)
	}
	q, err := Scan(write(t, []byte(text)), false)
	if err != nil || q.Starts != nil || q.SHA256 != p.SHA256 {
		t.Fatalf("without starts: %+v, %v", q, err)
	}
}

// Longer than the read buffer: the header state carries across reads.
func TestScanAcrossBuffers(t *testing.T) {
	var b strings.Builder
	var want []int64
	for i := 0; b.Len() < 3<<20; i++ {
		want = append(want, int64(b.Len()))
		b.WriteString(">s" + strings.Repeat("x", 1000) + "\n" + strings.Repeat("ACDEFGHIKL", 50) + "\n")
	}
	p, err := Scan(write(t, []byte(b.String())), true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Starts, want) {
		t.Fatalf("%d starts, want %d", len(p.Starts), len(want))
	}
}

func TestScanRefusesGzip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.fa.gz")
	f, _ := os.Create(path)
	zw := gzip.NewWriter(f)
	zw.Write([]byte(">a\nACDE\n"))
	zw.Close()
	f.Close()
	if _, err := Scan(path, true); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Fatalf("gzip file: %v", err)
	}
	if _, err := Scan(filepath.Join(t.TempDir(), "missing.fa"), false); err == nil {
		t.Fatal("a missing file scanned")
	}
}

// The record starts are those of walking the file byte by byte, for
// random text rich in the bytes that matter, across read buffers.
func TestScanStartsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte(">>\n\n\rACDEFGHIK ")
	for _, size := range []int{0, 1, 2, 100, 1<<20 - 1, 1 << 20, 1<<20 + 1, 3<<20 + 17} {
		text := make([]byte, size)
		for i := range text {
			text[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if size > 1 && text[0] == 0x1f {
			text[0] = '>'
		}
		var want []int64
		inHeader := false
		for i, c := range text {
			if inHeader {
				inHeader = c != '\n' && c != '\r'
			} else if c == '>' {
				want = append(want, int64(i))
				inHeader = true
			}
		}
		p, err := Scan(write(t, text), true)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(text)
		if !reflect.DeepEqual(p.Starts, want) || p.Size != int64(size) || p.SHA256 != hex.EncodeToString(sum[:]) {
			t.Fatalf("size %d: %d starts, want %d; size %d", size, len(p.Starts), len(want), p.Size)
		}
	}
}
