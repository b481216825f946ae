package codec

// Member returns the value of the member name (matched after unescaping)
// of obj, a JSON object a Scanner has validated, and whether obj has one:
// the first such member. The value is a view into obj. It does not
// allocate for names of up to 64 bytes.
func Member(obj []byte, name string) ([]byte, bool) {
	var it Members
	var scratch [64]byte
	for it.Reset(obj); it.Next(); {
		if string(it.Name(scratch[:0])) == name {
			return it.Value(), true
		}
	}
	return nil, false
}
