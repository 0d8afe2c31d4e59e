package fastaprint

import (
	"fmt"
	"os"
	"syscall"
)

// fileIdentity describes an open file's identity: what must be unchanged
// for a recorded hash to hold.
func fileIdentity(f *os.File) (string, bool) {
	fi, err := f.Stat()
	if err != nil {
		return "", false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return "", false
	}
	return fmt.Sprintf("dev=%d ino=%d size=%d mtime=%d ctime=%d", st.Dev, st.Ino, fi.Size(), st.Mtim.Nano(), st.Ctim.Nano()), true
}
