package vec

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

// MXCSR bits the kernels set for their duration.
const (
	FTZ = 0x8000 // flush-to-zero (bit 15)
	DAZ = 0x0040 // denormals-are-zero (bit 6)
)

// SetMXCSR saves MXCSR in a stack slot and sets bits in it for the
// kernel, which must give the slot to RestoreMXCSR before it returns: Go
// runs with MXCSR's defaults and may move a goroutine to another thread
// between calls, so the bits cannot stay set across calls.
func SetMXCSR(bits uint32) Mem {
	slot := AllocLocal(8)
	STMXCSR(slot)
	t := GP32()
	MOVL(slot, t)
	ORL(U32(bits), t)
	MOVL(t, slot.Offset(4))
	LDMXCSR(slot.Offset(4))
	return slot
}

// RestoreMXCSR loads the MXCSR that SetMXCSR saved in slot.
func RestoreMXCSR(slot Mem) { LDMXCSR(slot) }
