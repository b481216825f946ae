// Package principal holds the one context key under which the caller's
// authenticated identity travels: package middleware puts it there (Auth,
// HTTPAuth) and reads it back (PrincipalFromContext), and mcp's HTTP
// handlers read it to count a caller's sessions (HTTPOptions.
// MaxSessionsPerPrincipal) without importing middleware.
package principal

import "context"

type key struct{}

// With returns a copy of ctx carrying the principal p.
func With(ctx context.Context, p any) context.Context {
	return context.WithValue(ctx, key{}, p)
}

// From returns the principal ctx carries, and whether there is one: a nil
// principal reads as none.
func From(ctx context.Context) (any, bool) {
	p := ctx.Value(key{})
	return p, p != nil
}
