package main

import "github.com/mcpwire/mcpwire/codec"

// resultPrefix begins the answers servers write most: a result to a
// request of loadgen's, whose ids are numbers.
const resultPrefix = `{"jsonrpc":"2.0","id":`

// fastResult reads an answer laid out as {"jsonrpc":"2.0","id":N,"result":R}
// with no white space: its id and result. Anything else (an error, a
// batch, another order or spacing) is left to the Scanner (ok false).
// The result is checked as SkipValue checks (strings, numbers, literals),
// not how its brackets nest; -expect checks it in full. It is not checked
// again when it is byte for byte *passed, the text of the last result that
// passed (kept there): most runs get the same answer again and again.
func fastResult(msg []byte, passed *[]byte) (id uint64, result []byte, ok bool) {
	if len(msg) < len(resultPrefix)+13 || string(msg[:len(resultPrefix)]) != resultPrefix || msg[len(msg)-1] != '}' {
		return 0, nil, false
	}
	i := len(resultPrefix)
	start := i
	for ; i < len(msg) && msg[i] >= '0' && msg[i] <= '9'; i++ {
		if i-start == 19 {
			return 0, nil, false
		}
		id = id*10 + uint64(msg[i]-'0')
	}
	if i == start || (msg[start] == '0' && i-start > 1) {
		return 0, nil, false
	}
	const member = `,"result":`
	if len(msg)-i < len(member)+2 || string(msg[i:i+len(member)]) != member {
		return 0, nil, false
	}
	result = msg[i+len(member) : len(msg)-1]
	if string(result) == string(*passed) {
		return id, result, true
	}
	if end, err := codec.SkipValue(result, 0); err != nil || end != len(result) {
		return 0, nil, false
	}
	*passed = append((*passed)[:0], result...)
	return id, result, true
}
