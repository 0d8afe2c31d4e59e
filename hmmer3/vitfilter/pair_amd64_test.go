package vitfilter

import (
	"testing"
	"unsafe"
)

// TestKernelJobLayout keeps kernelJob in step with the offsets the vit
// generator's paired kernel reads.
func TestKernelJobLayout(t *testing.T) {
	var k kernelJob
	if unsafe.Offsetof(k.dsq) != 0 || unsafe.Offsetof(k.n) != 8 || unsafe.Offsetof(k.xw) != 16 ||
		unsafe.Offsetof(k.xC) != 32 || unsafe.Offsetof(k.ovf) != 36 || unsafe.Sizeof(k) != 40 {
		t.Fatal("kernelJob's layout differs from the vit generator's")
	}
}
