package fastaprint_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hmmgo/hmmgo/internal/fastaprint"
)

func Example() {
	dir, _ := os.MkdirTemp("", "fastaprint")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "db.fa")
	os.WriteFile(path, []byte(">seq1\nACDE\n>seq2\nKLMN\n"), 0o644)
	p, err := fastaprint.Scan(path, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Size, p.Starts, p.SHA256[:16])
	// Output: 22 [0 11] 50b1c856b150bd5d
}
