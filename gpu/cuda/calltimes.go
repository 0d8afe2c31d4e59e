package cuda

import "github.com/hmmgo/hmmgo/gpu/internal/dl"

// CallTime is the number and summed duration of a process's calls to one
// driver or NVRTC function, or of one library's loading ("dlopen NAME").
type CallTime = dl.CallTime

// EnableCallTimes starts timing every call into libcuda and libnvrtc (and
// their loading), for diagnostics such as --verbose; call it before the
// first GPU use to see the start-up. Timing costs about 100 ns a call.
func EnableCallTimes() { dl.EnableTimes() }

// CallTimes returns what EnableCallTimes has measured so far, longest
// total first.
func CallTimes() []CallTime { return dl.Times() }
