package router

// Middleware wraps a handler. It is called when a method is registered or the
// middleware changes, not per call, and must return a non-nil Handler.
type Middleware func(next Handler) Handler

// Use appends middleware, applied to every method (present and future), the
// first added outermost. Every registered method's Entry is rebuilt and the
// new table published at once, so a call sees either the old chain or the new
// one. Nil middleware is skipped.
func (r *Router) Use(mw ...Middleware) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.mw)
	for _, m := range mw {
		if m != nil {
			// A fresh slice: chains already built never share its array.
			r.mw = append(r.mw[:len(r.mw):len(r.mw)], m)
		}
	}
	if len(r.mw) == n {
		return
	}
	r.tab.Store(r.tab.Load().rewrap(r.mw))
}

// chain wraps h in mw, mw[0] outermost.
func chain(mw []Middleware, h Handler) Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
		if h == nil {
			panic("router: middleware returned a nil Handler")
		}
	}
	return h
}
