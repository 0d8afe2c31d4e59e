package cuda

// ContextRefs is how many Context calls on d have not been given back.
func ContextRefs(d *Device) int {
	d.ctxMu.Lock()
	defer d.ctxMu.Unlock()
	return d.ctxRefs
}
