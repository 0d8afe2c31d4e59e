package hmmsearch

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// startMark prints when a start-up step ended ($HMMGO_STAGE_TIMES), so
// that the time before the first query can be told apart.
func (s *search) startMark(step string) {
	if s.stageTimes {
		fmt.Fprintf(s.env.Stderr, "hmmgo hmmsearch: start: %s at +%.3f\n", step, time.Since(s.started).Seconds())
	}
}

// exitReport prints ($HMMGO_STAGE_TIMES) what the process's exit will
// have to tear down: the memory it holds, and the timed teardown steps
// $HMMGO_EXIT_STEPS asks for.
func (s *search) exitReport() {
	w := s.env.Stderr
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	const mb = 1 << 20
	fmt.Fprintf(w, "hmmgo hmmsearch: memory at the end: %s; Go heap %d MB from the system, %d MB in use, %d MB released, %d collections\n",
		procStatus("VmHWM", "VmRSS"), ms.HeapSys/mb, ms.HeapInuse/mb, ms.HeapReleased/mb, ms.NumGC)
	for _, step := range strings.Split(s.exitSteps, ",") {
		t := time.Now()
		switch step {
		case "reset":
			if s.gpu == nil || s.gpu.awaitKernels() != nil {
				continue
			}
			for _, k := range s.gpu.gpus {
				if err := k.ctx.Reset(); err != nil {
					fmt.Fprintf(w, "hmmgo hmmsearch: %v\n", err)
				}
			}
		case "freeos":
			debug.FreeOSMemory()
		default:
			continue
		}
		fmt.Fprintf(w, "hmmgo hmmsearch: exit step %s took %.3f s; Unix time %d ns\n", step, time.Since(t).Seconds(), time.Now().UnixNano())
	}
}

// procStatus reads the named lines of /proc/self/status (Linux; empty
// elsewhere).
func procStatus(keys ...string) string {
	f, err := os.Open("/proc/self/status")
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
