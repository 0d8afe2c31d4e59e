//go:build !amd64

package fwdback

// The domain kernels: the portable Go forms on this architecture.

func decodeRows(f, b, p []vec, Q int, totr []float32) { decodeRowsGo(f, b, p, Q, totr) }

func oaRow(dpp, dpc, ppr []vec, msk []uint32, Q int, xB float32, ddAll *[4]uint32) vec {
	return oaRowGo(dpp, dpc, ppr, msk, Q, xB, ddAll)
}

func decodeOARow(dpp, dpc, ppr []vec, msk []uint32, Q int, xB float32, ddAll *[4]uint32, plain []uint8, acc, nf, nb []vec, t float32) vec {
	return decodeOARowGo(dpp, dpc, ppr, msk, Q, xB, ddAll, acc, nf, nb, t)
}

func sumRows(acc, src []vec, Q, rows int) { sumRowsGo(acc, src, Q, rows) }

func null2Dot(row, rf []vec, Q int) vec { return null2DotGo(row, rf, Q) }

// null2Sums: no wide null2 kernel on this architecture.
func null2Sums(row0 []vec, rf [][]vec, Q int, norm float32, s []vec) bool { return false }
