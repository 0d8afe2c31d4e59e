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

// TestWordSpecialsForConvertedProfiles: every length configuration of a
// converted profile, multihit or unihit, lets the paired kernel keep the
// specials in words, so the pipeline's batches never fall back.
func TestWordSpecialsForConvertedProfiles(t *testing.T) {
	om := loadModel(t, "fn3")
	for _, uni := range []bool{false, true} {
		for _, L := range []int{1, 2, 10, 100, 350, 5000, 100000, 40000000, 1 << 30} {
			if uni {
				om.ReconfigUnihit(L)
			} else {
				om.ReconfigMultihit(L)
			}
			if !wordSpecials(&om.Vit, &om.Vit.XW) {
				t.Errorf("unihit %v, L=%d: XW %v needs int specials", uni, L, om.Vit.XW)
			}
		}
	}
}
