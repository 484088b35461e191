package store

import "unsafe"

// A page of new memory reads as the kernel's shared zero page until it is
// first written. Read first (a probe of a new hash table, or the garbage
// collector scanning a new block's pointer slots, or a write barrier
// reading the slot it overwrites), the write after it faults a second
// time: the kernel copies the zero page and flushes the TLB of every CPU
// the process runs on, several times the cost of one fault. At a million
// new keys those second faults were a tenth of a `koff get`'s CPU.

// newPages is make([]T, n) with every page written once (WritePages):
// for memory that is read before it is written, by a probe, the
// collector or a write barrier.
func newPages[T any](n int) []T {
	s := make([]T, n)
	WritePages(s)
	return s
}

// WritePages writes to every page of s's memory, up to its capacity, so
// that each faults once, here: s must be as make returns it (zero). The
// writes are of single zero bytes, through no write barrier.
func WritePages[T any](s []T) {
	var zero T
	n := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if n == 0 {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(s))
	for off := uintptr(0); off < n; off += pageSize {
		*(*byte)(unsafe.Add(p, off)) = 0
	}
	*(*byte)(unsafe.Add(p, n-1)) = 0 // the last page, when s starts within its first
}
