// Package principal holds the one context key under which the caller's
// authenticated identity travels: package middleware puts it there (Auth,
// HTTPAuth) and reads it back (PrincipalFromContext), and mcp's HTTP
// handlers read it to count a caller's sessions (HTTPOptions.
// MaxSessionsPerPrincipal) without importing middleware.
package principal

import (
	"context"
	"fmt"
)

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

// ID returns the identity of the principal ctx carries, as text equal for
// every request of the same caller ("" when ctx carries none): a string
// principal is itself, a fmt.Stringer's its String (oauth.Principal's
// issuer and subject), any other value its Go syntax (a pointer by its
// address). A prefix tells the three kinds apart, so a string principal
// never equals a Stringer's. It is what sessions, requestStates and tasks
// are bound to.
func ID(ctx context.Context) string {
	p, ok := From(ctx)
	if !ok {
		return ""
	}
	switch p := p.(type) {
	case string:
		return "s:" + p
	case fmt.Stringer:
		return "t:" + p.String()
	default: // %#v: a pointer by its address, a value by its content
		return fmt.Sprintf("v:%T %#v", p, p)
	}
}
