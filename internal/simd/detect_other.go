//go:build !amd64

package simd

func detect() Level { return Generic }

func intel() bool { return false }
