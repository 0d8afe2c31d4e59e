package hmmsearch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/makedb"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestEarlyReadFeedsTheLoad: the read begun before the GPUs are
// selected is the one the first query's load places on the devices (the
// file is gone by then, so a second read would fail), with the stored
// plan of a makedb database; the parts are those of a plain read.
func TestEarlyReadFeedsTheLoad(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	db := filepath.Join(t.TempDir(), "globins45.hmmgo")
	if err := makedb.Make(cli.Env{}, testutil.Testdata(t, "globins45.fa"), db, abc); err != nil {
		t.Fatal(err)
	}
	src, err := openSequenceFile(db, nil, abc)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := readTargets(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := plain.seqs
	s := &search{engine: defaultEngine(), seqfile: db}
	s.gpu = &gpuSearch{gpus: []*gpuKernels{{dev: &cuda.Device{Major: 9}}}, forward: "cpu", bias: "cpu"}
	s.early = s.readEarly(abc)
	if _, err := s.early.result(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(db); err != nil {
		t.Fatal(err)
	}
	if err := s.loadGPU(abc); err != nil {
		t.Fatalf("load after the early read: %v", err)
	}
	if len(s.gpu.seqs) != len(want) || len(s.gpu.parts) != 1 || len(s.gpu.parts[0].index) != len(want) {
		t.Fatalf("%d targets, %d parts placed; want %d targets in 1 part", len(s.gpu.seqs), len(s.gpu.parts), len(want))
	}
	for i, sq := range s.gpu.seqs {
		if sq.Name != want[i].Name || string(sq.Dsq) != string(want[i].Dsq) {
			t.Fatalf("target %d is %s, want %s", i, sq.Name, want[i].Name)
		}
	}
	if !s.gpu.parts[0].db.HasStoredPlan() {
		t.Error("the early read lost makedb's stored plan")
	}
	s.early.cancel() // after the result: returns at once
}

// TestReadTargetsStops: a read whose stop channel is closed ends within
// 4,096 targets with errReadStopped; one that is never stopped reads all.
func TestReadTargetsStops(t *testing.T) {
	var fa strings.Builder
	const n = 10000
	for i := range n {
		fmt.Fprintf(&fa, ">s%d\nACDEFGHIKLMNPQRSTVWY\n", i)
	}
	path := filepath.Join(t.TempDir(), "many.fa")
	if err := os.WriteFile(path, []byte(fa.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	abc := alphabet.New(alphabet.Amino)
	for _, stop := range []bool{false, true} {
		src, err := openSequenceFile(path, nil, abc)
		if err != nil {
			t.Fatal(err)
		}
		ch := make(chan struct{})
		if stop {
			close(ch)
		}
		l, err := readTargets(src, ch)
		switch {
		case stop && !errors.Is(err, errReadStopped):
			t.Errorf("stopped read: error %v; want errReadStopped", err)
		case !stop && (err != nil || len(l.seqs) != n):
			t.Fatalf("read: error %v; want %d targets", err, n)
		}
	}
}

type listedModels struct {
	hs  []*hmm.HMM
	err error // after hs
}

func (l *listedModels) Read() (*hmm.HMM, error) {
	if len(l.hs) == 0 {
		return nil, l.err
	}
	h := l.hs[0]
	l.hs = l.hs[1:]
	return h, nil
}

// TestPeekedModels: the peeked model, or the error reading it, comes
// first, then the rest of the file.
func TestPeekedModels(t *testing.T) {
	a, b := &hmm.HMM{Name: "a"}, &hmm.HMM{Name: "b"}
	p := peekModels(&listedModels{hs: []*hmm.HMM{a, b}, err: io.EOF})
	if p.first != a {
		t.Fatal("peek did not read the first model")
	}
	for _, want := range []*hmm.HMM{a, b, nil} {
		h, err := p.Read()
		if h != want || (want == nil) != (err == io.EOF) {
			t.Fatalf("Read gave %v, %v; want %v", h, err, want)
		}
	}
	bad := errors.New("line 3: bad model")
	p = peekModels(&listedModels{err: bad})
	if h, err := p.Read(); h != nil || err != bad {
		t.Fatalf("Read gave %v, %v; want the first read's error", h, err)
	}
}

// TestReadEarlyFor: the database is read early only by a run that may
// use a GPU and reads a file whole in the usual start order.
func TestReadEarlyFor(t *testing.T) {
	gpu, _ := devices.ParseGPU("0")
	for _, c := range []struct {
		name   string
		req    devices.Request
		driver bool
		seq    string
		shard  bool
		start  string
		want   bool
	}{
		{"--gpu 0", gpu, false, "db.fa", false, "", true},
		{"automatic, driver installed", devices.Request{Mode: devices.Auto}, true, "db.fa", false, "", true},
		{"automatic, no driver", devices.Request{Mode: devices.Auto}, false, "db.fa", false, "", false},
		{"--nogpu", devices.Request{Mode: devices.Never}, true, "db.fa", false, "", false},
		{"targets on stdin", gpu, true, "-", false, "", false},
		{"a shard", gpu, true, "db.fa", true, "", false},
		{"HMMGO_START=late", gpu, true, "db.fa", false, "late", false},
	} {
		s := &search{engine: &engine{driverPresent: func() bool { return c.driver }}, seqfile: c.seq, startOrder: c.start}
		if c.shard {
			s.shard = &shardRun{}
		}
		if got := s.readEarlyFor(c.req); got != c.want {
			t.Errorf("%s: reads early %v, want %v", c.name, got, c.want)
		}
	}
}
