package main

// decimal is a counter kept as its decimal text: adding one to the text
// costs less than formatting a number for every request sent.
type decimal struct {
	digits [20]byte // enough for any uint64
	start  int      // the text is digits[start:]
}

// newDecimal returns a counter at 1.
func newDecimal() decimal {
	d := decimal{start: len(decimal{}.digits) - 1}
	d.digits[d.start] = '1'
	return d
}

// text is the counter's value in decimal, valid until the next inc.
func (d *decimal) text() []byte { return d.digits[d.start:] }

// inc adds one.
func (d *decimal) inc() {
	for i := len(d.digits) - 1; i >= d.start; i-- {
		if d.digits[i] != '9' {
			d.digits[i]++
			return
		}
		d.digits[i] = '0'
	}
	d.start--
	d.digits[d.start] = '1'
}
