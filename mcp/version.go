package mcp

import "slices"

// Protocol versions this package speaks, newest first.
const (
	// Version20260728 is stateless: it has no initialize, and each
	// request carries its version and the client's capabilities in
	// _meta (see StatelessVersions).
	Version20260728 = "2026-07-28"
	Version20251125 = "2025-11-25"
	Version20250618 = "2025-06-18"
	Version20250326 = "2025-03-26"
	Version20241105 = "2024-11-05"

	// LatestVersion is the newest version that has initialize (the
	// latest of the stateful versions, SupportedVersions): what
	// initialize answers with when it does not support the one the
	// client asked for, and what a client asks initialize for when it
	// falls back from a stateless version or speaks over a transport
	// that has only the stateful versions (Client.ConnectStateful). It
	// is not the newest version this package speaks: that is
	// DefaultClientVersion.
	LatestVersion = Version20251125

	// DefaultClientVersion is the version a Client speaks when
	// ClientOptions.ProtocolVersion is empty: the newest, stateless, one
	// (the session falls back to initialize with servers of the older
	// versions).
	DefaultClientVersion = Version20260728
)

// supportedVersions lists the versions negotiated at initialize, newest
// first.
var supportedVersions = []string{Version20251125, Version20250618, Version20250326, Version20241105}

// statelessVersions lists the versions served request by request, newest
// first: a request whose _meta names one of them needs no initialize.
var statelessVersions = []string{Version20260728}

// allVersions lists every version the server speaks, newest first: what
// server/discover and -32022 answer with.
var allVersions = slices.Concat(statelessVersions, supportedVersions)

// SupportedVersions returns the protocol versions this package negotiates
// at initialize, newest first. The stateless versions, which have no
// initialize, are apart (StatelessVersions).
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

// StatelessVersions returns the protocol versions a server serves
// request by request, without initialize (2026-07-28 and later), newest
// first. A request names its version in _meta
// (io.modelcontextprotocol/protocolVersion).
func StatelessVersions() []string { return slices.Clone(statelessVersions) }

// IsStatelessVersion reports whether v is one of StatelessVersions.
func IsStatelessVersion(v string) bool { return slices.Contains(statelessVersions, v) }
