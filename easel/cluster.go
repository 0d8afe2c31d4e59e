package easel

// SingleLinkage clusters n items by single linkage, numbering clusters
// exactly as esl_cluster_SingleLinkage does (the order in which items are
// popped and linked decides the cluster numbers, which HMMER's domain
// definition depends on). linked(a, b) reports whether items a and b are
// linked. It returns the cluster of each item and the number of clusters.
func SingleLinkage(n int, linked func(a, b int) bool) (assignment []int, nc int) {
	a := make([]int, n) // available items, as a stack
	b := make([]int, 0, n)
	assignment = make([]int, n)
	for v := 0; v < n; v++ {
		a[v] = n - v - 1
	}
	na := n
	for na > 0 {
		v := a[na-1]
		na--
		b = append(b, v)
		for len(b) > 0 {
			v = b[len(b)-1]
			b = b[:len(b)-1]
			assignment[v] = nc
			for i := na - 1; i >= 0; i-- {
				if linked(v, a[i]) {
					w := a[i]
					a[i] = a[na-1]
					na--
					b = append(b, w)
				}
			}
		}
		nc++
	}
	return assignment, nc
}
