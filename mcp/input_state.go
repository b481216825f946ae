package mcp

import "encoding/binary"

// The payload a requestState seals (package internal/sealed adds the
// expiry, the binding and the authentication):
//
//	format (1 byte) | uvarint n | handler state (n bytes) | answer…
//
// where each answer is
//
//	method code (1 byte, inputMethods) | uvarint n | key (n bytes) | uvarint m | result (m bytes of JSON)
//
// The results are the client's answers as its requests carried them,
// which the codec's scanner validated when they came in.
const stateFormat = 1

// encode returns the payload of the next round's requestState: the
// handler's state st and the answers used so far.
func (r *inputRound) encode(st []byte) []byte {
	n := 1 + binary.MaxVarintLen64 + len(st)
	for _, in := range r.used {
		n += 1 + 2*binary.MaxVarintLen64 + len(in.key) + len(in.answer)
	}
	b := make([]byte, 0, n)
	b = append(b, stateFormat)
	b = binary.AppendUvarint(b, uint64(len(st)))
	b = append(b, st...)
	for _, in := range r.used {
		b = append(b, methodCode(in.method))
		b = binary.AppendUvarint(b, uint64(len(in.key)))
		b = append(b, in.key...)
		b = binary.AppendUvarint(b, uint64(len(in.answer)))
		b = append(b, in.answer...)
	}
	return b
}

// decode reads a payload encode wrote into r's carried state and earlier
// answers, and reports whether it was one.
func (r *inputRound) decode(p []byte) bool {
	if len(p) == 0 || p[0] != stateFormat {
		return false
	}
	p = p[1:]
	next := func() ([]byte, bool) {
		n, k := binary.Uvarint(p)
		if k <= 0 || n > uint64(len(p)-k) {
			return nil, false
		}
		v := p[k : k+int(n) : k+int(n)]
		p = p[k+int(n):]
		return v, true
	}
	st, ok := next()
	if !ok {
		return false
	}
	if len(st) > 0 {
		r.carried = st
	}
	for len(p) > 0 {
		code := int(p[0])
		p = p[1:]
		if code == 0 || code >= len(inputMethods) {
			return false
		}
		key, ok := next()
		if !ok {
			return false
		}
		answer, ok := next()
		if !ok {
			return false
		}
		r.earlier = append(r.earlier, input{key: string(key), method: inputMethods[code], answer: answer})
	}
	return true
}
