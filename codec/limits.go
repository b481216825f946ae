package codec

// Default limits. Every one is configurable through Limits.
const (
	DefaultMaxFrameBytes         = 16 << 20 // one message or batch
	DefaultMaxDepth              = 512      // nesting of arrays and objects
	DefaultMaxBatch              = 1000     // elements in one batch
	DefaultMaxBatchResponseBytes = 32 << 20 // encoded response to one batch
	DefaultMaxHeaderBytes        = 4 << 10  // one header line (Content-Length framing)
	DefaultMaxHeaderLines        = 32       // header lines before one body (Content-Length framing)
)

// Limits bound what a peer can make the codec do. A zero field takes its
// default; a Limits value is copied where it is used, so changing it later has
// no effect on framers and scanners already made.
type Limits struct {
	MaxFrameBytes         int // a longer frame is answered -32600 and skipped unbuffered
	MaxDepth              int // deeper nesting is a parse error (-32700)
	MaxBatch              int // a longer batch is refused whole with -32600
	MaxBatchResponseBytes int // a larger batch response is replaced by -32003
	MaxHeaderBytes        int // a longer header line is a framing error
	MaxHeaderLines        int // more header lines before one body are a framing error
}

// WithDefaults returns l with every zero field set to its default. A nil l
// gives all the defaults.
func (l *Limits) WithDefaults() Limits {
	var c Limits
	if l != nil {
		c = *l
	}
	if c.MaxFrameBytes <= 0 {
		c.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if c.MaxDepth <= 0 {
		c.MaxDepth = DefaultMaxDepth
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = DefaultMaxBatch
	}
	if c.MaxBatchResponseBytes <= 0 {
		c.MaxBatchResponseBytes = DefaultMaxBatchResponseBytes
	}
	if c.MaxHeaderBytes <= 0 {
		c.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if c.MaxHeaderLines <= 0 {
		c.MaxHeaderLines = DefaultMaxHeaderLines
	}
	return c
}
