package core

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hmmgo/hmmgo/papara/alignio"
	"github.com/hmmgo/hmmgo/papara/newick"
)

// Reference is the reference side of a PaPaRa run: the rows of the
// alignment that are tips of the tree, with the columns that are gaps in
// every one of them removed, and the ancestral vectors of every branch.
type Reference struct {
	Model    *Model
	Names    []string // alignment order
	Rows     [][]byte // raw characters, gap-only columns removed
	Columns  []int    // original column of each kept column
	GapFreq  float64
	Branches *Branches
	Edges    []newick.Edge
	Tree     *newick.Tree
}

// Input is what a run reads.
type Input struct {
	Model     *Model
	Tree      *newick.Tree
	TreeFile  string
	Alignment *alignio.Alignment
	Reads     []alignio.Record // may be empty when the alignment holds the queries
	ReadsFile string
	// Strict makes alignment rows that are not tips of the tree an error
	// instead of reads (PaPaRa's behaviour).
	Strict bool
}

// Prepared is a reference plus the reads ready for scoring.
type Prepared struct {
	Ref     *Reference
	Queries []Query
	// ExtraRows names the alignment rows that are not in the tree; PaPaRa
	// aligns them as reads, after the reads of the read file.
	ExtraRows []string
	// Deleted lists the characters removed from reads (PaPaRa deletes every
	// character that is not one of its upper-case symbols).
	Deleted []byte
}

// Prepare checks the inputs against each other and builds the reference
// vectors and the queries, as PaPaRa's references and queries classes do.
func Prepare(in *Input) (*Prepared, error) {
	m := in.Model
	aln := in.Alignment
	tips := make(map[string]*newick.Node, len(in.Tree.Tips))
	for _, t := range in.Tree.Tips {
		if _, dup := tips[t.Name]; dup {
			return nil, fmt.Errorf("%s: tip name %q occurs twice in the tree", in.TreeFile, t.Name)
		}
		tips[t.Name] = t
	}

	ref := &Reference{Model: m, Tree: in.Tree}
	var refRecs, extra []alignio.Record
	for _, r := range aln.Rows {
		if _, ok := tips[r.Name]; ok {
			refRecs = append(refRecs, r)
			delete(tips, r.Name)
		} else if in.Strict {
			return nil, &alignio.Error{File: aln.File, Line: r.Line, Record: r.Name,
				Reason: fmt.Sprintf("row is not a tip of the tree %s (--strict)", in.TreeFile)}
		} else {
			extra = append(extra, r)
		}
	}
	if len(tips) > 0 {
		missing := make([]string, 0, len(tips))
		for n := range tips {
			missing = append(missing, n)
		}
		sort.Strings(missing)
		more := ""
		if len(missing) > 10 {
			more = fmt.Sprintf(" and %d more", len(missing)-10)
			missing = missing[:10]
		}
		return nil, fmt.Errorf("%s: %d tree tip(s) have no row in the alignment %s: %s%s",
			in.TreeFile, len(tips), aln.File, strings.Join(missing, ", "), more)
	}

	// Keep the columns where some reference row has a residue.
	width := len(aln.Rows[0].Seq)
	keep := make([]bool, width)
	for _, r := range refRecs {
		for j, c := range r.Seq {
			s, ok := m.RefState(c)
			if !ok {
				return nil, &alignio.Error{File: aln.File, Line: r.Line, Record: r.Name,
					Reason: fmt.Sprintf("column %d: %s is not a %s character", j+1, describe(c), m.Name)}
			}
			if !m.IsGapState(s) {
				keep[j] = true
			}
		}
	}
	for j, k := range keep {
		if k {
			ref.Columns = append(ref.Columns, j)
		}
	}
	if len(ref.Columns) == 0 {
		return nil, &alignio.Error{File: aln.File, Reason: "the reference rows contain no residues"}
	}
	rows := make(map[string][]byte, len(refRecs))
	gaps, all := 0, 0
	for _, r := range refRecs {
		row := make([]byte, len(ref.Columns))
		for i, j := range ref.Columns {
			row[i] = r.Seq[j]
			if row[i] == '-' { // PaPaRa's gap frequency counts '-' only
				gaps++
			}
		}
		all += len(row)
		ref.Names = append(ref.Names, r.Name)
		ref.Rows = append(ref.Rows, row)
		rows[r.Name] = row
	}
	ref.GapFreq = float64(gaps) / float64(all)
	gm, err := NewGapModel(ref.GapFreq)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", aln.File, err)
	}
	ref.Branches, ref.Edges = BuildBranches(m, gm, in.Tree, rows, len(ref.Columns))

	p := &Prepared{Ref: ref}
	var deleted [256]bool
	addQuery := func(file string, r alignio.Record) error {
		q := Query{Name: r.Name, CStates: make([]uint8, 0, len(r.Seq))}
		for _, c := range r.Seq {
			if !m.Valid(c) {
				return &alignio.Error{File: file, Line: r.Line, Record: r.Name,
					Reason: fmt.Sprintf("%s is not a %s character", describe(c), m.Name)}
			}
			if !m.Known(c) {
				deleted[c] = true
				continue
			}
			if cs := m.CState(c); m.IsSingle(m.States[cs]) {
				q.CStates = append(q.CStates, cs)
			}
		}
		if len(q.CStates) == 0 {
			return &alignio.Error{File: file, Line: r.Line, Record: r.Name,
				Reason: "no residues to align (after removing gaps and characters PaPaRa does not align)"}
		}
		p.Queries = append(p.Queries, q)
		return nil
	}
	for _, r := range in.Reads {
		if err := addQuery(in.ReadsFile, r); err != nil {
			return nil, err
		}
	}
	for _, r := range extra {
		p.ExtraRows = append(p.ExtraRows, r.Name)
		if err := addQuery(aln.File, r); err != nil {
			return nil, err
		}
	}
	if len(p.Queries) == 0 {
		return nil, fmt.Errorf("no reads to align: no read file and every alignment row is a tree tip")
	}
	for c, d := range deleted {
		if d {
			p.Deleted = append(p.Deleted, byte(c))
		}
	}
	return p, nil
}
