//go:build race

package streamable_test

// raceEnabled reports a build with the race detector, which allocates
// on its own: allocation budgets do not hold under it.
const raceEnabled = true
