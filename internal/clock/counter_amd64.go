//go:build linux && !purego

package clock

import (
	"bytes"
	"os"
)

// ticks reads the CPU's time-stamp counter (RDTSC, unordered).
func ticks() uint64

// clocksource is where Linux names the clock it keeps time with.
const clocksource = "/sys/devices/system/clocksource/clocksource0/current_clocksource"

// counterUsable reports whether the kernel keeps time with the counter,
// which it does only when the counter is invariant and in step across CPUs.
func counterUsable() bool {
	b, err := os.ReadFile(clocksource)
	return err == nil && string(bytes.TrimSpace(b)) == "tsc"
}
