//go:build !race

package streamable_test

const raceEnabled = false
