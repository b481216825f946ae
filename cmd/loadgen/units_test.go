package main

import "testing"

func TestUnits(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{thousands(0), "0"}, {thousands(999), "999"}, {thousands(1000), "1,000"},
		{thousands(1_234_567), "1,234,567"}, {thousands(-1_234), "-1,234"},
		{latencyText(850), "850.0µs"}, {latencyText(1_250), "1.25ms"}, {latencyText(2_100_000), "2.10s"},
		{axisLatency(0), "0"}, {axisLatency(500), "500µs"}, {axisLatency(2_500), "2.5ms"}, {axisLatency(12_000), "12ms"},
		{byteText(999), "999 B"}, {byteText(1_500), "1.5 KB"}, {byteText(999_999), "1.0 MB"},
		{byteText(12_000_000), "12.0 MB"}, {byteText(5_000_000_000_000), "5000.0 GB"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
