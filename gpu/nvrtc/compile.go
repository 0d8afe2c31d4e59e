package nvrtc

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/hmmgo/hmmgo/gpu/internal/dl"
)

// Program is CUDA C++ source with what it is compiled with.
type Program struct {
	Name    string            // shown in compiler messages, e.g. "msv.cu"
	Source  string            // CUDA C++; kernels are best declared extern "C"
	Headers map[string]string // in-memory files for #include "name"
	// Options are NVRTC options, e.g. "-DMODEL_M=200", "-lineinfo". An
	// -arch option overrides the architecture Compile picks. Fast math is
	// off unless asked for (--use_fast_math): hmmgo needs exact numbers.
	Options []string
	// NameExpressions are C++ names (e.g. "viterbi<16>") whose lowered
	// symbols Image.Symbol returns, for templated kernels.
	NameExpressions []string
}

// Target is the compute capability to compile for.
type Target struct{ Major, Minor int }

func (t Target) String() string { return fmt.Sprintf("sm_%d%d", t.Major, t.Minor) }

// Image is a compiled program.
type Image struct {
	Kind         string // "cubin" or "ptx"
	Arch         string // the architecture option used: sm_90, compute_90, sm_90a...
	Data         []byte // for PTX, NUL-terminated text
	LoweredNames map[string]string
	Log          string // compiler warnings, if any
	NVRTC        string // the version that compiled it, e.g. "13.0"
	Key          string // the cache key (hex SHA-256)
	FromCache    bool
	CacheNote    string // why the cache could not be read or written; "" when it could
}

// Symbol returns the name to look a kernel up by: the lowered name of a
// name expression, else the name itself (extern "C" kernels).
func (img *Image) Symbol(name string) string {
	if l, ok := img.LoweredNames[name]; ok {
		return l
	}
	return name
}

// CompileError is a failed compilation, with NVRTC's log.
type CompileError struct {
	Program string
	Arch    string
	Status  string // e.g. NVRTC_ERROR_COMPILATION
	Log     string
}

func (e *CompileError) Error() string {
	log := strings.TrimSpace(e.Log)
	if log == "" {
		log = "(NVRTC wrote no log)"
	}
	return fmt.Sprintf("nvrtc: compiling %s for %s failed (%s):\n%s", e.Program, e.Arch, e.Status, log)
}

// archChoice is the -arch option to add (empty when the caller gave one)
// and whether the output is a CUBIN.
type archChoice struct {
	option string
	arch   string
	cubin  bool
}

// chooseArch picks what to compile for. A user -arch wins. Otherwise a
// CUBIN for the device itself when NVRTC supports that architecture (and
// can emit CUBIN at all); else PTX for the newest architecture not newer
// than the device, which the driver JIT-compiles.
func chooseArch(userOpts []string, t Target, supported []int, canCUBIN bool) (archChoice, error) {
	for i, o := range userOpts {
		v, ok := "", false
		for _, p := range []string{"-arch=", "--gpu-architecture=", "-arch", "--gpu-architecture"} {
			if strings.HasSuffix(p, "=") && strings.HasPrefix(o, p) {
				v, ok = o[len(p):], true
				break
			}
			if o == p && i+1 < len(userOpts) {
				v, ok = userOpts[i+1], true
				break
			}
		}
		if ok {
			return archChoice{arch: v, cubin: strings.HasPrefix(v, "sm_") && canCUBIN}, nil
		}
	}
	cc := 10*t.Major + t.Minor
	if len(supported) == 0 { // NVRTC too old to say: trust it with the device's own arch
		if canCUBIN {
			return archChoice{option: "-arch=sm_" + fmt.Sprint(cc), arch: "sm_" + fmt.Sprint(cc), cubin: true}, nil
		}
		return archChoice{option: "-arch=compute_" + fmt.Sprint(cc), arch: "compute_" + fmt.Sprint(cc)}, nil
	}
	best := -1
	for _, a := range supported {
		if a == cc && canCUBIN {
			return archChoice{option: fmt.Sprintf("-arch=sm_%d", cc), arch: fmt.Sprintf("sm_%d", cc), cubin: true}, nil
		}
		if a <= cc && a > best {
			best = a
		}
	}
	if best < 0 {
		return archChoice{}, fmt.Errorf("nvrtc: this NVRTC cannot compile for %v: the oldest architecture it supports is sm_%d", t, supported[0])
	}
	return archChoice{option: fmt.Sprintf("-arch=compute_%d", best), arch: fmt.Sprintf("compute_%d", best)}, nil
}

// Compile builds p for target t, through cache c when c is not nil.
func Compile(p Program, t Target, c *Cache) (*Image, error) {
	b, err := plan(p, t)
	if err != nil {
		return nil, err
	}
	return shared(b.key, false, func() (*Image, error) { return b.run(c) })
}

// build is one compilation, planned: the options NVRTC will get and the
// cache key they make.
type build struct {
	p                 Program
	opts              []string
	choice            archChoice
	key, nvrtcVersion string
}

func plan(p Program, t Target) (*build, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	choice, err := chooseArch(p.Options, t, lib.archs, lib.nvrtcGetCUBIN.Found() && lib.nvrtcGetCUBINSize.Found())
	if err != nil {
		return nil, err
	}
	opts := append([]string(nil), p.Options...)
	if choice.option != "" {
		opts = append(opts, choice.option)
	}
	version := fmt.Sprintf("%d.%d", lib.major, lib.minor)
	return &build{p: p, opts: opts, choice: choice, key: cacheKey(p, opts, t, version), nvrtcVersion: version}, nil
}

// run returns the cached image, or compiles and stores it.
func (b *build) run(c *Cache) (*Image, error) {
	p, opts, choice, key, version := b.p, b.opts, b.choice, b.key, b.nvrtcVersion
	var note string
	if c != nil {
		img, why := c.get(key)
		if img != nil {
			counters.cacheHits.Add(1)
			return img, nil
		}
		note = why
	}
	start := time.Now()
	img, err := compile(p, opts, choice)
	counters.compiles.Add(1)
	counters.compileNs.Add(int64(time.Since(start)))
	if err != nil {
		return nil, err
	}
	img.NVRTC, img.Key = version, key
	img.CacheNote = note
	if c != nil {
		if why := c.put(img); why != "" {
			img.CacheNote = why
		}
	}
	return img, nil
}

// compile runs NVRTC once.
func compile(p Program, opts []string, choice archChoice) (*Image, error) {
	name := p.Name
	if name == "" {
		name = "kernel.cu"
	}
	// Headers in a fixed order, so that the cache key and the compilation
	// agree on what was passed.
	var hnames []string
	for n := range p.Headers {
		hnames = append(hnames, n)
	}
	sort.Strings(hnames)
	var hdrs, incs []*byte
	for _, n := range hnames {
		hdrs = append(hdrs, dl.CString(p.Headers[n]))
		incs = append(incs, dl.CString(n))
	}
	var hdrp, incp **byte
	if len(hdrs) > 0 {
		hdrp, incp = &hdrs[0], &incs[0]
	}
	var prog uintptr
	if err := lib.check(lib.nvrtcCreateProgram.Call(uintptr(unsafe.Pointer(&prog)), uintptr(unsafe.Pointer(dl.CString(p.Source))),
		uintptr(unsafe.Pointer(dl.CString(name))), uintptr(len(hdrs)), uintptr(unsafe.Pointer(hdrp)), uintptr(unsafe.Pointer(incp))),
		"nvrtcCreateProgram("+name+")"); err != nil {
		return nil, err
	}
	defer lib.nvrtcDestroyProgram.Call(uintptr(unsafe.Pointer(&prog)))

	for _, e := range p.NameExpressions {
		if err := lib.check(lib.nvrtcAddNameExpression.Call(prog, uintptr(unsafe.Pointer(dl.CString(e)))), "nvrtcAddNameExpression("+e+")"); err != nil {
			return nil, err
		}
	}
	copts := make([]*byte, len(opts))
	for i, o := range opts {
		copts[i] = dl.CString(o)
	}
	var optp **byte
	if len(copts) > 0 {
		optp = &copts[0]
	}
	r := lib.nvrtcCompileProgram.Call(prog, uintptr(len(copts)), uintptr(unsafe.Pointer(optp)))
	log := programLog(prog)
	if r != 0 {
		return nil, &CompileError{Program: name, Arch: choice.arch, Status: lib.nvrtcGetErrorString.CallString(uintptr(r)), Log: log}
	}
	img := &Image{Arch: choice.arch, Log: strings.TrimSpace(log)}
	if choice.cubin {
		var n uintptr
		if err := lib.check(lib.nvrtcGetCUBINSize.Call(prog, uintptr(unsafe.Pointer(&n))), "nvrtcGetCUBINSize"); err != nil {
			return nil, err
		}
		if n > 0 {
			img.Kind, img.Data = "cubin", make([]byte, n)
			if err := lib.check(lib.nvrtcGetCUBIN.Call(prog, uintptr(unsafe.Pointer(&img.Data[0]))), "nvrtcGetCUBIN"); err != nil {
				return nil, err
			}
		}
	}
	if img.Data == nil {
		var n uintptr
		if err := lib.check(lib.nvrtcGetPTXSize.Call(prog, uintptr(unsafe.Pointer(&n))), "nvrtcGetPTXSize"); err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("nvrtc: compiling %s produced no PTX", name)
		}
		img.Kind, img.Data = "ptx", make([]byte, n)
		if err := lib.check(lib.nvrtcGetPTX.Call(prog, uintptr(unsafe.Pointer(&img.Data[0]))), "nvrtcGetPTX"); err != nil {
			return nil, err
		}
	}
	if len(p.NameExpressions) > 0 {
		img.LoweredNames = make(map[string]string, len(p.NameExpressions))
		for _, e := range p.NameExpressions {
			var low *byte
			if err := lib.check(lib.nvrtcGetLoweredName.Call(prog, uintptr(unsafe.Pointer(dl.CString(e))), uintptr(unsafe.Pointer(&low))),
				"nvrtcGetLoweredName("+e+")"); err != nil {
				return nil, err
			}
			img.LoweredNames[e] = dl.GoString(low)
		}
	}
	return img, nil
}

func programLog(prog uintptr) string {
	var n uintptr
	if lib.nvrtcGetProgramLogSize.Call(prog, uintptr(unsafe.Pointer(&n))) != 0 || n <= 1 {
		return ""
	}
	buf := make([]byte, n)
	if lib.nvrtcGetProgramLog.Call(prog, uintptr(unsafe.Pointer(&buf[0]))) != 0 {
		return ""
	}
	return dl.TrimNUL(buf)
}
