package hmmsearch

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hmmgo/hmmgo/internal/hugemem"
)

// startMark prints when a start-up step ended ($HMMGO_STAGE_TIMES), so
// that the time before the first query can be told apart.
func (s *search) startMark(step string) { s.startMarkAt(step, time.Now()) }

// startMarkAt is startMark of a step that ended at a given time (on
// another goroutine: only the run's goroutine prints).
func (s *search) startMarkAt(step string, at time.Time) {
	if s.stageTimes {
		fmt.Fprintf(s.env.Stderr, "hmmgo hmmsearch: start: %s at +%.3f\n", step, at.Sub(s.started).Seconds())
	}
}

// exitReport prints ($HMMGO_STAGE_TIMES) what the process's exit will
// have to tear down: the kernel unmaps the heap's pages one by one (4 KiB
// pages where transparent huge pages are "madvise"), about 50 ms per GB
// on the H100 host; domain definition's matrices are in 2 MiB pages
// (internal/hugemem), reserved fourfold, of which AnonHugePages is what
// was touched.
func (s *search) exitReport() {
	w := s.env.Stderr
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	const mb = 1 << 20
	fmt.Fprintf(w, "hmmgo hmmsearch: memory at the end: %s; Go heap %d MB from the system, %d MB in use, %d MB released, %d collections; DP matrices: huge-page mappings %d MB reserved, %s touched\n",
		procLines("/proc/self/status", "VmHWM", "VmRSS"), ms.HeapSys/mb, ms.HeapInuse/mb, ms.HeapReleased/mb, ms.NumGC,
		hugemem.MappedBytes()/mb, procLines("/proc/self/smaps_rollup", "AnonHugePages"))
}

// procLines reads the named lines of a /proc file such as
// /proc/self/status (Linux; empty elsewhere).
func procLines(path string, keys ...string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		for _, k := range keys {
			if v, ok := strings.CutPrefix(sc.Text(), k+":"); ok {
				out = append(out, k+" "+strings.Join(strings.Fields(v), " "))
			}
		}
	}
	return strings.Join(out, ", ")
}
