package lenorder_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/internal/lenorder"
)

func ExampleLongestFirst() {
	seqs := []string{"ACD", "ACDEFG", "A", "GHI"}
	order := lenorder.LongestFirst(len(seqs), func(i int) int { return len(seqs[i]) })
	fmt.Println(order)
	// Output: [1 0 3 2]
}
