//go:build race

package soak

// soakSize under the race detector, which slows the run ten times and
// bounds the goroutines alive at once: a smaller run, the same mix.
var soakSize = size{requests: 200_000, clients: 64, window: 16, perConn: [2]int{200, 2_000}, cut: 0.2, heapSlack: 8 << 20}

// raceBuild says whether the race detector is on: timing bounds hold only
// without it.
const raceBuild = true
