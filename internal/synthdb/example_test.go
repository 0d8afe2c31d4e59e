package synthdb_test

import (
	"fmt"
	"os"

	"github.com/hmmgo/hmmgo/internal/synthdb"
)

// A 300-residue database with short sequences, written unwrapped.
func ExampleWrite() {
	p := synthdb.DefaultParams(300, 1)
	p.MeanLength, p.Width = 80, 0
	sum, err := synthdb.Write(os.Stdout, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Sequences, "sequences,", sum.Residues, "residues")
	// Output:
	// >syn000000001
	// LPDNQLSSSTPFDAIANELQQRTKNKD
	// >syn000000002
	// RVSSPRQSLRADHEALVFEPNLRTQHMTGRPGKGLSNYKAQASVAFGYLVHAYDGNRVMAETRAERNEAHKAQHDICTL
	// >syn000000003
	// RVPDRTFQCRQVSPRRVALIPTGMNEPWSLFMPDRALPPKLIYEVERDTPQVALFSMEDGMRPKKLNDTAIAKDAQKHQ
	// >syn000000004
	// KPTKKQATADGQHVMGSSTAILVNMLEGIKADSMRLRPGCTGNFPTLLYMGGIQNALINESILAGQ
	// >syn000000005
	// DPGTDEQNSVYGVPSKSWKYNFRLYLEIIITPQSINTVFVIGLETALGR
	// 5 sequences, 300 residues
}
