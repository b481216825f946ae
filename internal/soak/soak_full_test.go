//go:build !race

package soak

// soakSize is the soak: 1,000,000 messages from 64 clients.
var soakSize = size{requests: 1_000_000, clients: 64, window: 64, perConn: [2]int{500, 4_000}, cut: 0.2, heapSlack: 8 << 20}

// raceBuild says whether the race detector is on: timing bounds hold only
// without it.
const raceBuild = false
