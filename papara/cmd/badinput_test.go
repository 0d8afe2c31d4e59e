package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	goodTree  = "((A:0.1,B:0.2):0.05,C:0.3,(D:0.1,E:0.1):0.2);\n"
	goodAln   = "5 12\nA ACGTACGTACGT\nB ACGTAC-TACGT\nC ACGAACGTTCGT\nD AC--ACGTACGA\nE ACGTTCGTACGT\n"
	goodReads = ">r1\nACGTACG\n>r2 description\nCGTACGTA\n"
)

// writeFiles writes name -> content into dir and returns dir/name paths.
func writeFiles(t *testing.T, dir string, files map[string]string) map[string]string {
	t.Helper()
	paths := map[string]string{}
	for n, c := range files {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[n] = p
	}
	return paths
}

// TestBadInput checks that every kind of bad input stops with a one-line
// error naming the file (and record) and leaves no output file.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name             string
		tree, aln, reads string
		args             []string
		code             int
		want             []string // substrings of the error
	}{
		{"tree tip missing from alignment", "((A,B),C,(D,(E,Z)));", goodAln, goodReads, nil, 1,
			[]string{"tree.nwk", "no row in the alignment", "Z"}},
		{"unequal row lengths", goodTree, strings.Replace(goodAln, "C ACGAACGTTCGT", "C ACGAACGTTCG", 1), goodReads, nil, 1,
			[]string{"aln.phy:4", `"C"`, "11 columns"}},
		{"unequal FASTA row lengths", goodTree, ">A\nACGT\n>B\nACG\n>C\nACGT\n>D\nACGT\n>E\nACGT\n", goodReads, nil, 1,
			[]string{"aln.phy:3", `"B"`, "3 columns"}},
		{"non-DNA character in the reference", goodTree, strings.Replace(goodAln, "D AC--", "D AC-J", 1), goodReads, nil, 1,
			[]string{"aln.phy:5", `"D"`, "column 4", "'J'"}},
		{"non-DNA character in a read", goodTree, goodAln, ">r1\nACGTACG\n>r2\nACG1TA\n", nil, 1,
			[]string{"reads.fa:3", `"r2"`, "'1'"}},
		{"empty read", goodTree, goodAln, ">r1\nACGTACG\n>r2\n>r3\nACGT\n", nil, 1,
			[]string{"reads.fa:3", `"r2"`, "empty sequence"}},
		{"read without residues", goodTree, goodAln, ">r1\nACGTACG\n>r2\nNN--n\n", nil, 1,
			[]string{"reads.fa:3", `"r2"`, "no residues"}},
		{"duplicate alignment name", goodTree, goodAln + "", goodReads, nil, 1, nil},
		{"tree syntax", "((A,B),C,(D,E);", goodAln, goodReads, nil, 1, []string{"tree.nwk:1:"}},
		{"multifurcation", "((A,B,C),D,E);", goodAln, goodReads, nil, 1, []string{"tree.nwk", "3 children"}},
		{"duplicate tip", "((A,B),C,(D,A));", goodAln, goodReads, nil, 1, []string{"tree.nwk", `"A"`, "twice"}},
		{"PHYLIP header says more taxa", goodTree, strings.Replace(goodAln, "5 12", "6 12", 1), goodReads, nil, 1,
			[]string{"aln.phy", "6 taxa"}},
		{"alignment row not in the tree (--strict)", "((A,B),C,(D,E));", goodAln + "", goodReads, []string{"--strict"}, 1, nil},
		{"bad -p", goodTree, goodAln, goodReads, []string{"-p", "1:2:3"}, 2, []string{"-p"}},
		{"-p PaPaRa cannot use", goodTree, goodAln, goodReads, []string{"-p", "-3:-1:3:-3"}, 2, []string{"match + match_cgap < 0"}},
		{"bad --scoring", goodTree, goodAln, goodReads, []string{"--scoring", "fast"}, 2, []string{"--scoring"}},
		{"protein character missing from PaPaRa's alphabet", goodTree,
			strings.Replace(goodAln, "A ACGTACGTACGT", "A ACGTACGTACGX", 1), goodReads, []string{"-a"}, 1,
			[]string{"aln.phy:2", `"A"`, "'X'", "protein"}},
		{"tree nested too deep", strings.Repeat("(", 200000), goodAln, goodReads, nil, 1, []string{"tree.nwk:1:", "nested more than"}},
		{"NUL in the tree", strings.Replace(goodTree, "0.05", "0.\x0005", 1), goodAln, goodReads, nil, 1, []string{"tree.nwk:1:", "NUL byte"}},
		{"NUL in an alignment name", goodTree, strings.Replace(goodAln, "B ACGTAC", "B\x00 ACGTAC", 1), goodReads, nil, 1, []string{"aln.phy:3", "NUL byte"}},
		{"NUL in a read", goodTree, goodAln, ">r1\nACG\x00TACG\n", nil, 1, []string{"reads.fa:2", "NUL byte"}},
		{"placement file is a directory", goodTree, goodAln, goodReads, []string{"-placement", "."}, 1, []string{"cannot write output file .: it is a directory"}},
	}
	// a duplicate name: two rows called B
	cases[7].aln = "3 4\nA ACGT\nB ACGT\nB ACGA\n"
	cases[7].want = []string{"aln.phy:4", `"B"`, "duplicate"}
	// a sixth row, F, that the tree does not have
	cases[12].aln = strings.Replace(goodAln, "5 12", "6 12", 1) + "F ACGTACGTACGA\n"
	cases[12].want = []string{"aln.phy:7", `"F"`, "not a tip of the tree", "--strict"}

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			p := writeFiles(t, dir, map[string]string{"tree.nwk": c.tree, "aln.phy": c.aln, "reads.fa": c.reads})
			out := filepath.Join(dir, "out.phy")
			args := append([]string{"-t", p["tree.nwk"], "-s", p["aln.phy"], "-q", p["reads.fa"], "-o", out, "-n", "bad"}, c.args...)
			code, _, stderr := runPapara(args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, c.code, stderr)
			}
			if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
				t.Errorf("error is not one line:\n%s", stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("error %q does not mention %q", strings.TrimSpace(stderr), w)
				}
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if n := e.Name(); n != "tree.nwk" && n != "aln.phy" && n != "reads.fa" {
					t.Errorf("left a file behind: %s", n)
				}
			}
		})
	}
}

func TestOptionsAndOutputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	p := writeFiles(t, dir, map[string]string{"tree.nwk": goodTree, "aln.phy": goodAln, "reads.fa": goodReads})
	base := []string{"-t", p["tree.nwk"], "-s", p["aln.phy"], "-q", p["reads.fa"], "-j", "1"}

	// Defaults: PaPaRa's file names in the working directory.
	if code, _, stderr := runPapara(append(base, "-n", "run1")...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	aln, err := os.ReadFile("papara_alignment.run1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(aln), "7 12\nA  ACGTACGTACGT\n") {
		t.Errorf("unexpected PHYLIP layout:\n%s", aln)
	}
	for _, f := range []string{"papara_placement.run1", "papara_log.run1"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	pl, _ := os.ReadFile("papara_placement.run1")
	if lines := strings.Split(strings.TrimSpace(string(pl)), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[2], "r1\t") {
		t.Errorf("placement table:\n%s", pl)
	}

	// A second run with the same name needs -f.
	code, _, stderr := runPapara(append(base, "-n", "run1")...)
	if code == 0 || !strings.Contains(stderr, "-f") {
		t.Errorf("rerun without -f: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runPapara(append(base, "-n", "run1", "-f")...); code != 0 {
		t.Errorf("rerun with -f: exit %d, %s", code, stderr)
	}

	// "-o -": the alignment on stdout, no other files.
	code, stdout, stderr := runPapara(append(base, "-n", "run2", "-o", "-", "--fasta")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, ">A\nACGTACGTACGT\n") || strings.Count(stdout, ">") != 7 {
		t.Errorf("FASTA on stdout:\n%s", stdout)
	}
	for _, f := range []string{"papara_alignment.run2", "papara_placement.run2", "papara_log.run2"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s written although the alignment went to stdout", f)
		}
	}

	// The paper's scoring runs end to end.
	if code, stdout, stderr := runPapara(append(base, "--scoring", "paper", "-o", "-")...); code != 0 || !strings.HasPrefix(stdout, "7 ") {
		t.Errorf("--scoring paper: exit %d, %s\n%s", code, stderr, stdout)
	}

	// --gpu without a GPU backend is an error, not a silent CPU run.
	if code, _, stderr := runPapara(append(base, "--gpu", "-o", "-")...); code == 0 || !strings.Contains(stderr, "GPU") {
		t.Errorf("--gpu: exit %d, %s", code, stderr)
	}
	if code, _, _ := runPapara("-h"); code != 0 {
		t.Errorf("-h: exit %d", code)
	}
	if code, _, _ := runPapara("-t", "x"); code != 2 {
		t.Errorf("missing -s: exit %d, want 2", code)
	}
}
