package easel

import (
	"fmt"
	"math"
	"testing"
)

func TestSSEExpfGolden(t *testing.T)    { check32(t, "sse_expf", SSEExpf) }
func TestSSEExpfFTZGolden(t *testing.T) { check32(t, "sse_expf_ftz", SSEExpfFTZ) }

func TestSSEExpfRange(t *testing.T) {
	if !math.IsInf(float64(SSEExpf(88.38)), 1) || SSEExpf(-88.3762626647949) != 0 {
		t.Error("range cut-offs")
	}
	// SSEExpf and glibc's expf are different approximations: they must
	// disagree somewhere.
	n := 0
	for x := float32(-20); x < 20; x += 0.001 {
		if SSEExpf(x) != Expf(x) {
			n++
		}
	}
	if n == 0 {
		t.Error("SSEExpf never differs from Expf")
	}
}

func ExampleSSEExpf() {
	x := float32(-1.5)
	fmt.Printf("%.9g %.9g\n", SSEExpf(x), Expf(x))
	// Output: 0.223130167 0.223130167
}
