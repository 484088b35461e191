package model

import (
	"testing"
)

// Table sizes as java.util.HashMap grows (resize past 0.75 of the table)
// and as new HashSet<>(collection) sizes it on Java 17.
func TestJavaHashTableSizes(t *testing.T) {
	for k, want := range map[int]uint32{1: 16, 12: 16, 13: 32, 24: 32, 25: 64, 48: 64, 49: 128} {
		if got := hashMapCapacity(k); got != want {
			t.Errorf("HashMap after %d puts: %d buckets, want %d", k, got, want)
		}
	}
	for n, want := range map[int]uint32{1: 16, 11: 16, 12: 32, 25: 64, 50: 128} {
		if got := hashSetCapacity(n); got != want {
			t.Errorf("new HashSet of %d: %d buckets, want %d", n, got, want)
		}
	}
}
