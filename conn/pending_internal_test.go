package conn

import (
	"strconv"
	"testing"
)

// TestParseID_agreesWithParseUint holds parseID's fast path to what
// strconv.ParseUint(id, 10, 64) answers.
func TestParseID_agreesWithParseUint(t *testing.T) {
	for _, id := range []string{
		"0", "1", "7", "007", "42", "18446744073709551615", "18446744073709551616",
		"9999999999999999999", "99999999999999999999", "1234567890123456789",
		"", "-1", "+1", "1_000", "1e3", "1.0", `"7"`, "null", " 7", "7 ", "0x10", "１",
	} {
		want, wantErr := strconv.ParseUint(id, 10, 64)
		got, err := parseID([]byte(id))
		if got != want || (err == nil) != (wantErr == nil) {
			t.Errorf("parseID(%q) = %d, %v; ParseUint: %d, %v", id, got, err, want, wantErr)
		}
	}
}
