package core

import (
	"fmt"

	"github.com/hmmgo/hmmgo/papara/newick"
)

// DescribeBranches names the two sides of every branch: a tip name when
// that side is a single tip, otherwise "<n> tips incl. <first tip>" with
// the side's first tip in file order.
func DescribeBranches(t *newick.Tree, edges []newick.Edge) [][2]string {
	type side struct {
		n     int
		first int
	}
	memo := make(map[*newick.Link]side)
	var below func(l *newick.Link) side
	below = func(l *newick.Link) side {
		if s, ok := memo[l]; ok {
			return s
		}
		var s side
		if l.Node.IsTip {
			s = side{1, l.Node.Index}
		} else {
			a, b := below(l.Next.Back), below(l.Next.Next.Back)
			s = side{a.n + b.n, min(a.first, b.first)}
		}
		memo[l] = s
		return s
	}
	name := func(l *newick.Link) string {
		s := below(l)
		if s.n == 1 {
			return t.Tips[s.first].Name
		}
		return fmt.Sprintf("%d tips incl. %s", s.n, t.Tips[s.first].Name)
	}
	out := make([][2]string, len(edges))
	for i, e := range edges {
		out[i] = [2]string{name(e.Far), name(e.Near)}
	}
	return out
}
