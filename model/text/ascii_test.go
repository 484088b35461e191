package text

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestPrintableASCIIIsTheByteByByteCheck: the 32-bytes-a-step check says
// what a check of each byte says, for random lengths and bytes around
// every edge (0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff) anywhere in a step, and
// what it passes the output guards leave as it is.
func TestPrintableASCIIIsTheByteByByteCheck(t *testing.T) {
	edges := []byte{0, '\t', '\n', '\r', 0x1f, 0x20, 'a', '~', 0x7f, 0x80, 0x9b, 0xc3, 0xe2, 0xff}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		p := make([]byte, r.IntN(100))
		for i := range p {
			p[i] = byte(0x20 + r.IntN(0x5f))
		}
		for range r.IntN(3) {
			if len(p) > 0 {
				p[r.IntN(len(p))] = edges[r.IntN(len(edges))]
			}
		}
		want := true
		for _, c := range p {
			if c < 0x20 || c > 0x7e {
				want = false
			}
		}
		if got := PrintableASCII(p); got != want {
			t.Fatalf("PrintableASCII(%q) = %v, want %v", p, got, want)
		}
		if got := PrintableASCII(string(p)); got != want {
			t.Fatalf("PrintableASCII(string %q) = %v, want %v", p, got, want)
		}
		if want && (!bytes.Equal(JSONSafe(p), p) || !bytes.Equal(SanitizeOutput(p), p) || Sanitize(string(p)) != string(p)) {
			t.Fatalf("%q: printable, but a guard changes it", p)
		}
	}
}
