package hmm

// Format is a model file format version.
type Format int

const (
	FormatUnknown Format = iota
	Format20             // HMMER2.0 ASCII
	Format3a
	Format3b
	Format3c
	Format3d
	Format3e
	Format3f
)

// String returns the tag that starts a model of this format.
func (f Format) String() string {
	switch f {
	case Format20:
		return "HMMER2.0"
	case Format3a, Format3b, Format3c, Format3d, Format3e, Format3f:
		return "HMMER3/" + string(rune('a'+int(f-Format3a)))
	}
	return "unknown"
}

// formatOfTag maps the first token of an ASCII model to its format.
func formatOfTag(tag string) Format {
	for f := Format20; f <= Format3f; f++ {
		if f.String() == tag {
			return f
		}
	}
	return FormatUnknown
}

// Binary formats start with a little-endian magic number: the format's
// four-letter code ("hmm6" for 3/a ... "hmma" for 3/f, "hmm0" for 3/e)
// with the high bit of every byte set.
var binaryMagic = map[uint32]Format{
	0xe8ededb6: Format3a,
	0xe8ededb7: Format3b,
	0xe8ededb8: Format3c,
	0xe8ededb9: Format3d,
	0xe8ededb0: Format3e,
	0xe8ededba: Format3f,
}
