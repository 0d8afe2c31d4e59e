package newick

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// side lists the tips on the far side of a link, sorted.
func side(l *Link) string {
	var tips []string
	var walk func(l *Link)
	walk = func(l *Link) {
		if l.Node.IsTip {
			tips = append(tips, l.Node.Name)
			return
		}
		walk(l.Next.Back)
		walk(l.Next.Next.Back)
	}
	walk(l)
	sort.Strings(tips)
	return strings.Join(tips, "")
}

func edgeList(t *Tree) string {
	var out []string
	for _, e := range t.Edges() {
		out = append(out, fmt.Sprintf("%s:%g", side(e.Far), e.Far.Length))
	}
	return strings.Join(out, " ")
}

// TestEdgeOrder checks PaPaRa's branch order: from the top node, first the
// subtree behind the third child, then the first and the second, each in
// depth-first preorder.
func TestEdgeOrder(t *testing.T) {
	for _, c := range []struct{ tree, want string }{
		{"(A:1,B:2,(C:3,D:4):5);", "CD:5 C:3 D:4 A:1 B:2"},
		{"((A,B),C,(D,E));", "DE:1 D:1 E:1 AB:1 A:1 B:1 C:1"},
		// rooted: the two root branches become one (lengths add up)
		{"((A:1,B:1):0.5,(C:1,D:1):0.25);", "CD:0.75 C:1 D:1 A:1 B:1"},
		{"(A:0.5,(B:1,(C:1,D:2):3):0.5);", "BCD:1 B:1 CD:3 C:1 D:2"},
		// a root label and length, as in rooted trees PaPaRa rejects
		{"((A:1,B:1)'x':0.5,(C:1,D:1)y:0.25)root:0.0;", "CD:0.75 C:1 D:1 A:1 B:1"},
	} {
		tr, err := Parse("t", []byte(c.tree))
		if err != nil {
			t.Fatalf("%s: %v", c.tree, err)
		}
		if got := edgeList(tr); got != c.want {
			t.Errorf("%s: edges %s, want %s", c.tree, got, c.want)
		}
	}
}

func TestLabelsAndLengths(t *testing.T) {
	tr, err := Parse("t", []byte(" ( 'a b''c':1e-3 [comment], B : 2.5E+1,\n (C:-0,D)95:7)[&R];\n"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range tr.Tips {
		names = append(names, n.Name)
	}
	if got := strings.Join(names, "|"); got != "a b'c|B|C|D" {
		t.Errorf("tips %s", got)
	}
	if got := edgeList(tr); got != "CD:7 C:-0 D:1 a b'c:0.001 B:25" {
		t.Errorf("edges %s", got)
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, c := range []struct{ tree, want string }{
		{"((A,B),C,(D,E));x", ""},
		{"((A,B),C,(D,E))", "expected ';'"},
		{"((A,B),C,(D,E);", "expected ',' or ')'"},
		{"((A,B),C,(D,E", "unexpected end"},
		{"((A,B,C),D,E);", "3 children"},
		{"(A,B,C,D);", "4 children"},
		{"(A,B);", "2 tips"},
		{"((A,),C,D);", "tip without a name"},
		{"((A:,B),C,D);", "missing branch length"},
		{"A;", "must start with '('"},
		{"", "empty"},
		{"('A,B),C,D);", "unterminated quoted label"},
		{"((A,B),C\x00,(D,E));", "f.nwk:1:9: NUL byte in the tree"},
		// Deep nesting is an error, not a stack overflow.
		{strings.Repeat("(", 50_000_000), "nested more than 100000 deep"},
		{"(" + strings.Repeat("(A,", 5000) + "B" + strings.Repeat(")", 5000) + ",C,D);", ""},
	} {
		_, err := Parse("f.nwk", []byte(c.tree))
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.tree, err)
			}
			continue
		}
		var se *SyntaxError
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.tree, err, c.want)
		} else if !errors.As(err, &se) && !strings.HasPrefix(err.Error(), "f.nwk") {
			t.Errorf("%q: error %v does not name the file", c.tree, err)
		}
	}
}

func ExampleTree_Edges() {
	tr, _ := Parse("example", []byte("(A:0.1,B:0.2,(C:0.3,D:0.4):0.5);"))
	for i, e := range tr.Edges() {
		far := "inner"
		if e.Far.Node.IsTip {
			far = e.Far.Node.Name
		}
		fmt.Printf("branch %d: %s, length %g\n", i, far, e.Far.Length)
	}
	// Output:
	// branch 0: inner, length 0.5
	// branch 1: C, length 0.3
	// branch 2: D, length 0.4
	// branch 3: A, length 0.1
	// branch 4: B, length 0.2
}
