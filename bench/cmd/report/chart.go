package main

import (
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

var (
	mcpwireColor = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	peerColor    = color.RGBA{R: 0xaa, G: 0xaa, B: 0xaa, A: 0xff}
	baseColor    = color.RGBA{R: 0xdd, G: 0xcc, B: 0x99, A: 0xff}
)

// writeChart draws one panel per workload, a horizontal bar per
// implementation (mcpwire in blue, peers grey, baselines sand), as PNG.
func writeChart(w io.Writer, res results) error {
	var panels []*plot.Plot
	for _, wl := range workloads {
		e, ok := res.Workloads[wl.key]
		if !ok {
			continue
		}
		p, err := panel(wl, e)
		if err != nil {
			return err
		}
		panels = append(panels, p)
	}
	const cols = 3
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range cols {
			if i := r*cols + c; i < len(panels) {
				grid[r][c] = panels[i]
			}
		}
	}
	img := vgimg.New(15*vg.Inch, vg.Length(rows)*3.2*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	canvases := plot.Align(grid, tiles, dc)
	for r := range grid {
		for c, p := range grid[r] {
			if p != nil {
				p.Draw(canvases[r][c])
			}
		}
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// panel is one workload's bars.
func panel(wl workload, e entry) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = wl.key + ": " + e.Unit + " (" + e.Better + " is better)"
	impls := sortedImpls(e)
	// Bars bottom to top in the table's order (the first at the top).
	n := len(impls)
	groups := map[string]plotter.Values{"mcpwire": make(plotter.Values, n), "peer": make(plotter.Values, n), "base": make(plotter.Values, n)}
	names := make([]string, n)
	for i, impl := range impls {
		at := n - 1 - i
		names[at] = impl
		groups[barGroup(impl)][at] = e.Impls[impl]
	}
	for _, g := range []struct {
		name string
		c    color.Color
	}{{"peer", peerColor}, {"base", baseColor}, {"mcpwire", mcpwireColor}} {
		if allZero(groups[g.name]) {
			continue
		}
		bars, err := plotter.NewBarChart(groups[g.name], vg.Points(11))
		if err != nil {
			return nil, err
		}
		bars.Horizontal = true
		bars.Color = g.c
		bars.LineStyle.Width = 0
		p.Add(bars)
	}
	p.NominalY(names...)
	p.X.Min = 0
	p.X.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		var ticks []plot.Tick
		for _, t := range (plot.DefaultTicks{}).Ticks(min, max) {
			if t.Label != "" {
				t.Label = short(t.Value)
			}
			ticks = append(ticks, t)
		}
		return ticks
	})
	return p, nil
}

// barGroup is the group, and so the colour, of impl's bar: "mcpwire",
// "base" for a baseline, or "peer".
func barGroup(impl string) string {
	switch {
	case impl == "mcpwire":
		return "mcpwire"
	case baselines[impl]:
		return "base"
	}
	return "peer"
}

func allZero(v plotter.Values) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// short labels a tick: 1.5k, 2M, 3G.
func short(v float64) string {
	for _, s := range []struct {
		div  float64
		unit string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if math.Abs(v) >= s.div {
			return num(math.Round(v/s.div*10)/10) + s.unit
		}
	}
	return num(v)
}
