package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is the live line on a terminal: how far the run is (by its
// duration, else its count) and the last second's throughput, p99 and
// errors. On anything but a terminal it shows nothing.
type progress struct {
	bar   *progressbar.ProgressBar
	byDur bool
	r     *runner
	start time.Time
	ended bool // done was called
}

// newProgress returns the run's progress line on w, or nil when w is not
// a terminal.
func newProgress(w io.Writer, r *runner, d time.Duration, n int64) *progress {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	p := &progress{r: r, byDur: d > 0, start: r.start}
	max := n
	if p.byDur {
		max = int64(d / time.Second)
	}
	p.bar = progressbar.NewOptions64(max,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(20),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionSetRenderBlankState(true),
	)
	return p
}

// update shows the interval that just ended; after done, nothing.
func (p *progress) update(iv Interval) {
	if p == nil || p.ended {
		return
	}
	if p.byDur {
		p.bar.Set64(int64(time.Since(p.start) / time.Second))
	} else {
		p.bar.Set64(int64(p.r.seq.Load()))
	}
	p.bar.Describe(fmt.Sprintf("%s req/s  p99 %s  errors %d", thousands(int64(iv.RPS)), latencyText(iv.P99US), iv.Errors))
}

// done clears the line, once; calling it again does nothing.
func (p *progress) done() {
	if p != nil && !p.ended {
		p.ended = true
		p.bar.Finish()
	}
}
