package devices

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/internal/mockgpu"
	"github.com/hmmgo/hmmgo/internal/cli"
)

func parse(t *testing.T, args ...string) (Request, []string, error) {
	t.Helper()
	var r Request
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	r.AddFlags(fs)
	fs.Int("cpu", 0, "threads")
	err := fs.Parse(NormalizeArgs(args))
	return r, fs.Args(), err
}

func TestFlags(t *testing.T) {
	cases := []struct {
		args     []string
		mode     Mode
		all      bool
		ordinals []int
		rest     []string
	}{
		{[]string{"q.hmm", "db.fa"}, Auto, false, nil, []string{"q.hmm", "db.fa"}},
		{[]string{"--gpu", "q.hmm", "db.fa"}, Require, false, nil, []string{"q.hmm", "db.fa"}},
		{[]string{"--gpu", "1", "q.hmm"}, Require, false, []int{1}, []string{"q.hmm"}},
		{[]string{"--gpu=0,2", "q.hmm"}, Require, false, []int{0, 2}, []string{"q.hmm"}},
		{[]string{"-gpu", "0,2", "--cpu", "4", "q.hmm"}, Require, false, []int{0, 2}, []string{"q.hmm"}},
		{[]string{"--gpu", "all", "q.hmm"}, Require, true, nil, []string{"q.hmm"}},
		{[]string{"--nogpu", "q.hmm"}, Auto, false, nil, []string{"q.hmm"}},
		{[]string{"--cpu-only", "q.hmm"}, Auto, false, nil, []string{"q.hmm"}},
		{[]string{"--", "--gpu", "1"}, Auto, false, nil, []string{"--gpu", "1"}},
	}
	for _, c := range cases {
		r, rest, err := parse(t, c.args...)
		if err != nil {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		if r.Mode != c.mode || r.All != c.all || !reflect.DeepEqual(r.Ordinals, c.ordinals) || !reflect.DeepEqual(rest, c.rest) {
			t.Errorf("%v: got %+v rest %v", c.args, r, rest)
		}
	}
	r, _, _ := parse(t, "--nogpu")
	if c, err := r.Resolve(failProbe(t), Needs{}); err != nil || len(c.Devices) != 0 || c.Note != "" {
		t.Errorf("--nogpu resolved to %+v, %v", c, err)
	}
}

func TestFlagErrors(t *testing.T) {
	for _, args := range [][]string{{"--gpu=x"}, {"--gpu=0,0"}, {"--gpu=-1"}, {"--gpu=1,"}, {"--nogpu=maybe"}} {
		if _, _, err := parse(t, args...); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	for _, args := range [][]string{{"--gpu", "--nogpu"}, {"--cpu-only", "--gpu=1"}} {
		r, _, err := parse(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Resolve(failProbe(t), Needs{})
		var ue *cli.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "contradict") {
			t.Errorf("%v: %v", args, err)
		}
	}
}

func failProbe(t *testing.T) Prober {
	return func() ([]*cuda.Device, error) {
		t.Error("the CPU-only policy probed for GPUs")
		return nil, nil
	}
}

func gpus(ccs ...int) Prober {
	return func() ([]*cuda.Device, error) {
		var ds []*cuda.Device
		for i, cc := range ccs {
			ds = append(ds, &cuda.Device{Ordinal: i, Name: fmt.Sprintf("Card%d", i), Major: cc / 10, Minor: cc % 10})
		}
		return ds, nil
	}
}

func failing(err error) Prober { return func() ([]*cuda.Device, error) { return nil, err } }

// noDriver and oldDriver stand for cuda.Load's classified errors.
var (
	noDriver  = fmt.Errorf("libcuda.so.1 not found: no NVIDIA driver on this machine: %w", cuda.ErrNoDriver)
	oldDriver = fmt.Errorf("NVIDIA driver too old: it supports CUDA 10.2: %w", cuda.ErrDriverTooOld)
)

func TestResolve(t *testing.T) {
	dpx := Needs{MinMajor: 9, Why: "DPX"}
	cases := []struct {
		name    string
		gpu     string // "" none, else the --gpu value ("true" bare)
		probe   Prober
		need    Needs
		want    []int
		note    string // substring; "-" means no note
		errText string
	}{
		{"auto, no driver", "", failing(noDriver), Needs{}, nil, "-", ""},
		{"auto, old driver", "", failing(oldDriver), Needs{}, nil, "no usable GPU (NVIDIA driver too old", ""},
		{"auto, one GPU", "", gpus(90), Needs{}, []int{0}, "using GPU 0 (Card0, sm_90); --nogpu runs on the CPU", ""},
		{"auto, two GPUs", "", gpus(90, 90), Needs{}, []int{0}, "using GPU 0", ""},
		{"auto, too old for need", "", gpus(80), dpx, nil, "no usable GPU (GPU 0 (Card0, sm_80) is sm_80; hmmgo needs sm_90 or newer for DPX); running on the CPU", ""},
		{"auto, skips old", "", gpus(80, 90), dpx, []int{1}, "using GPU 1", ""},
		{"bare, no driver", "true", failing(noDriver), Needs{}, nil, "", "--gpu: no usable GPU: libcuda.so.1 not found: no NVIDIA driver on this machine"},
		{"bare, one GPU", "true", gpus(90), Needs{}, []int{0}, "using GPU 0 (Card0, sm_90)", ""},
		{"bare, none suitable", "true", gpus(75), dpx, nil, "", "--gpu: no usable GPU: GPU 0 (Card0, sm_75) is sm_75; hmmgo needs sm_90 or newer for DPX"},
		{"list", "0,2", gpus(90, 90, 90), Needs{}, []int{0, 2}, "using GPUs 0 (Card0), 2 (Card2)", ""},
		{"list out of range", "3", gpus(90, 90), Needs{}, nil, "", "--gpu 3: there is no GPU 3; this machine has 2 (GPUs 0-1)"},
		{"list unsuitable", "1", gpus(90, 80), dpx, nil, "", "--gpu 1: GPU 1 (Card1, sm_80) is sm_80"},
		{"all", "all", gpus(90, 90, 90), Needs{}, []int{0, 1, 2}, "using GPUs 0 (Card0), 1 (Card1), 2 (Card2)", ""},
		{"all, skipping", "all", gpus(90, 80), dpx, []int{0}, "(skipped: GPU 1 (Card1, sm_80) is sm_80", ""},
		{"all, none", "all", failing(oldDriver), Needs{}, nil, "", "--gpu all: no usable GPU: NVIDIA driver too old"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Request{}
			if c.gpu != "" {
				var err error
				if r, err = ParseGPU(c.gpu); err != nil {
					t.Fatal(err)
				}
			}
			got, err := r.Resolve(c.probe, c.need)
			if c.errText != "" {
				if err == nil || !strings.HasPrefix(err.Error(), c.errText) {
					t.Fatalf("error %v, want it to start %q", err, c.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ords []int
			for _, d := range got.Devices {
				ords = append(ords, d.Ordinal)
			}
			if !reflect.DeepEqual(ords, c.want) {
				t.Errorf("devices %v, want %v", ords, c.want)
			}
			if (c.note == "-") != (got.Note == "") || (c.note != "-" && !strings.Contains(got.Note, c.note)) {
				t.Errorf("note %q, want %q", got.Note, c.note)
			}
		})
	}
}

func TestSelectOnThisMachine(t *testing.T) {
	var stderr strings.Builder
	ds, err := Select(&stderr, "test", Request{}, Needs{})
	if err != nil {
		t.Fatalf("auto mode failed: %v", err)
	}
	if _, err := Usable(); err != nil {
		if len(ds) != 0 {
			t.Errorf("devices chosen without a driver: %v", ds)
		}
		if errors.Is(err, cuda.ErrNoDriver) && stderr.Len() != 0 {
			t.Errorf("auto mode spoke without a driver: %q", stderr.String())
		}
		return
	}
	t.Logf("stderr: %s", stderr.String())
	if len(ds) != 1 || !strings.HasPrefix(stderr.String(), "hmmgo test: using GPU 0") {
		t.Errorf("with a GPU: devices %v, stderr %q", ds, stderr.String())
	}
}

func TestSelectWithMockDriver(t *testing.T) {
	out := mockgpu.RunTests(t, "^TestSelectOnThisMachine$")
	if !strings.Contains(out, "PASS: TestSelectOnThisMachine") {
		t.Errorf("child output:\n%s", out)
	}
}
