// Command cpuid generates internal/simd's CPUID and XGETBV wrappers.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {

	TEXT("cpuid", NOSPLIT, "func(leaf, sub uint32) (a, b, c, d uint32)")
	Doc("cpuid executes CPUID with EAX=leaf and ECX=sub.")
	Load(Param("leaf"), EAX)
	Load(Param("sub"), ECX)
	CPUID()
	Store(EAX, Return("a"))
	Store(EBX, Return("b"))
	Store(ECX, Return("c"))
	Store(EDX, Return("d"))
	RET()

	TEXT("xgetbv0", NOSPLIT, "func() uint32")
	Doc("xgetbv0 returns the low half of XCR0: the register state the OS saves.")
	XORL(ECX, ECX)
	XGETBV()
	Store(EAX, ReturnIndex(0))
	RET()

	Generate()
}
