package fwdback

// Temporary stand-ins until branch fwdbound lands (removed at its merge).

func (g *GPU) ForwardBoundBatch(jobs []BatchJob) ([]BatchResult, error) { return g.ForwardBatch(jobs) }

func BoundMargin(L, M int, score float32) float32 { return 0 }
