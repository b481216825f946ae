package demoserver

import "encoding/base64"

// The media the fixtures serve: real files, as small as their formats
// allow, so a client can decode what it gets.
var (
	// pngPixel is a 1×1 red PNG (8-bit RGB), 69 bytes.
	pngPixel = mustBase64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC")
	// wavTone is 10 ms of a 440 Hz tone: PCM WAV, mono, 8 kHz, 8 bits
	// (80 samples), 124 bytes.
	wavTone = mustBase64("UklGRnQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YVAAAACAob/W4uLXwqSDYUIrHhwmO1h5m7rS4OPaxqqJZ0cvHxwkN1JzlbXP3+Pcy7CPbU0yIRwhMk1tj7DL3OPfz7WVc1I3JBwfL0dniarG2uPg0g==")
)

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic("demoserver: bad base64 constant: " + err.Error())
	}
	return b
}
