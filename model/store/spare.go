package store

// The entries of a million new keys are 128 MB of new
// memory, and the first write to each of its pages is a page fault (a few
// microseconds in the kernel). Made under the Store's lock, those faults
// are the lock holder's, while the partition readers, done with their
// chunks, wait for the lock. So a reader handing over a chunk with keys
// new to its partition (analysed by a Latest) makes the blocks they will
// take, and writes to every page of them, before it takes the lock; the
// Store takes them as it needs new blocks. A block so made is zero, as a
// new one is: nothing the Store stores changes
// (TestExpectedSizesIngestAsWithout).

// spareBlocks holds blocks made ahead, at most a few: enough for the
// chunks being handed over, not so many that memory is made for keys
// that never come.
type spareBlocks struct {
	entries chan []entry
}

const (
	spareEntries = 8 // blocks of entryBlock entries: 1 MB
	pageSize     = 4096
)

func newSpareBlocks() spareBlocks {
	return spareBlocks{entries: make(chan []entry, spareEntries)}
}

// makeSpares makes, off the Store's lock, the blocks the new keys of
// batch will take: those a Latest analysed as new to their partition.
func (s *Store) makeSpares(batch []Record) {
	if s.spare.entries == nil {
		return
	}
	n := 0
	for i := range batch {
		if batch[i].prep.chunk != nil && batch[i].prep.keyAt() != nil {
			n++
		}
	}
	if n == 0 {
		return
	}
	makeSpare(s.spare.entries, n, entryBlock)
}

// makeSpare puts into spares, while there is room, the blocks of size
// that n new keys will take beyond those already there, each with a write
// to every page.
func makeSpare[T any](spares chan []T, n, size int) {
	for need := (n+size-1)/size - len(spares); need > 0; need-- {
		b := newPages[T](size)
		select {
		case spares <- b:
		default:
			return
		}
	}
}

// takeSpare is a new block of size: a spare one if there is one.
func takeSpare[T any](spares chan []T, size int) []T {
	select {
	case b := <-spares:
		return b
	default:
		return newPages[T](size) // the Store's writes go through write barriers, which read first
	}
}

// entryBlockNew is a new block of entries: a spare one if there is one.
func (s *Store) entryBlockNew() []entry { return takeSpare(s.spare.entries, entryBlock) }
