package middleware

import (
	"slices"

	"github.com/mcpwire/mcpwire/router"
)

// Chain composes mw into one router.Middleware, mw[0] outermost: the order
// router.Router.Use applies them in (see the package documentation for the
// order this package's middleware is meant to run in). Nil entries are
// skipped; with none left, the result returns the handler it wraps as it
// is. It panics, when applied, if a middleware returns a nil Handler.
func Chain(mw ...router.Middleware) router.Middleware {
	mw = slices.DeleteFunc(slices.Clone(mw), func(m router.Middleware) bool { return m == nil })
	return func(next router.Handler) router.Handler {
		for i := len(mw) - 1; i >= 0; i-- {
			if next = mw[i](next); next == nil {
				panic("middleware: a middleware of Chain returned a nil Handler")
			}
		}
		return next
	}
}
