package text

import (
	"strings"
	"testing"
)

// BenchmarkOutputGuards is the two checks every byte koff get prints goes
// through (JSONSafe, then the stdout guard's SanitizeOutput), on a
// printable body of a million partitions' size (-short: a tenth).
func BenchmarkOutputGuards(b *testing.B) {
	n := 100 << 20
	if testing.Short() {
		n /= 10
	}
	body := []byte(strings.Repeat(`{"partition":{"cluster":"primary","partition":0,"topic":"orders.region-0.topic-1"},"offset":{"offset":0}},`, n/100))
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for range b.N {
		if len(SanitizeOutput(JSONSafe(body))) != len(body) {
			b.Fatal("changed")
		}
	}
}

// BenchmarkPrintableASCII is the check koff get makes of each body before
// it writes it unchanged past both guards.
func BenchmarkPrintableASCII(b *testing.B) {
	body := []byte(strings.Repeat(`{"partition":{"cluster":"primary","partition":0,"topic":"orders.region-0.topic-1"},"offset":{"offset":0}},`, (10<<20)/100))
	b.SetBytes(int64(len(body)))
	for range b.N {
		if !PrintableASCII(body) {
			b.Fatal("not printable")
		}
	}
}
