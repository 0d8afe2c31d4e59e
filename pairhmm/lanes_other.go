//go:build !amd64

package pairhmm

const haveAVX2 = false

var avx2LaneKernel = goLaneKernel

func bestLaneKernel() laneKernel { return goLaneKernel }
