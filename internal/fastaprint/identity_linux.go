package fastaprint

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// racyWindow is how long a file must have been left alone for data
// computed from it to be cached. File times come from a clock that ticks
// every few milliseconds, so a file rewritten within one tick keeps its
// times; one changed at least this long before it was read cannot be
// rewritten afterwards with the same change time. (Git's index treats
// "racy" entries the same way.)
var racyWindow = 2 * time.Second

// fileIdentity describes an open file's identity: what must be unchanged
// for cached data to hold; ok is false for anything but a regular file
// left alone for racyWindow.
func fileIdentity(f *os.File) (string, bool) {
	fi, err := f.Stat()
	if err != nil {
		return "", false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return "", false
	}
	if time.Since(time.Unix(st.Ctim.Sec, st.Ctim.Nsec)) < racyWindow {
		return "", false
	}
	return fmt.Sprintf("dev=%d ino=%d size=%d mtime=%d ctime=%d", st.Dev, st.Ino, fi.Size(), st.Mtim.Nano(), st.Ctim.Nano()), true
}
