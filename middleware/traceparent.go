package middleware

import "strings"

// W3C Trace Context (https://www.w3.org/TR/trace-context/): the syntax of
// the traceparent and tracestate values, checked before they are handed
// on. Nothing here allocates.

// validTraceparent reports whether s is a traceparent a receiver may use:
// version-traceId-parentId-flags in lowercase hex, 2-32-16-2 digits;
// version ff is invalid, and so is a trace id or parent id of all zeros.
// Version 00 is exactly 55 characters; a later version may go on after
// the flags, behind a '-' (the specification's rule for versions it does
// not know yet).
func validTraceparent(s string) bool {
	if len(s) < 55 || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return false
	}
	version, traceID, parentID, flags := s[0:2], s[3:35], s[36:52], s[53:55]
	if !lowerHex(version) || version == "ff" || !lowerHex(traceID) || !lowerHex(parentID) || !lowerHex(flags) {
		return false
	}
	if allZeros(traceID) || allZeros(parentID) {
		return false
	}
	if version == "00" {
		return len(s) == 55
	}
	return len(s) == 55 || s[55] == '-'
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func allZeros(s string) bool {
	return strings.Trim(s, "0") == ""
}

// Tracestate's bounds: 32 list members; and, ours, the whole value (the
// specification asks receivers to keep at least 512 characters).
const (
	maxTracestateMembers = 32
	maxTracestateBytes   = 8192
)

// validTracestate reports whether s is a tracestate list: members
// key=value separated by commas with optional spaces and tabs around them
// (empty members allowed), at most 32 of them, keys unique. A key is
// lcalpha then up to 255 of lcalpha, digit, _ - * /; or tenant@system
// (tenant: lcalpha or digit then up to 240 more, system: lcalpha then up to
// 13 more). A value is 1 to 256 printable ASCII characters other than ','
// and '=', not ending with a space.
func validTracestate(s string) bool {
	if len(s) > maxTracestateBytes {
		return false
	}
	var keys [maxTracestateMembers]string
	n := 0
	for member := range strings.SplitSeq(s, ",") {
		member = strings.Trim(member, " \t")
		if member == "" {
			continue
		}
		key, value, ok := strings.Cut(member, "=")
		if !ok || !validTracestateKey(key) || !validTracestateValue(value) || n == maxTracestateMembers {
			return false
		}
		for _, k := range keys[:n] {
			if k == key {
				return false
			}
		}
		keys[n] = key
		n++
	}
	return true
}

func validTracestateKey(k string) bool {
	tenant, system, multi := strings.Cut(k, "@")
	if !multi {
		return len(k) >= 1 && len(k) <= 256 && isLcalpha(k[0]) && keyChars(k[1:])
	}
	return len(tenant) >= 1 && len(tenant) <= 241 && (isLcalpha(tenant[0]) || isDigit(tenant[0])) && keyChars(tenant[1:]) &&
		len(system) >= 1 && len(system) <= 14 && isLcalpha(system[0]) && keyChars(system[1:])
}

func keyChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isLcalpha(c) && !isDigit(c) && c != '_' && c != '-' && c != '*' && c != '/' {
			return false
		}
	}
	return true
}

func validTracestateValue(v string) bool {
	if len(v) < 1 || len(v) > 256 || v[len(v)-1] == ' ' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e || c == ',' || c == '=' {
			return false
		}
	}
	return true
}

func isLcalpha(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool   { return c >= '0' && c <= '9' }
