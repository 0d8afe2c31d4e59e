//go:build !amd64

package simd

func detect() Level { return Generic }
