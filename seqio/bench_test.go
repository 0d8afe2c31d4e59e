package seqio

import (
	"bytes"
	"io"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
)

// syntheticFASTA returns about size bytes of protein FASTA: UniProt-like
// headers, lengths around 350, 60 residues per line.
func syntheticFASTA(size int) []byte {
	rng := rand.New(rand.NewSource(1))
	const aa = "ACDEFGHIKLMNPQRSTVWY"
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		b.WriteString(">sp|P")
		b.WriteString(string(rune('0' + i%10)))
		b.WriteString("|PROT_HUMAN Some protein name OS=Homo sapiens OX=9606 GN=ABC PE=1 SV=2\n")
		n := 50 + rng.Intn(600)
		for j := 0; j < n; j++ {
			b.WriteByte(aa[rng.Intn(len(aa))])
			if j%60 == 59 || j == n-1 {
				b.WriteByte('\n')
			}
		}
	}
	return b.Bytes()
}

var benchData = sync.OnceValue(func() []byte { return syntheticFASTA(64 << 20) })

// BenchmarkRead measures FASTA parsing from memory (MB/s is input bytes).
func BenchmarkRead(b *testing.B) {
	data := benchData()
	abc := alphabet.New(alphabet.Amino)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	defer reportCPU(b, len(data), cpuTime())
	for i := 0; i < b.N; i++ {
		r, err := Open("-", bytes.NewReader(data), abc)
		if err != nil {
			b.Fatal(err)
		}
		var s Sequence
		for {
			if err := r.ReadInto(&s); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkReadAlloc is BenchmarkRead with a new Sequence per record.
func BenchmarkReadAlloc(b *testing.B) {
	data := benchData()
	abc := alphabet.New(alphabet.Amino)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	defer reportCPU(b, len(data), cpuTime())
	for i := 0; i < b.N; i++ {
		r, _ := Open("-", bytes.NewReader(data), abc)
		for {
			if _, err := r.Read(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// reportCPU adds "cpu-MB/s": input bytes per second of CPU time used
// since start (all threads, garbage collector included).
func reportCPU(b *testing.B, size int, start time.Duration) {
	if d := cpuTime() - start; d > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/d.Seconds(), "cpu-MB/s")
	}
}
