package echo

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/bytedance/sonic"
)

// codecFuncs are the two halves of a JSON library the naive loop uses.
type codecFuncs struct {
	unmarshal func([]byte, any) error
	marshal   func(any) ([]byte, error)
}

var (
	stdJSON   = codecFuncs{json.Unmarshal, json.Marshal}
	sonicJSON = codecFuncs{sonic.Unmarshal, sonic.Marshal}
)

// naiveRequest is what the naive loop decodes: params stay raw until the
// method is known.
type naiveRequest struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id"`
	Method  string           `json:"method"`
	Params  json.RawMessage  `json:"params"`
}

// naiveResponse is what it answers.
type naiveResponse struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id"`
	Result  *string          `json:"result,omitempty"`
	Error   *naiveError      `json:"error,omitempty"`
}

type naiveError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// naiveServer is the baseline: a bufio line loop per stream.
type naiveServer struct {
	c codecFuncs
	streams
}

func newNaive(c codecFuncs) Server { return &naiveServer{c: c} }

func (s *naiveServer) ServeConn(rwc io.ReadWriteCloser) {
	s.add(rwc, func() { s.loop(rwc) })
}

func (s *naiveServer) Close() { s.closeAll() }

// loop answers each line: an object, or a batch as an array of them.
func (s *naiveServer) loop(rwc io.ReadWriteCloser) {
	defer rwc.Close()
	br := bufio.NewReaderSize(rwc, 64<<10)
	bw := bufio.NewWriterSize(rwc, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
		if err == bufio.ErrBufferFull { // a long line: gather the rest
			rest, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			line = append(line[:len(line):len(line)], rest...)
		}
		if out := s.answer(line); out != nil {
			bw.Write(out)
			bw.WriteByte('\n')
		}
		if br.Buffered() == 0 && bw.Flush() != nil {
			return
		}
	}
}

// answer returns the answer to one line, or nil for none.
func (s *naiveServer) answer(line []byte) []byte {
	var out any
	if first := firstByte(line); first == '[' {
		var reqs []naiveRequest
		if err := s.c.unmarshal(line, &reqs); err != nil {
			out = parseError()
		} else {
			var all []naiveResponse
			for i := range reqs {
				if reqs[i].ID != nil {
					all = append(all, s.call(&reqs[i]))
				}
			}
			if len(all) == 0 {
				return nil
			}
			out = all
		}
	} else {
		var req naiveRequest
		if err := s.c.unmarshal(line, &req); err != nil {
			out = parseError()
		} else if req.ID == nil {
			return nil
		} else {
			out = s.call(&req)
		}
	}
	b, err := s.c.marshal(out)
	if err != nil {
		return nil
	}
	return b
}

// call runs one request.
func (s *naiveServer) call(req *naiveRequest) naiveResponse {
	res := naiveResponse{JSONRPC: "2.0", ID: req.ID}
	var p []string
	switch {
	case req.Method != Method:
		res.Error = &naiveError{-32601, "method not found"}
	case s.c.unmarshal(req.Params, &p) != nil || len(p) != 1:
		res.Error = &naiveError{-32602, errNotOne.Error()}
	default:
		res.Result = &p[0]
	}
	return res
}

func parseError() naiveResponse {
	null := json.RawMessage("null")
	return naiveResponse{JSONRPC: "2.0", ID: &null, Error: &naiveError{-32700, "parse error"}}
}

// firstByte returns the first byte of line that is not white space.
func firstByte(line []byte) byte {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}
