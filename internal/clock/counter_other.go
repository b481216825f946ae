//go:build !linux || !amd64 || purego

package clock

// ticks is never called where the counter is not used.
func ticks() uint64 { return 0 }

// counterUsable reports false: Now is time.Since here.
func counterUsable() bool { return false }
