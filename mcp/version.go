package mcp

import "slices"

// Protocol versions this package speaks, newest first.
const (
	Version20251125 = "2025-11-25"
	Version20250618 = "2025-06-18"
	Version20250326 = "2025-03-26"
	Version20241105 = "2024-11-05"

	// LatestVersion is the version a server answers with when it does not
	// support the one the client asked for.
	LatestVersion = Version20251125
)

// supportedVersions lists the versions negotiated at initialize, newest
// first.
var supportedVersions = []string{Version20251125, Version20250618, Version20250326, Version20241105}

// SupportedVersions returns the protocol versions this package negotiates,
// newest first.
func SupportedVersions() []string { return slices.Clone(supportedVersions) }

// negotiate returns the version to answer a client that asked for v: v
// itself when supported, else the latest.
func negotiate(v string) string {
	if slices.Contains(supportedVersions, v) {
		return v
	}
	return LatestVersion
}

// IsSupportedVersion reports whether v is one of SupportedVersions.
func IsSupportedVersion(v string) bool { return slices.Contains(supportedVersions, v) }

// AllowsBatches reports whether JSON-RPC batches are part of version v:
// only 2025-03-26 has them (2025-06-18 removed them again).
func AllowsBatches(v string) bool { return allowsBatches(v) }

func allowsBatches(v string) bool { return v == Version20250326 }
