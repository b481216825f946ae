//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time this process has used: user and system.
func cpuTime() (user, system time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
