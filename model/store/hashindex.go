package store

// hashIndex finds the first of the entries of a topic stored under a hash
// (the others follow it in a chain of the entry's own). It is a Go map of
// uint64 to *entry cut to what that needs: open addressing with linear
// probing, one word a slot holding the hash's top 30 bits, what the slot
// finds (its kind) and the entry's number (Store.entryAt), and no pointers
// for the garbage collector to follow. At a million new keys each lookup
// is a cache miss: a Go map's costs two or three (its directory, control
// word and slot), this one's one. Two hashes of the same top bits are one
// hash here: callers compare the entries' bytes along the chain, as they
// do for a whole hash shared.
//
// One index holds both what a topic's keys are found by (the hash of the
// key bytes: homeSlot) and what the first copy of a connector's partition
// is found by (copyHash: copySlot). A key in the form workers write has
// the same hash for both, and one slot serves both: a million new keys
// take a million slots, where an index of keys and one of copies per
// connector took two million, the connectors' grown by doubling as their
// share of the keys came.
type hashIndex struct {
	slots []uint64 // tag<<34 | kind<<32 | number+1; 0 is empty
	used  int
	shift uint // 30 - log2(len(slots)): a slot's home is its tag's top bits
}

// slotKind is what a slot finds: the first entry stored with key bytes of
// its hash (homeSlot), the first copy of a partition of its copyHash
// (copySlot), or both.
type slotKind uint64

const (
	homeSlot slotKind = 1
	copySlot slotKind = 2
)

// get returns the number+1 of the entry stored under h as kind, 0 if none.
func (t *hashIndex) get(h uint64, kind slotKind) uint32 {
	if t.used == 0 {
		return 0
	}
	tag := h >> 34
	mask := len(t.slots) - 1
	for i := int(tag >> t.shift); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0
		}
		if s>>34 == tag && slotKind(s>>32)&kind != 0 {
			return uint32(s)
		}
	}
}

// peek reads the slot where h's lookup starts, for lookAhead.
func (t *hashIndex) peek(h uint64) uint64 {
	if t.used == 0 {
		return 0
	}
	return t.slots[h>>34>>t.shift]
}

// Put stores ref (number+1) under h as kind, which holds none.
func (t *hashIndex) Put(h uint64, kind slotKind, ref uint32) {
	if 2*(t.used+1) > len(t.slots) {
		t.grow()
	}
	t.place(h>>34<<34 | uint64(kind)<<32 | uint64(ref))
	t.used++
}

// sameTag reports whether h and g take one slot.
func sameTag(h, g uint64) bool { return h>>34 == g>>34 }

func (t *hashIndex) place(s uint64) {
	mask := len(t.slots) - 1
	i := int(s >> 34 >> t.shift)
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

// grow doubles the slots (at least 16).
func (t *hashIndex) grow() { t.resize(max(16, 2*len(t.slots))) }

// reserve grows the slots to hold n at most half full.
func (t *hashIndex) reserve(n int) {
	size := max(16, len(t.slots))
	for size < 2*n {
		size *= 2
	}
	if size > len(t.slots) {
		t.resize(size)
	}
}

// resize moves the slots into n (a power of 2). Slots sit nearly in the
// order of their tags, so the old ones are read, and the new written,
// front to back.
func (t *hashIndex) resize(n int) {
	old := t.slots
	t.slots = newPages[uint64](n) // placing a slot reads it before writing it
	t.shift = 30
	for 1<<(30-t.shift) < n {
		t.shift--
	}
	for _, s := range old {
		if s != 0 {
			t.place(s)
		}
	}
}
