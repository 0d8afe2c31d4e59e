package pairhmm

import (
	"sync"
	"time"
)

// What NewGPU spends its time on, for --verbose, and the one part of it
// that does not need a device: the quality tables.

// SetupStep is one part of NewGPU's work and its wall time, summed over
// devices.
type SetupStep struct {
	Name string
	Time time.Duration
}

// addSetup adds t to the set-up step called name (a new one goes last).
func (g *GPU) addSetup(name string, t time.Duration) {
	for i := range g.setup {
		if g.setup[i].Name == name {
			g.setup[i].Time += t
			return
		}
	}
	g.setup = append(g.setup, SetupStep{name, t})
}

// Setup lists what NewGPU spent its time on, in order.
func (g *GPU) Setup() []SetupStep { return append([]SetupStep(nil), g.setup...) }

// gpuTableBytes are the quality tables as the kernels read them.
type gpuTableBytes struct{ ph32, mm32, ph64, mm64 []byte }

// gpuTables computes them once per process, in the background from the
// first NewGPU on, so that the work (tens of milliseconds on all cores,
// the 160-bit double entries) overlaps creating the contexts and loading
// the kernels.
var gpuTables struct {
	once  sync.Once
	done  chan struct{}
	bytes gpuTableBytes
}

func prepareGPUTables() {
	gpuTables.once.Do(func() {
		gpuTables.done = make(chan struct{})
		go func() {
			defer close(gpuTables.done)
			t32, t64 := tables32(), tables64()
			gpuTables.bytes = gpuTableBytes{
				floatBytes(t32.ph2pr[:]), floatBytes(t32.fullMatchToMatch()),
				doubleBytes(t64.ph2pr[:]), doubleBytes(t64.fullMatchToMatch()),
			}
		}()
	})
}

func waitGPUTables() gpuTableBytes {
	prepareGPUTables()
	<-gpuTables.done
	return gpuTables.bytes
}
