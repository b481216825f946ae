//go:build !linux

package bench

import "testing"

// printPeak is W7's, which reads Linux's /proc: elsewhere W7 does not run.
func printPeak(testing.TB) {}
