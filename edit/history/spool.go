package history

import (
	"encoding/binary"
	"time"
)

// spooled is one commit a history read keeps until the read is done.
type spooled struct {
	copy      int // its key's summary, by index
	offset    int64
	time      time.Time
	logAppend bool
	koff      bool
	edit      int    // the audited edit that wrote it, by index (-1: none)
	value     []byte // nil: a tombstone
}

// spool keeps a read's commits in order, packed into blocks: a million
// commits shown are about a hundred megabytes, in a hundred blocks the
// collector need not look into, none copied as the spool grows.
type spool struct {
	blocks [][]byte
	tmp    []byte
}

const spoolBlock = 1 << 20

const (
	spoolLogAppend = 1 << iota
	spoolKoff
	spoolEdit
	spoolTombstone
)

// spoolRef is where a commit is in a spool (its block, and where in it)
// and its time, in milliseconds: what puts a read's commits in time order.
type spoolRef struct {
	ms    int64
	block uint32
	at    uint32
}

// put appends r: its index, offset and time as varints, its flags, its
// edit's index, and its value's length and bytes. It says where.
func (s *spool) put(r spooled) spoolRef {
	b := s.tmp[:0]
	b = binary.AppendUvarint(b, uint64(r.copy))
	b = binary.AppendVarint(b, r.offset)
	b = binary.AppendVarint(b, r.time.UnixMilli())
	var flags byte
	if r.logAppend {
		flags |= spoolLogAppend
	}
	if r.koff {
		flags |= spoolKoff
	}
	if r.edit >= 0 {
		flags |= spoolEdit
	}
	if r.value == nil {
		flags |= spoolTombstone
	}
	b = append(b, flags)
	if r.edit >= 0 {
		b = binary.AppendUvarint(b, uint64(r.edit))
	}
	b = binary.AppendUvarint(b, uint64(len(r.value)))
	s.tmp = b
	n := len(b) + len(r.value)
	if len(s.blocks) == 0 || cap(s.blocks[len(s.blocks)-1])-len(s.blocks[len(s.blocks)-1]) < n {
		s.blocks = append(s.blocks, make([]byte, 0, max(spoolBlock, n)))
	}
	last := &s.blocks[len(s.blocks)-1]
	ref := spoolRef{ms: r.time.UnixMilli(), block: uint32(len(s.blocks) - 1), at: uint32(len(*last))}
	*last = append(append(*last, b...), r.value...)
	return ref
}

// eachSpooled hands on the commits put in one of a spool's blocks, in
// order; a value handed on keeps the block.
func eachSpooled(b []byte, fn func(*spooled) error) error {
	var r spooled
	for i := 0; i < len(b); {
		i = spooledAt(b, i, &r)
		if err := fn(&r); err != nil {
			return err
		}
	}
	return nil
}

// spooledAt reads the commit put at b[i:] into r and says where the next
// begins.
func spooledAt(b []byte, i int, r *spooled) int {
	idx, n := binary.Uvarint(b[i:])
	i += n
	off, n := binary.Varint(b[i:])
	i += n
	ms, n := binary.Varint(b[i:])
	i += n
	flags := b[i]
	i++
	*r = spooled{copy: int(idx), offset: off, time: time.UnixMilli(ms), logAppend: flags&spoolLogAppend != 0, koff: flags&spoolKoff != 0, edit: -1}
	if flags&spoolEdit != 0 {
		e, n := binary.Uvarint(b[i:])
		i += n
		r.edit = int(e)
	}
	l, n := binary.Uvarint(b[i:])
	i += n
	if flags&spoolTombstone == 0 {
		r.value = b[i : i+int(l) : i+int(l)]
	}
	return i + int(l)
}
