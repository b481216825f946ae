package mcp

// ParamHeaders returns the parameters of the named tool that clients
// mirror into headers over HTTP (its x-mcp-header annotations, as
// ToolParamHeaders reads them); nil for a tool without any, or none of
// that name. The slice is shared: do not modify it. Safe for concurrent
// use.
func (s *Server) ParamHeaders(tool string) []ParamHeader {
	if !s.paramHeaders.Load() {
		return nil // no tool has any
	}
	st, ok := s.tools.get(tool)
	if !ok {
		return nil
	}
	return st.headers
}
