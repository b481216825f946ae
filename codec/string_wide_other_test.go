//go:build !amd64 || purego

package codec

// wideModes are the string loops this build can run: the portable one.
func wideModes() []wideMode { return []wideMode{{"portable", false, false}} }

// defaultWide is the loop chosen at initialisation.
var defaultWide = wideMode{"portable", false, false}

// setWide does nothing: the portable loop is the only one.
func setWide(wideMode) {}
