package biasfilter

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hmmgo/hmmgo/easel"
)

// tablesSource is the CUDA text of easel.Log's and easel.Logf's constants
// and tables, as exact hexadecimal floating-point literals: bias.cu's
// glibc_log and glibc_logf read them, so the kernel's logs use the very
// numbers the CPU's do.
func tablesSource() string {
	consts, tab, logf := easel.LogTables()
	var b strings.Builder
	hex := func(u uint64) string { return "(" + strconv.FormatFloat(math.Float64frombits(u), 'x', -1, 64) + ")" }
	def := func(name string, u uint64) { fmt.Fprintf(&b, "#define %s %s\n", name, hex(u)) }
	array := func(name string, us []uint64) {
		fmt.Fprintf(&b, "__device__ const double %s[%d] = {\n", name, len(us))
		for i, u := range us {
			sep := ", "
			if i%4 == 3 || i == len(us)-1 {
				sep = ",\n"
			}
			b.WriteString(hex(u) + sep)
		}
		b.WriteString("};\n")
	}
	b.WriteString("// glibc 2.36's __log_data and __logf_data (generated from easel.LogTables).\n")
	def("LOG_LN2HI", consts[0])
	def("LOG_LN2LO", consts[1])
	for i := 0; i < 5; i++ {
		def(fmt.Sprintf("LOG_A%d", i), consts[2+i])
	}
	for i := 0; i < 11; i++ {
		def(fmt.Sprintf("LOG_B%d", i), consts[7+i])
	}
	array("LOG_TAB", tab)
	array("LOGF_TAB", logf[:32])
	def("LOGF_LN2", logf[32])
	for i := 0; i < 3; i++ {
		def(fmt.Sprintf("LOGF_A%d", i), logf[33+i])
	}
	return b.String()
}
