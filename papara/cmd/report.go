package cmd

import (
	"bufio"
	"fmt"
	"io"

	"github.com/hmmgo/hmmgo/papara/core"
)

// writePlacements writes the placement table: a comment line naming the
// scoring scheme, a header, then one line per read with its best branch
// (an index in PaPaRa's branch order), the score and the branch described
// by the tips on its two sides (a tip name for a terminal branch, else the
// number of tips and the side's first tip in tree-file order).
func writePlacements(w io.Writer, p *core.Prepared, res *core.Result, scoring core.Scoring, pr core.Params) error {
	bw := bufio.NewWriter(w)
	if scoring == core.ScoringPaper {
		fmt.Fprintf(bw, "# scoring: paper (Equation 1), lower is better\n")
	} else {
		fmt.Fprintf(bw, "# scoring: papara %d:%d:%d:%d, higher is better\n", pr.GapOpen, pr.GapExtend, pr.Match, pr.MatchCGap)
	}
	fmt.Fprintf(bw, "#read\tbranch\tscore\tside_a\tside_b\n")
	desc := core.DescribeBranches(p.Ref.Tree, p.Ref.Edges)
	for _, pl := range res.Placements {
		d := desc[pl.Branch]
		fmt.Fprintf(bw, "%s\t%d\t%d\t%s\t%s\n", pl.Query, pl.Branch, pl.Score, d[0], d[1])
	}
	return bw.Flush()
}
