// Package valid is W5's material: the JSON validators bench compares,
// the 1 MiB mixed MCP stream they validate, and the malformed inputs
// that show how strict each one is.
package valid
