package sealed

import (
	"strconv"
	"sync"
	"testing"
)

// Seal and Open run concurrently with Rotate: every token sealed opens
// (the overlap outlasts the test), whichever key sealed it.
func TestRing_concurrentSealOpenRotate(t *testing.T) {
	const workers, perWorker, rotations = 4, 200, 50
	r := newRing(t, &Options{Keys: []Key{testKey(0)}})
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				payload := strconv.Itoa(w) + "/" + strconv.Itoa(i)
				b := Bind([]byte(payload))
				tok, err := r.Seal([]byte(payload), b)
				if err == nil {
					var got []byte
					got, err = r.Open(tok, b)
					if err == nil && string(got) != payload {
						t.Errorf("Open = %q, want %q", got, payload)
						return
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for i := range rotations {
		if err := r.Rotate(testKey(uint32(i + 1))); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := len(ids(r)); got != rotations+1 {
		t.Fatalf("the ring holds %d keys, want %d (all in their overlap)", got, rotations+1)
	}
}
