package hugemem

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"
)

const bigFloats = 3 * MinBytes / 4 // 1.5 huge pages of floats

func TestSmallIsGoSlice(t *testing.T) {
	var b Buffer
	f := b.Resize(1000, 1200)
	if len(f) != 1000 || cap(f) != 1200 || b.Mapped() {
		t.Fatalf("len %d cap %d mapped %v, want a 1000/1200 Go slice", len(f), cap(f), b.Mapped())
	}
	b.Release()
	if b.Floats() != nil || b.Cap() != 0 {
		t.Fatal("Release left floats")
	}
}

func TestAllocGrowFree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mappings are Linux only")
	}
	before := MappedBytes()
	var b Buffer
	f := b.Resize(bigFloats, bigFloats)
	if !b.Mapped() || len(f) != bigFloats || cap(f) < bigFloats {
		t.Fatalf("mapped %v len %d cap %d", b.Mapped(), len(f), cap(f))
	}
	if p := uintptr(unsafe.Pointer(&f[0])); p%pageBytes != 0 {
		t.Fatalf("floats start at %#x, not on a huge page boundary", p)
	}
	if cap(f)*4%pageBytes != 0 {
		t.Fatalf("capacity %d floats is not whole huge pages", cap(f))
	}
	if got := MappedBytes() - before; got != int64(roundUp(4*reserveFactor*bigFloats)+pageBytes) {
		t.Fatalf("MappedBytes grew by %d", got)
	}
	for i := range f {
		if f[i] != 0 {
			t.Fatalf("fresh float %d is %v", i, f[i])
		}
		f[i] = float32(i)
	}
	// Within the capacity the memory and its contents stay.
	g := b.Resize(cap(f), 0)
	if &g[0] != &f[0] || g[bigFloats-1] != float32(bigFloats-1) {
		t.Fatal("Resize within capacity moved or changed the floats")
	}
	// Past it, fresh zeroed memory, the old mapping freed.
	h := b.Resize(2*cap(f), 0)
	if len(h) != 2*cap(f) || h[0] != 0 || h[len(h)-1] != 0 {
		t.Fatalf("grown buffer len %d, first %v last %v", len(h), h[0], h[len(h)-1])
	}
	if got := MappedBytes() - before; got != int64(roundUp(4*reserveFactor*len(h))+pageBytes) {
		t.Fatalf("after growing MappedBytes is %d more, want one mapping", got)
	}
	b.Release()
	if MappedBytes() != before || b.Mapped() || b.Floats() != nil {
		t.Fatal("Release left the mapping")
	}
	// A released buffer can be used again.
	if f := b.Resize(bigFloats, 0); !b.Mapped() || len(f) != bigFloats {
		t.Fatal("Resize after Release")
	}
	b.Release()
}

// TestHugePages checks, where the kernel reports it, that a touched
// buffer is backed by huge pages (AnonHugePages of its mapping).
func TestHugePages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mappings are Linux only")
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages off or unknown (%q)", mode)
	}
	var b Buffer
	f := b.Resize(4*MinBytes/4, 0)
	for i := 0; i < len(f); i += 1024 {
		f[i] = 1
	}
	huge := anonHugeKB(t, uintptr(unsafe.Pointer(&f[0])))
	b.Release()
	// The kernel may find no free huge page (fragmented memory); that
	// is a fallback, not a failure.
	if huge == 0 {
		t.Skip("no huge pages given to the mapping (memory fragmented?)")
	}
	t.Logf("AnonHugePages %d kB", huge)
}

// anonHugeKB returns the AnonHugePages of the mapping holding addr, from
// /proc/self/smaps.
func anonHugeKB(t *testing.T, addr uintptr) int {
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 {
			in = lo <= addr && addr < hi
			continue
		}
		var kb int
		if in && strings.HasPrefix(line, "AnonHugePages:") {
			fmt.Sscan(strings.TrimPrefix(line, "AnonHugePages:"), &kb)
			return kb
		}
	}
	return 0
}

func TestFallbackWhenDisabled(t *testing.T) {
	saved := disabled
	disabled = true
	defer func() { disabled = saved }()
	var b Buffer
	f := b.Resize(bigFloats, 0)
	if b.Mapped() || len(f) != bigFloats {
		t.Fatalf("mapped %v len %d with mappings off", b.Mapped(), len(f))
	}
	f[len(f)-1] = 1
	b.Release()
}

// TestCleanup checks that an unreachable Buffer's mapping is freed.
func TestCleanup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mappings are Linux only")
	}
	before := MappedBytes()
	func() {
		b := new(Buffer)
		b.Resize(bigFloats, 0)
		if !b.Mapped() {
			t.Fatal("not mapped")
		}
	}()
	for i := 0; i < 100 && MappedBytes() != before; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if MappedBytes() != before {
		t.Fatalf("unreachable buffer still maps %d bytes", MappedBytes()-before)
	}
}
