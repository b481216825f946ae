package main

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-analyze/charts"

	"github.com/mcpwire/mcpwire/internal/testproc"
)

// sampleReport is a realistic report: a closed-loop run of 15 seconds
// with a slow start, a stall at 9s, error answers of two codes and
// transport errors, and a distribution with a spike at the 99th
// percentile.
func sampleReport() *Report {
	r := &Report{
		Target:        "http://127.0.0.1:8080/rpc",
		Mode:          "closed",
		Conns:         8,
		Depth:         16,
		Call:          "echo",
		Start:         time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC),
		DurationS:     15.02,
		Requests:      1_412_337,
		Notifications: 120,
		Responses:     1_412_201,
		OK:            1_411_950,
		Errors:        401,
		ErrorCodes:    map[string]int64{"-32601": 200, "-32000": 51},
		ErrorSamples: map[string]string{
			"-32601": `{"code":-32601,"message":"Method not found"}`,
			"-32000": `{"code":-32000,"message":"Server overloaded","data":{"retryAfterMs":50}}`,
		},
		TransportErrors: 14,
		Lost:            136,
		ThroughputRPS:   94_021.6,
		BytesSent:       141_233_700,
		BytesReceived:   183_586_130,
		LatencyUS:       Latency{Min: 61, Mean: 1_340, P50: 1_180, P90: 1_910, P99: 9_850, P999: 14_200, Max: 48_700},
		CPU:             CPU{UserS: 9.8, SystemS: 6.1, Cores: 1.06, Machine: 2, Procs: 2},
		Warnings:        []string{"loadgen used 1.06 of 2 cores: the generator may be what was measured"},
	}
	for i := range 15 {
		rps := 95_000 + 4_000*math.Sin(float64(i))
		p50, p99 := 1_100+80*math.Cos(float64(i)), 2_600+600*math.Sin(float64(i)/2)
		top := 6_000 + 1_500*math.Sin(float64(i)*1.7)
		switch i {
		case 0: // warming up
			rps, p50, p99, top = 61_000, 1_900, 7_400, 21_000
		case 8: // a stall
			rps, p50, p99, top = 38_000, 2_800, 12_900, 48_700
		}
		r.Timeline = append(r.Timeline, Interval{
			TS: float64(i + 1), Responses: int64(rps), RPS: rps,
			P50US: p50, P99US: p99, MaxUS: top, Errors: int64(i % 3),
		})
	}
	r.Timeline[14].TS = 15.02
	r.Percentiles = []Percentile{
		{0, 61}, {10, 640}, {20, 790}, {30, 900}, {40, 1_040}, {50, 1_180}, {60, 1_300},
		{70, 1_450}, {80, 1_640}, {90, 1_910}, {95, 2_300}, {98, 3_100},
		{99, 9_850}, // the spike: the slowest 1% wait four times longer
		{99.5, 11_200}, {99.9, 14_200}, {99.99, 21_800}, {99.999, 39_000}, {100, 48_700},
	}
	return r
}

// render writes the report with writeHTML and returns the page.
func render(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := writeHTML(&b, r); err != nil {
		t.Fatalf("writeHTML: %v", err)
	}
	return b.String()
}

// remoteRef finds attributes and CSS that would load something from the
// network.
var remoteRef = regexp.MustCompile(`(?i)(?:\b(?:src|href|srcset|action|data)\s*=\s*["']?\s*(?:https?:)?//)|url\(\s*["']?\s*(?:https?:)?//|@import`)

func TestWriteHTML_isOfflineWithThreeCharts(t *testing.T) {
	page := render(t, sampleReport())
	if m := remoteRef.FindString(page); m != "" {
		t.Errorf("the page refers to the network: %q", m)
	}
	if n := strings.Count(page, "<svg"); n != 3 {
		t.Errorf("%d <svg> elements, want 3", n)
	}
	if !strings.Contains(page, `http-equiv="Content-Security-Policy" content="default-src 'none';`) {
		t.Error("no Content-Security-Policy that forbids loading")
	}
	for _, want := range []string{
		"1,412,337", "94,022 answers/s", "code -32601: 200", "code -32000: 51", "transport: 14",
		"lost: 136", "9.85ms", "48.70ms", "1.06 cores of 2", "141.2 MB", "the generator may be what was measured",
		"first error -32601: {&#34;code&#34;:-32601,&#34;message&#34;:&#34;Method not found&#34;}",
		"first error -32000: {&#34;code&#34;:-32000,&#34;message&#34;:&#34;Server overloaded&#34;",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestWriteHTML_escapesReportText(t *testing.T) {
	const hostile = `<script>alert(1)</script>`
	r := sampleReport()
	r.Target = hostile
	r.Call = `"><img src=x onerror=alert(2)>`
	r.Warnings = []string{hostile}
	r.Failed = []string{hostile}
	r.ErrorCodes = map[string]int64{hostile: 1}
	r.ErrorSamples = map[string]string{"-32603": hostile}
	page := render(t, r)
	for _, bad := range []string{"<script>alert", "<img src=x"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	if n := strings.Count(page, "&lt;script&gt;alert(1)&lt;/script&gt;"); n < 6 {
		t.Errorf("the hostile target is escaped %d times, want at least 6 (title, heading, table, error sample, warning, failed)", n)
	}
	if n := strings.Count(page, "<script>"); n != 1 {
		t.Errorf("%d <script> elements, want only the page's own", n)
	}
}

func TestWriteHTML_saysNoData(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(*Report)
		noData int
	}{
		{"no responses", func(r *Report) {
			*r = Report{Target: "tcp://127.0.0.1:1", Mode: "open", Rate: "1000", Call: "echo", Lost: 5, Errors: 5}
		}, 3},
		{"intervals without answers", func(r *Report) {
			r.Percentiles = nil
			for i := range r.Timeline {
				r.Timeline[i] = Interval{TS: float64(i + 1)}
			}
		}, 2},
		{"one interval and one percentile", func(r *Report) {
			r.Timeline = r.Timeline[:1]
			r.Percentiles = []Percentile{{100, 870}}
		}, 0},
		{"a flat distribution", func(r *Report) {
			r.Percentiles = []Percentile{{0, 0}, {50, 0}, {100, 0}}
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sampleReport()
			tc.edit(r)
			page := render(t, r)
			if n := strings.Count(page, `class="nodata"`); n != tc.noData {
				t.Errorf("%d charts say no data, want %d", n, tc.noData)
			}
			if n := strings.Count(page, "<svg"); n != 3-tc.noData {
				t.Errorf("%d charts drawn, want %d", n, 3-tc.noData)
			}
		})
	}
}

func TestWriteHTML_refusesNil(t *testing.T) {
	if err := writeHTML(&bytes.Buffer{}, nil); err == nil {
		t.Error("no error for a nil report")
	}
}

func TestTimeLabels(t *testing.T) {
	got := timeLabels([]Interval{{TS: 1.00007}, {TS: 2.0001}, {TS: 2.5}, {TS: 3.00008}, {TS: 3.0023}})
	want := []string{"1s", "2s", "2.5s", "3s", "3.002s"}
	if !slices.Equal(got, want) {
		t.Errorf("labels %q, want %q", got, want)
	}
}

func TestPercentilePoints_logScale(t *testing.T) {
	labels, us := percentilePoints(sampleReport().Percentiles)
	var named []string
	for _, l := range labels {
		if l != "" {
			named = append(named, l)
		}
	}
	want := []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "max"}
	if !slices.Equal(named, want) {
		t.Errorf("labels %q, want %q", named, want)
	}
	if n := 5*pointsPerDecade + 3; len(labels) != n { // 5 decades, 0%, a gap, max
		t.Errorf("%d points, want %d", len(labels), n)
	}
	// at the decades the latency is the distribution's own
	at := map[string]float64{"0%": 61, "90%": 1_910, "99%": 9_850, "99.9%": 14_200, "99.99%": 21_800, "99.999%": 39_000, "max": 48_700}
	for i, l := range labels {
		if w, ok := at[l]; ok && math.Abs(us[i]-w) > 1e-6*w {
			t.Errorf("at %s: %v µs, want %v", l, us[i], w)
		}
	}
	curve := us[:len(us)-2] // before the gap and the maximum
	if !slices.IsSorted(curve) {
		t.Errorf("latencies not rising with the percentile: %v", curve)
	}
}

func TestPercentilePoints_unsortedAndShort(t *testing.T) {
	labels, us := percentilePoints([]Percentile{{100, 900}, {50, 100}, {0, 10}})
	if labels[0] != "0%" || labels[pointsPerDecade] != "90%" || labels[len(labels)-1] != "max" || len(labels) != pointsPerDecade+3 {
		t.Errorf("labels %q", labels)
	}
	if us[0] != 10 || us[len(us)-1] != 900 {
		t.Errorf("ends %v and %v, want 10 and 900", us[0], us[len(us)-1])
	}
	// 90% lies between 50% (100µs) and 100% (900µs): 100 + 800*40/50
	if got := us[pointsPerDecade]; math.Abs(got-740) > 1e-9 {
		t.Errorf("at 90%%: %v, want 740", got)
	}
	if l, u := percentilePoints(nil); l != nil || u != nil {
		t.Errorf("points of an empty distribution: %q %v", l, u)
	}
}

// TestWriteHTML_inChromium opens the sample report, and the one a real
// run writes with -html, in headless Chromium: no console message (a
// script error, a resource the page's policy refused), the three charts
// laid out at a visible size, and a screenshot that is not blank. It is
// skipped without Chromium unless MCPWIRE_CHROMIUM=required.
func TestWriteHTML_inChromium(t *testing.T) {
	bin := testproc.ChromiumPath(t)
	t.Run("sample", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "report.html")
		if err := os.WriteFile(path, []byte(render(t, sampleReport())), 0o644); err != nil {
			t.Fatal(err)
		}
		openInChromium(t, bin, path)
	})
	t.Run("run", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "report.html")
		if _, code, out := load(t, "-d", "3s", "-c", "2", "-depth", "4", "-html", path); code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		openInChromium(t, bin, path)
	})
}

// openInChromium checks the report page at path in Chromium.
func openInChromium(t *testing.T, bin, path string) {
	dir := filepath.Dir(path)
	page := (&url.URL{Scheme: "file", Path: path}).String()

	dom := chromium(t, bin, page, "--dump-dom")
	if !strings.Contains(dom, `data-charts-visible="3"`) {
		i := strings.Index(dom, "<body")
		t.Errorf("the page's script did not count 3 visible charts; body: %.200s", dom[max(i, 0):])
	}

	shot := filepath.Join(dir, "report.png")
	chromium(t, bin, page, "--screenshot="+shot, "--window-size=1280,2400")
	t.Logf("screenshot: %s", shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	inked, colours := ink(img)
	t.Logf("screenshot: %.1f%% of the pixels not white, %d colours", 100*inked, colours)
	if inked < 0.06 || colours < 50 { // the sample page inks about 13%, a real run 7%, either 4% without charts
		t.Errorf("the screenshot looks blank: %.1f%% of the pixels not white, %d colours", 100*inked, colours)
	}
}

// chromium runs headless Chromium on a page with the given flags, fails
// the test on any console message it logged, and returns what it wrote to
// its standard output.
func chromium(t *testing.T, bin, page string, flags ...string) string {
	t.Helper()
	out, console := testproc.Chromium(t, bin, page, flags...)
	for line := range strings.Lines(console) {
		t.Errorf("chromium %s: console: %s", strings.Join(flags, " "), strings.TrimSpace(line))
	}
	return out
}

// ink measures a picture: the share of its pixels that are not white (or
// nearly), and how many colours it has.
func ink(img image.Image) (share float64, colours int) {
	b := img.Bounds()
	seen := make(map[[3]uint32]bool)
	var n int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if r>>8 < 0xf0 || g>>8 < 0xf0 || bl>>8 < 0xf0 {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy()), len(seen)
}

// TestLatencyChart_logScale: latency over time is drawn on a log scale
// labelled at whole decades, so a p50 of 1ms shows under a max of 50ms
// rather than flat along the bottom of a linear axis.
func TestLatencyChart_logScale(t *testing.T) {
	svg, err := latencyChart(sampleReport().Timeline)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, m := range regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(string(svg), -1) {
		labels = append(labels, m[1])
	}
	for _, want := range []string{"1ms", "10ms", "100ms", "log scale"} {
		if !slices.Contains(labels, want) {
			t.Errorf("no label %q on the chart: %q", want, labels)
		}
	}
	for _, linear := range []string{"0", "20ms", "40ms"} {
		if slices.Contains(labels, linear) {
			t.Errorf("label %q of a linear axis on the chart: %q", linear, labels)
		}
	}
}

func TestLogLatency(t *testing.T) {
	out, lo, hi := logLatency([]float64{math.NaN(), 1_180}, []float64{math.NaN(), 48_700}, []float64{0, 2})
	if lo != 0 || hi != 5 {
		t.Errorf("axis %v..%v, want 0..5 (1µs, the floor of 0, to 100ms)", lo, hi)
	}
	if out[0][0] != charts.GetNullValue() {
		t.Errorf("a gap became %v, a value on the axis", out[0][0])
	}
	if got := out[0][1]; math.Abs(got-math.Log10(1_180)) > 1e-12 {
		t.Errorf("1,180µs at %v, want log10", got)
	}
	if out[2][0] != 0 {
		t.Errorf("0µs at %v, want the floor 1µs (0)", out[2][0])
	}
	if _, lo, hi := logLatency([]float64{1000, 1000}); lo != 3 || hi != 4 {
		t.Errorf("one value: axis %v..%v, want 3..4", lo, hi)
	}
}
