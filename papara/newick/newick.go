// Package newick reads Newick trees into the linked-node form PaPaRa
// (through its ivy_mike library) works on: every node is a ring of three
// links, each link points across one branch to a link of the neighbour.
// Keeping that shape lets the papara packages enumerate branches in the
// exact order PaPaRa 2.5 does, which decides ties between equally good
// branches.
package newick

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Link is one end of a branch seen from a node (ivy_mike's "lnode").
type Link struct {
	Node   *Node
	Next   *Link   // next link of the same node's ring
	Back   *Link   // the neighbour's link across the branch, nil if none
	Length float64 // length of the branch to Back
}

// Node is a tip or an inner node of the tree.
type Node struct {
	Name  string // tip name; empty for inner nodes
	IsTip bool
	Index int   // position among tips (for tips) or inner nodes
	Link  *Link // the node's first link; for a tip its only branch
}

// Tree is an unrooted binary tree.
type Tree struct {
	// Start is the link where PaPaRa starts its walks (the parsed root,
	// moved to a link that has a neighbour).
	Start *Link
	Tips  []*Node // in file order
	Inner []*Node // in order of completion while parsing
}

// Edge is a branch as PaPaRa enumerates it: Far is the link on the side
// away from the start of the walk, Near = Far.Back.
type Edge struct{ Far, Near *Link }

// SyntaxError reports a problem at a position of a Newick file.
type SyntaxError struct {
	File   string
	Line   int
	Col    int
	Reason string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Reason)
}

// ReadFile parses the first tree of a Newick file (gzip-compressed or
// not).
func ReadFile(path string) (*Tree, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return Parse(path, data)
}

// Parse reads one Newick tree. Besides PaPaRa's unrooted trees (a
// trifurcation at the top) it accepts rooted trees (a bifurcation at the
// top), which it unroots the way PaPaRa's parser treats "(A,B);": the two
// root branches become one branch whose length is their sum. Quoted labels,
// [comments] and internal node labels are accepted; multifurcations below
// the top are not.
func Parse(name string, data []byte) (*Tree, error) {
	p := &parser{name: name, s: data, t: &Tree{}}
	top, err := p.parseTop()
	if err != nil {
		return nil, err
	}
	if len(p.t.Tips) < 3 {
		return nil, fmt.Errorf("%s: the tree has %d tips; PaPaRa needs at least 3", name, len(p.t.Tips))
	}
	// Move to a link that has a neighbour (ivy_mike's towards_tree).
	l := top
	for i := 0; l.Back == nil; i++ {
		if i > 3 {
			return nil, fmt.Errorf("%s: the top node is not connected to the tree", name)
		}
		l = l.Next
	}
	p.t.Start = l
	return p.t, nil
}

type parser struct {
	name  string
	s     []byte
	pos   int
	t     *Tree
	depth int // open parentheses around pos
}

// maxDepth bounds the nesting of parentheses. The parser recurses once per
// level, and a file of 50 million '(' overflowed the goroutine stack (a
// crash, not an error); a binary tree this deep has 100,000 tips in a
// caterpillar, beyond what PaPaRa can place reads on.
const maxDepth = 100000

func (p *parser) errf(format string, args ...any) error {
	line, col := 1, 1
	for i := 0; i < p.pos && i < len(p.s); i++ {
		if p.s[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &SyntaxError{File: p.name, Line: line, Col: col, Reason: fmt.Sprintf(format, args...)}
}

// skip passes white space and [comments].
func (p *parser) skip() error {
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			p.pos++
		case c == '[':
			end := strings.IndexByte(string(p.s[p.pos:]), ']')
			if end < 0 {
				return p.errf("unterminated [comment]")
			}
			p.pos += end + 1
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) peek() byte {
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

// newNode makes a node with its ring of three links.
func newNode() *Node {
	n := &Node{}
	a, b, c := &Link{Node: n, Length: -1}, &Link{Node: n, Length: -1}, &Link{Node: n, Length: -1}
	a.Next, b.Next, c.Next = b, c, a
	n.Link = a
	return n
}

// join makes a branch between two links.
func join(a, b *Link, length float64) {
	a.Back, b.Back = b, a
	a.Length, b.Length = length, length
}

type child struct {
	link   *Link
	length float64
}

func (p *parser) parseTop() (*Link, error) {
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos >= len(p.s) {
		return nil, p.errf("empty file: no tree")
	}
	if p.peek() != '(' {
		return nil, p.errf("a tree must start with '('")
	}
	kids, err := p.parseChildren()
	if err != nil {
		return nil, err
	}
	if _, err := p.parseLabel(); err != nil { // root label, ignored
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.peek() == ':' { // a root branch length, ignored as PaPaRa does
		if _, err := p.parseLength(); err != nil {
			return nil, err
		}
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.peek() != ';' {
		return nil, p.errf("expected ';' at the end of the tree")
	}
	switch len(kids) {
	case 2:
		// Rooted: join the two children directly, as ivy_mike does for
		// "(A,B);", and start the walk from the first one.
		join(kids[0].link, kids[1].link, kids[0].length+kids[1].length)
		return kids[0].link, nil
	case 3:
		n := newNode()
		n.Index = len(p.t.Inner)
		p.t.Inner = append(p.t.Inner, n)
		join(kids[0].link, n.Link.Next, kids[0].length)
		join(kids[1].link, n.Link.Next.Next, kids[1].length)
		join(kids[2].link, n.Link, kids[2].length)
		return n.Link, nil
	default:
		return nil, p.errf("the top node has %d children; PaPaRa needs 2 (rooted) or 3 (unrooted)", len(kids))
	}
}

// parseChildren reads "(sub[:len],sub[:len],...)" and returns the
// children's upward links with their branch lengths (1.0 when absent, as
// in ivy_mike).
func (p *parser) parseChildren() ([]child, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, p.errf("parentheses nested more than %d deep", maxDepth)
	}
	defer func() { p.depth-- }()
	p.pos++ // '('
	var kids []child
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		link, err := p.parseSubtree()
		if err != nil {
			return nil, err
		}
		length := 1.0
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.peek() == ':' {
			if length, err = p.parseLength(); err != nil {
				return nil, err
			}
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		kids = append(kids, child{link, length})
		switch p.peek() {
		case ',':
			p.pos++
		case ')':
			p.pos++
			return kids, nil
		case 0:
			if p.pos < len(p.s) {
				return nil, p.errf("NUL byte in the tree")
			}
			return nil, p.errf("unexpected end of file inside parentheses")
		default:
			return nil, p.errf("expected ',' or ')', found %q", p.peek())
		}
	}
}

// parseSubtree reads a tip or an inner node and returns its upward link.
func (p *parser) parseSubtree() (*Link, error) {
	if p.peek() != '(' {
		name, err := p.parseLabel()
		if err != nil {
			return nil, err
		}
		if name == "" {
			return nil, p.errf("tip without a name")
		}
		n := newNode()
		n.Name, n.IsTip, n.Index = name, true, len(p.t.Tips)
		p.t.Tips = append(p.t.Tips, n)
		return n.Link, nil
	}
	start := p.pos
	kids, err := p.parseChildren()
	if err != nil {
		return nil, err
	}
	if len(kids) != 2 {
		p.pos = start
		return nil, p.errf("inner node with %d children; PaPaRa needs a binary tree (a trifurcation only at the top)", len(kids))
	}
	if _, err := p.parseLabel(); err != nil { // support value or node label
		return nil, err
	}
	n := newNode()
	n.Index = len(p.t.Inner)
	p.t.Inner = append(p.t.Inner, n)
	join(kids[0].link, n.Link.Next, kids[0].length)
	join(kids[1].link, n.Link.Next.Next, kids[1].length)
	return n.Link, nil
}

// parseLabel reads an optional quoted or plain label.
func (p *parser) parseLabel() (string, error) {
	if err := p.skip(); err != nil {
		return "", err
	}
	if p.peek() == '\'' {
		var b strings.Builder
		p.pos++
		for {
			if p.pos >= len(p.s) {
				return "", p.errf("unterminated quoted label")
			}
			c := p.s[p.pos]
			if c == 0 {
				return "", p.errf("NUL byte in the tree")
			}
			p.pos++
			if c == '\'' {
				if p.peek() == '\'' { // '' is a quote inside a label
					b.WriteByte('\'')
					p.pos++
					continue
				}
				return b.String(), nil
			}
			b.WriteByte(c)
		}
	}
	start := p.pos
	// A NUL ends a label too, so that the caller reports it.
	for p.pos < len(p.s) && !strings.ContainsRune("():,;[ \t\r\n\v\f'\x00", rune(p.s[p.pos])) {
		p.pos++
	}
	return string(p.s[start:p.pos]), nil
}

// parseLength reads ":<number>". Like ivy_mike (atof on the run of
// characters [0-9.eE-]) a malformed tail is ignored, but a missing number
// is an error.
func (p *parser) parseLength() (float64, error) {
	p.pos++ // ':'
	if err := p.skip(); err != nil {
		return 0, err
	}
	start := p.pos
	for p.pos < len(p.s) && strings.IndexByte("0123456789.eE-+", p.s[p.pos]) >= 0 {
		p.pos++
	}
	tok := string(p.s[start:p.pos])
	for n := len(tok); n > 0; n-- {
		if v, err := strconv.ParseFloat(tok[:n], 64); err == nil {
			return v, nil
		}
	}
	p.pos = start
	return 0, p.errf("missing branch length after ':'")
}

// Edges lists the branches in PaPaRa's order: a depth-first walk from
// Start that visits, at every node, the branch behind the entry link
// first, then the two others in ring order (ivy_mike's visit_edges).
func (t *Tree) Edges() []Edge {
	var out []Edge
	var visit func(l *Link)
	visit = func(l *Link) {
		out = append(out, Edge{Far: l, Near: l.Back})
		if b := l.Next.Back; b != nil {
			visit(b)
		}
		if b := l.Next.Next.Back; b != nil {
			visit(b)
		}
	}
	s := t.Start
	if s.Back != nil {
		visit(s.Back)
	}
	if b := s.Next.Back; b != nil {
		visit(b)
	}
	if b := s.Next.Next.Back; b != nil {
		visit(b)
	}
	return out
}
