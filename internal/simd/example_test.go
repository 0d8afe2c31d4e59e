package simd_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/internal/simd"
)

// Kernels ask for the selected level; a user lowers it with
// HMMGO_KERNEL=generic|sse|avx2.
func ExampleParse() {
	l, err := simd.Parse("sse")
	fmt.Println(l, err, l <= simd.AVX2)
	// Output: sse <nil> true
}
