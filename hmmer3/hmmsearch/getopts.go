package hmmsearch

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// This file reproduces Easel's esl_getopts command-line rules, so that a
// command line hmmsearch accepts means the same here and one it rejects
// is rejected with the same words: long options with "--opt arg" or
// "--opt=arg" and unambiguous abbreviations, one-letter options that may
// be bundled ("-abc", "-Z10"), options only before the arguments ("--"
// ends them), type and range checks of arguments, each option at most
// once, options that exclude each other, and values from environment
// variables.

type argType int

const (
	argNone argType = iota
	argInt
	argReal
	argString
	argOutfile
)

// option is one row of an Easel option table.
type option struct {
	name     string
	typ      argType
	def      string // default value; "" means unset (Easel's NULL/FALSE)
	env      string // environment variable that may set it
	rng      string // range, e.g. "n>=0", "x>0"
	incompat string // comma-separated options it excludes
	help     string
	group    int // help section
}

// Who set an option's value.
const (
	byDefault = iota
	byCmdline
	byEnv
)

// getopts is a processed command line.
type getopts struct {
	opts  []option
	val   []string
	on    []bool // Easel's val != NULL
	setby []int
	args  []string // positional arguments
}

func newGetopts(opts []option) *getopts {
	g := &getopts{opts: opts, val: make([]string, len(opts)), on: make([]bool, len(opts)), setby: make([]int, len(opts))}
	for i, o := range opts {
		if o.def != "" {
			g.val[i], g.on[i] = o.def, true
		}
	}
	return g
}

func (g *getopts) index(name string) int {
	for i, o := range g.opts {
		if o.name == name {
			return i
		}
	}
	panic("getopts: no option " + name)
}

// processEnvironment applies option values from environment variables
// (esl_opt_ProcessEnvironment); the command line may override them.
func (g *getopts) processEnvironment(lookup func(string) (string, bool)) error {
	for i, o := range g.opts {
		if o.env == "" {
			continue
		}
		if v, ok := lookup(o.env); ok {
			if err := g.set(i, v, true, byEnv); err != nil {
				return err
			}
		}
	}
	return nil
}

// processCmdline reads options up to the first argument that is not one
// ("-" alone is an argument; "--" ends the options), then the rest as
// arguments (esl_opt_ProcessCmdline).
func (g *getopts) processCmdline(argv []string) error {
	i := 0
	for i < len(argv) {
		a := argv[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		if strings.HasPrefix(a, "--") {
			next, err := g.longOption(argv, i)
			if err != nil {
				return err
			}
			i = next
			continue
		}
		next, err := g.shortOptions(argv, i)
		if err != nil {
			return err
		}
		i = next
	}
	g.args = argv[i:]
	return nil
}

func (g *getopts) longOption(argv []string, i int) (int, error) {
	a := argv[i]
	name, arg, hasArg := a, "", false
	if eq := strings.IndexByte(a, '='); eq >= 0 {
		name, arg, hasArg = a[:eq], a[eq+1:], true
	}
	// Unambiguous prefixes of long names are accepted; an exact match wins.
	opti, nabbrev := -1, 0
	for j, o := range g.opts {
		if strings.HasPrefix(o.name, name) {
			nabbrev++
			opti = j
			if o.name == name {
				nabbrev = 1
				break
			}
		}
	}
	switch {
	case nabbrev > 1:
		return 0, fmt.Errorf("Abbreviated option \"%s\" is ambiguous.", c24(a))
	case nabbrev == 0:
		return 0, fmt.Errorf("No such option \"%s\".", c24(a))
	}
	o := g.opts[opti]
	i++
	if o.typ == argNone {
		if hasArg {
			return 0, fmt.Errorf("Option %s does not take an argument.", c24(o.name))
		}
		return i, g.set(opti, "", false, byCmdline)
	}
	if !hasArg {
		if i >= len(argv) {
			return 0, fmt.Errorf("Option %s requires an argument.", c24(o.name))
		}
		arg = argv[i]
		i++
		if (o.typ == argString || o.typ == argOutfile) && strings.HasPrefix(arg, "-") {
			return 0, fmt.Errorf("Arg looks like option? Use %s=%s if you really mean it.", c24(o.name), c24(arg))
		}
	}
	return i, g.set(opti, arg, true, byCmdline)
}

// shortOptions handles one "-abc" element; only its last letter may take
// an argument, attached ("-Z10") or as the next element.
func (g *getopts) shortOptions(argv []string, i int) (int, error) {
	s := argv[i][1:]
	i++
	for len(s) > 0 {
		opti := -1
		for j, o := range g.opts {
			if len(o.name) > 1 && o.name[1] == s[0] {
				opti = j
				break
			}
		}
		if opti < 0 {
			return 0, fmt.Errorf("No such option \"-%c\".", s[0])
		}
		o := g.opts[opti]
		if o.typ == argNone {
			if err := g.set(opti, "", false, byCmdline); err != nil {
				return 0, err
			}
			s = s[1:]
			continue
		}
		var arg string
		switch {
		case len(s) > 1:
			arg = s[1:]
		case i < len(argv):
			arg = argv[i]
			i++
			if (o.typ == argString || o.typ == argOutfile) && strings.HasPrefix(arg, "-") {
				return 0, fmt.Errorf("Arg looks like option? Use %s%s if you really mean it.", c24(o.name), c24(arg))
			}
		default:
			return 0, fmt.Errorf("Option %s requires an argument", c24(o.name))
		}
		return i, g.set(opti, arg, true, byCmdline)
	}
	return i, nil
}

// set records one value after Easel's checks (set_option).
func (g *getopts) set(i int, arg string, hasArg bool, setby int) error {
	o := g.opts[i]
	where := "on cmdline"
	if setby == byEnv {
		where = "in env"
	}
	if g.setby[i] == setby {
		return fmt.Errorf("Option %s has already been set %s.", c24(o.name), where)
	}
	switch o.typ {
	case argInt:
		if !isInteger(arg) {
			return fmt.Errorf("Option %s takes integer arg; got %s %s", c24(o.name), c24(arg), where)
		}
		if !inRange(float64(cAtoi(arg)), o.rng, 'n', func(s string) float64 { return float64(cAtoi(s)) }) {
			return fmt.Errorf("option %s takes integer arg in range %s; got %s %s", c24(o.name), c24(o.rng), c24(arg), where)
		}
	case argReal:
		if !isReal(arg) {
			return fmt.Errorf("Option %s takes real-valued arg; got %s %s", c24(o.name), c24(arg), where)
		}
		if !inRange(cAtof(arg), o.rng, 'x', cAtof) {
			return fmt.Errorf("Option %s takes real-valued arg in range %s; got %s %s", c24(o.name), c24(o.rng), c24(arg), where)
		}
	}
	g.setby[i] = setby
	g.on[i] = true
	if o.typ == argNone {
		g.val[i] = "true"
	} else {
		g.val[i] = arg
	}
	return nil
}

// verify checks that no two incompatible options are both set
// (esl_opt_VerifyConfig). hmmsearch's table has no required options.
func (g *getopts) verify() error {
	for i, o := range g.opts {
		if g.setby[i] == byDefault || !g.on[i] || o.incompat == "" {
			continue
		}
		for _, other := range strings.Split(o.incompat, ",") {
			j := g.prefixIndex(other)
			if j == i || j < 0 || g.setby[j] == byDefault || !g.on[j] {
				continue
			}
			if g.setby[i] == byEnv {
				return fmt.Errorf("Option %s (set by env var %s) is incompatible with option(s) %s", c24(o.name), o.env, c24(o.incompat))
			}
			return fmt.Errorf("Option %s is incompatible with option(s) %s", c24(o.name), c24(o.incompat))
		}
	}
	return nil
}

// prefixIndex finds the first option whose name starts with name, as
// Easel matches names in option lists.
func (g *getopts) prefixIndex(name string) int {
	for i, o := range g.opts {
		if strings.HasPrefix(o.name, name) {
			return i
		}
	}
	return -1
}

// isOn is esl_opt_IsOn: the option has a value (a switch is set).
func (g *getopts) isOn(name string) bool { return g.on[g.index(name)] }

// isUsed is esl_opt_IsUsed: on, and not at its default text. An option
// given its default value ("-E 10.0") does not count; "-E 10" does.
func (g *getopts) isUsed(name string) bool {
	i := g.index(name)
	if g.setby[i] == byDefault || !g.on[i] {
		return false
	}
	return g.opts[i].def == "" || g.val[i] != g.opts[i].def
}

func (g *getopts) str(name string) string { return g.val[g.index(name)] }
func (g *getopts) integer(name string) int {
	return cAtoi(g.val[g.index(name)])
}
func (g *getopts) real(name string) float64 { return cAtof(g.val[g.index(name)]) }

// spoof rebuilds a command line that gives the same settings
// (esl_opt_SpoofCmdline): the program, every option not at its default,
// in table order, then the arguments; each followed by a blank.
func (g *getopts) spoof(program string) string {
	var b strings.Builder
	b.WriteString(program + " ")
	for i, o := range g.opts {
		if g.setby[i] == byDefault {
			continue
		}
		b.WriteString(o.name + " ")
		if o.typ != argNone {
			b.WriteString(g.val[i] + " ")
		}
	}
	for _, a := range g.args {
		b.WriteString(a + " ")
	}
	return b.String()
}

// displayHelp writes the options of one help group with their defaults
// and ranges when they fit in textwidth (esl_opt_DisplayHelp).
func (g *getopts) displayHelp(w io.Writer, group, indent, textwidth int) {
	optw := 0
	var helpw [3]int // everything; help and default; help only
	for _, o := range g.opts {
		if o.group != group {
			continue
		}
		n := len(o.name)
		if o.typ != argNone {
			n += 4
		}
		optw = max(optw, n)
		n = len(o.help) + 1
		helpw[2] = max(helpw[2], n)
		if o.def != "" {
			n += len(o.def) + 4
		}
		helpw[1] = max(helpw[1], n)
		if o.rng != "" {
			n += len(o.rng) + 4
		}
		helpw[0] = max(helpw[0], n)
	}
	showDefaults, showRanges := false, false
	switch {
	case indent+optw+helpw[0] <= textwidth:
		showDefaults, showRanges = true, true
	case indent+optw+helpw[1] <= textwidth:
		showDefaults = true
	}
	for _, o := range g.opts {
		if o.group != group {
			continue
		}
		name := o.name
		switch o.typ {
		case argInt:
			name += " <n>"
		case argReal:
			name += " <x>"
		case argString:
			name += " <s>"
		case argOutfile:
			name += " <f>"
		}
		line := strings.Repeat(" ", indent) + name + strings.Repeat(" ", optw-len(name)) + " : " + o.help
		if showDefaults && o.def != "" {
			line += "  [" + o.def + "]"
		}
		if showRanges && o.rng != "" {
			line += "  (" + o.rng + ")"
		}
		fmt.Fprintln(w, line)
	}
}

// c24 is C's "%.24s", which Easel uses for names and values in messages.
func c24(s string) string {
	if len(s) > 24 {
		return s[:24]
	}
	return s
}

// isInteger is esl_str_IsInteger: strtol reads a number and only blanks
// follow.
func isInteger(s string) bool {
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	j := 0
	if j < len(t) && (t[j] == '+' || t[j] == '-') {
		j++
	}
	start := j
	for j < len(t) && t[j] >= '0' && t[j] <= '9' {
		j++
	}
	if j == start {
		return false
	}
	return strings.TrimSpace(t[j:]) == ""
}

// isReal is esl_str_IsReal: strtod reads a number and only blanks follow.
func isReal(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" {
		return false
	}
	_, err := strconv.ParseFloat(t, 64)
	if err == nil {
		return true
	}
	// Out-of-range values are still numbers to strtod.
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func cAtoi(s string) int {
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	n, j, neg := 0, 0, false
	if j < len(t) && (t[j] == '+' || t[j] == '-') {
		neg = t[j] == '-'
		j++
	}
	for ; j < len(t) && t[j] >= '0' && t[j] <= '9'; j++ {
		n = n*10 + int(t[j]-'0')
	}
	if neg {
		return -n
	}
	return n
}

func cAtof(s string) float64 {
	x, _ := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return x
}

// inRange checks v against an Easel range string such as "n>=120",
// "x>0" or "0<=x<=1" (c is the variable letter).
func inRange(v float64, rng string, c byte, parse func(string) float64) bool {
	if rng == "" {
		return true
	}
	p := strings.IndexByte(rng, c)
	if p < 0 {
		return true
	}
	var lower, upper string
	var geq, leq, hasLower, hasUpper bool
	if p == 0 {
		rest := rng[1:]
		switch {
		case strings.HasPrefix(rest, ">="):
			lower, geq, hasLower = rest[2:], true, true
		case strings.HasPrefix(rest, ">"):
			lower, hasLower = rest[1:], true
		case strings.HasPrefix(rest, "<="):
			upper, leq, hasUpper = rest[2:], true, true
		case strings.HasPrefix(rest, "<"):
			upper, hasUpper = rest[1:], true
		}
	} else {
		rest := rng[p+1:]
		if strings.HasPrefix(rest, "<=") {
			upper, leq = rest[2:], true
		} else {
			upper = strings.TrimPrefix(rest, "<")
		}
		hasUpper = true
		head := rng[:p]
		geq = strings.HasSuffix(head, "=")
		lower, hasLower = strings.TrimRight(head, "<="), true
	}
	if hasLower {
		lo := parse(lower)
		if (geq && !(v >= lo)) || (!geq && !(v > lo)) {
			return false
		}
	}
	if hasUpper {
		hi := parse(upper)
		if (leq && !(v <= hi)) || (!leq && !(v < hi)) {
			return false
		}
	}
	return true
}
