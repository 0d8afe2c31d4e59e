package hmmsearch

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/cli"
)

// The cost rule: a long target whose device latency alone exceeds its CPU
// cost stays on the CPU while the rest of a big batch goes to the device;
// a small batch stays on the CPU; HMMGO_GPU_FORWARD=gpu takes everything.
func TestForwardCostSplit(t *testing.T) {
	c := forwardCost{RowNs: 1000, DeviceGCUPS: 40, LaunchMs: 2, CoreGCUPS: 0.5, Cores: 16}
	items := func(n, L, M int, long ...int) []fwdItem {
		var it []fwdItem
		for i := 0; i < n; i++ {
			it = append(it, fwdItem{target: i, L: L, M: M, Q: oprofile.NumVecF(M)})
		}
		for k, l := range long {
			it = append(it, fwdItem{target: n + k, L: l, M: M, Q: oprofile.NumVecF(M)})
		}
		return it
	}
	// 6,000 survivors of 400 residues and a 6,240-residue one, M=300:
	// the GPU does the 6,000 in ~30 ms (latency), the cores would need
	// ~90 ms; the long one costs the GPU 470 ms, one core 4 ms.
	big := items(6000, 400, 300, 6240)
	sp := c.split(big)
	if sp.onGPU != 6000 || big[len(big)-1].L != 6240 {
		t.Errorf("big batch: %d of %d on the GPU (last %d residues), want all but the long one", sp.onGPU, len(big), big[len(big)-1].L)
	}
	if !(sp.gpuTime+sp.cpuTime < sp.allCPU) {
		t.Errorf("big batch: estimates %v + %v, all CPU %v", sp.gpuTime, sp.cpuTime, sp.allCPU)
	}
	if sp := c.split(items(20, 300, 100)); sp.onGPU != 0 {
		t.Errorf("small batch: %d on the GPU, want none", sp.onGPU)
	}
	if sp := c.split(nil); sp.onGPU != 0 {
		t.Errorf("empty batch: %d on the GPU", sp.onGPU)
	}
	if sp := c.all(items(20, 300, 100, 9000)); sp.onGPU != 21 {
		t.Errorf("forced: %d of 21 on the GPU", sp.onGPU)
	}
}

// The busy rule: with the cores the bottleneck, a batch the latency rule
// keeps on the CPU goes to the device when that saves CPU time, except
// the targets whose device latency would pass BusyMs; a tiny batch, whose
// cells cost the cores less than a launch costs the host, stays.
func TestForwardCostBusy(t *testing.T) {
	c := defaultForwardCost(16)
	c.Busy = 0.5
	var batch []fwdItem
	for i := 0; i < 12000; i++ { // ~24 queries of ~500 survivors, M = 200
		batch = append(batch, fwdItem{target: i, L: 200 + i%400, M: 200, Q: oprofile.NumVecF(200)})
	}
	// M = 2405 and L = 3,500: ~300 ms alone on the device.
	batch = append(batch, fwdItem{target: 12000, L: 3500, M: 2405, Q: oprofile.NumVecF(2405)})
	if sp := c.split(append([]fwdItem(nil), batch...)); sp.onGPU != 0 {
		t.Fatalf("latency rule: %d on the GPU; this test wants a batch it keeps on the CPU", sp.onGPU)
	}
	sp := c.splitBusy(batch)
	if sp.onGPU != 12000 || batch[12000].M != 2405 || !sp.busy {
		t.Errorf("busy: %d of %d on the GPU (last M %d), want all but the long one", sp.onGPU, len(batch), batch[12000].M)
	}
	if sp.gpuTime > time.Duration(c.BusyMs*1e6) {
		t.Errorf("busy: device estimate %v over %v ms", sp.gpuTime, c.BusyMs)
	}
	tiny := []fwdItem{{L: 50, M: 20, Q: oprofile.NumVecF(20)}, {target: 1, L: 60, M: 20, Q: oprofile.NumVecF(20)}}
	if sp := c.splitBusy(tiny); sp.onGPU != 0 {
		t.Errorf("tiny busy batch: %d on the GPU, want none", sp.onGPU)
	}
}

// The batcher takes the busy rule only while the cores are oversubscribed,
// and only when it is on (Busy > 0).
func TestBatcherBusySwitch(t *testing.T) {
	n := 3000
	lengths := make([]int32, n)
	want := make([]bool, n)
	for i := range lengths {
		lengths[i], want[i] = int32(200+i%300), true
	}
	launched := 0
	fake := func(reqs []*fwdRequest, sel [][]int) ([][]float32, error) {
		launched++
		out := make([][]float32, len(reqs))
		for k := range reqs {
			out[k] = make([]float32, len(sel[k]))
		}
		return out, nil
	}
	for _, v := range []struct {
		runnable int
		gpu      bool
		off      bool // the busy rule as by default: off
	}{{0, false, false}, {3, false, false}, {8, true, false}, {40, true, false}, {40, false, true}} {
		launched = 0
		c := defaultForwardCost(16)
		if !v.off {
			c.Busy = 0.5
		}
		b := &forwardBatcher{launch: fake, cost: c, lengths: lengths, runnable: func() int { return v.runnable }}
		_, onGPU, err := b.forward(&oprofile.Profile{M: 150}, want)
		if err != nil {
			t.Fatal(err)
		}
		if got := launched > 0 && onGPU != nil && onGPU[0]; got != v.gpu {
			t.Errorf("%d runnable: on the GPU %v, want %v", v.runnable, got, v.gpu)
		}
	}
}

func TestParseForwardCost(t *testing.T) {
	c, err := parseForwardCost("rowns=800, gcups=55,launchms=1.5,coregcups=0.4,cores=12,busy=2,busyms=100,hostms=3,hostus=1.5", defaultForwardCost(4))
	if err != nil || c != (forwardCost{RowNs: 800, DeviceGCUPS: 55, LaunchMs: 1.5, CoreGCUPS: 0.4, Cores: 12, Busy: 2, BusyMs: 100, HostMs: 3, HostUs: 1.5}) {
		t.Errorf("got %+v, %v", c, err)
	}
	if c, err := parseForwardCost("", defaultForwardCost(4)); err != nil || c != defaultForwardCost(4) {
		t.Errorf("empty: %+v, %v", c, err)
	}
	for _, bad := range []string{"rowns", "rowns=-1", "speed=3", "gcups=x"} {
		if _, err := parseForwardCost(bad, defaultForwardCost(4)); err == nil || !strings.Contains(err.Error(), "HMMGO_GPU_FORWARD_COST") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// The batcher: requests that arrive while a launch runs go together in the
// next launch, each gets its own scores for exactly the targets the launch
// computed, and a launch error reaches every request of its batch.
func TestForwardBatcher(t *testing.T) {
	const n = 50
	lengths := make([]int32, n)
	for i := range lengths {
		lengths[i] = int32(100 + i)
	}
	lengths[7] = 0 // an empty target is never sent
	first := make(chan struct{})
	release := make(chan struct{})
	var mu sync.Mutex
	var sizes []int
	fake := func(reqs []*fwdRequest, sel [][]int) ([][]float32, error) {
		mu.Lock()
		sizes = append(sizes, len(reqs))
		k := len(sizes)
		mu.Unlock()
		if k == 1 {
			close(first)
			<-release
		}
		out := make([][]float32, len(reqs))
		for r, req := range reqs {
			out[r] = make([]float32, len(sel[r]))
			for j, i := range sel[r] {
				if !req.want[i] || lengths[i] == 0 {
					return nil, errors.New("launched a target not wanted")
				}
				if j > 0 && sel[r][j-1] >= i {
					return nil, errors.New("targets not in ascending order")
				}
				out[r][j] = float32(req.om.M*1000 + i)
			}
		}
		if reqs[0].om.M == 99 {
			return nil, errors.New("device failure")
		}
		return out, nil
	}
	b := &forwardBatcher{launch: fake, cost: defaultForwardCost(1), lengths: lengths, force: "gpu"}
	type result struct {
		scores []float32
		onGPU  []bool
		err    error
	}
	results := make([]result, 6)
	want := func(q int) []bool {
		w := make([]bool, n)
		for i := range w {
			w[i] = (i+q)%3 != 0
		}
		return w
	}
	var wg sync.WaitGroup
	ask := func(q int) {
		defer wg.Done()
		s, g, err := b.forward(&oprofile.Profile{M: q + 1}, want(q))
		results[q] = result{s, g, err}
	}
	wg.Add(1)
	go ask(0)
	<-first // the first launch is running: the next five must wait for it
	for q := 1; q < 6; q++ {
		wg.Add(1)
		go ask(q)
	}
	for {
		b.mu.Lock()
		p := len(b.pending)
		b.mu.Unlock()
		if p == 5 {
			break
		}
	}
	close(release)
	wg.Wait()
	if len(sizes) != 2 || sizes[0] != 1 || sizes[1] != 5 {
		t.Fatalf("launch sizes %v, want [1 5]", sizes)
	}
	for q, r := range results {
		if r.err != nil {
			t.Fatalf("query %d: %v", q, r.err)
		}
		w := want(q)
		for i := range w {
			on := w[i] && lengths[i] > 0
			if r.onGPU[i] != on {
				t.Errorf("query %d target %d: on GPU %v, want %v", q, i, r.onGPU[i], on)
			}
			if on && r.scores[i] != float32((q+1)*1000+i) {
				t.Errorf("query %d target %d: score %v", q, i, r.scores[i])
			}
		}
	}

	// A failing launch fails every request in it.
	if _, _, err := b.forward(&oprofile.Profile{M: 99}, want(0)); err == nil || !strings.Contains(err.Error(), "device failure") {
		t.Errorf("failing launch: %v", err)
	}
	// The cost rule may keep a batch on the CPU: no launch, nil scores.
	b.force = ""
	sizes = nil
	if s, g, err := b.forward(&oprofile.Profile{M: 5}, want(1)); s != nil || g != nil || err != nil || len(sizes) != 0 {
		t.Errorf("small batch: scores %v, on GPU %v, %v, %d launches", s != nil, g != nil, err, len(sizes))
	}
}

// HMMGO_GPU_FORWARD=filter forces the Forward filter onto the GPU and
// leaves the parsers to the batch-size rule; =gpu forces both; anything
// else fails before any work.
func TestGPUForwardFilterMode(t *testing.T) {
	few := make([]bool, gpuForwardMinTargets)
	few[0] = true
	for _, c := range []struct {
		mode    string
		parsers bool
	}{{"gpu", true}, {"filter", false}, {"bound", false}, {"", false}, {"exact", false}, {"cpu", false}} {
		if got := (&gpuSearch{forward: forwardMode(c.mode)}).forwardOnGPU(few); got != c.parsers {
			t.Errorf("HMMGO_GPU_FORWARD=%q: parsers of one target on the GPU %v, want %v", c.mode, got, c.parsers)
		}
	}
	e := defaultEngine()
	e.lookupEnv = func(k string) (string, bool) {
		if k == "HMMGO_GPU_FORWARD" {
			return "parsers", true
		}
		return "", false
	}
	var out, errb bytes.Buffer
	code := e.run(cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, []string{"m.hmm", "s.fa"})
	if code == 0 || !strings.Contains(errb.String(), `HMMGO_GPU_FORWARD is "parsers": say bound, exact, filter, gpu or cpu`) || out.Len() != 0 {
		t.Errorf("exit %d, stderr %q, stdout %q", code, errb.String(), out.String())
	}
}

// HMMGO_GPU_FORWARD=bound: every target the bound kernel can bound goes
// to the device whatever the cost rule says; those too long for a usable
// bound (fwdback.BoundMargin infinite) stay with the workers.
func TestForwardBatcherBound(t *testing.T) {
	const M = 2000
	lengths := []int32{300, 40000, 0, 1200, 90000, 5}
	var launched []int
	fake := func(reqs []*fwdRequest, sel [][]int) ([][]float32, error) {
		launched = append(launched, sel[0]...)
		out := [][]float32{make([]float32, len(sel[0]))}
		for j, i := range sel[0] {
			out[0][j] = float32(i)
		}
		return out, nil
	}
	b := &forwardBatcher{launch: fake, cost: defaultForwardCost(16), lengths: lengths, force: "bound"}
	want := []bool{true, true, true, true, true, false}
	scores, onGPU, err := b.forward(&oprofile.Profile{M: M}, want)
	if err != nil {
		t.Fatal(err)
	}
	for i, L := range lengths {
		bounded := !math.IsInf(float64(fwdback.BoundMargin(int(L), M, 0)), 1)
		wantOn := want[i] && L > 0 && bounded
		if onGPU[i] != wantOn || (wantOn && scores[i] != float32(i)) {
			t.Errorf("target %d (L %d): on the GPU %v score %v, want %v", i, L, onGPU[i], scores[i], wantOn)
		}
	}
	if len(launched) != 2 {
		t.Errorf("launched %v, want the targets of 300 and 1,200 residues", launched)
	}
}
