package store

import (
	"testing"
	"time"

	"koff/model"
)

// TestWritePagesChangesNothing: WritePages of a block as make returns it
// leaves it zero, and writes nothing outside its capacity, whatever its
// element size and however it sits across pages.
func TestWritePagesChangesNothing(t *testing.T) {
	const size = 5*pageSize + 123
	for _, from := range []int{0, 1, 7, pageSize - 1, pageSize, pageSize + 40} {
		for _, n := range []int{0, 1, 2, 100, 3*pageSize + 1} {
			buf := make([]byte, size)
			for i := range buf {
				buf[i] = 0xff
			}
			s := buf[from : from+n : from+n]
			clear(s)
			WritePages(s)
			for i, b := range buf {
				inside := i >= from && i < from+n
				if inside && b != 0 || !inside && b != 0xff {
					t.Fatalf("block [%d,%d): byte %d is %#x after WritePages", from, from+n, i, b)
				}
			}
		}
	}
	// Blocks of elements with pointers, as the Store and the decoder make.
	updates := make([]model.Update, 3*256+1)
	WritePages(updates[:0])
	WritePages(updates)
	for i, u := range updates {
		if u.Value != nil || u.RecordOffset != 0 || !u.Time.Equal(time.Time{}) {
			t.Fatalf("update %d is %+v after WritePages", i, u)
		}
	}
}
