package sealed

import (
	"slices"
	"testing"
)

// FuzzOpen: Open never panics, refuses with one of the package's errors,
// and accepts only a token sealed under the test's key, which only the
// seeds below are: an accepted token gives back a seed's payload. (The
// fuzzing workers are processes of their own, each sealing its seeds
// anew, so a worker may meet the coordinator's seeds rather than its
// own: what is checked is the payload, not the token's text.) The
// corpus in testdata holds tokens of a ring with the same key sealed
// long ago (authentic but expired), altered ones and non-tokens.
func FuzzOpen(f *testing.F) {
	r := newRing(f, &Options{Keys: []Key{testKey(7)}, MaxPayload: 256})
	payloads := []string{"", "state", `{"step":2,"answers":{"login":"octocat"}}`}
	for _, p := range payloads {
		tok := seal(f, r, p, testBinding)
		f.Add(tok)
		f.Add(tok + "-TAMPERED")
		f.Add(tok[:len(tok)-1])
	}
	f.Fuzz(func(t *testing.T, token string) {
		got, err := r.Open(token, testBinding)
		switch {
		case err == nil && !slices.Contains(payloads, string(got)):
			t.Fatalf("Open accepted %q, which the test did not seal, giving %q", token, got)
		case err != nil && !isRefusal(err):
			t.Fatalf("Open(%q) failed with %v, not one of the package's errors", token, err)
		case err != nil && got != nil:
			t.Fatalf("Open(%q) refused (%v) but returned %q", token, err, got)
		}
	})
}
