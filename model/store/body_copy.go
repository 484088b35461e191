package store

import "unsafe"

// A body is made in three passes over its picks: they are picked (each
// entry's partition text, in its key's bytes, and its value read once),
// sorted by text (each text read again, and again every 8 bytes where
// the texts share them), then written in the sorted order. At a million
// source partitions each text is a cache miss and a TLB miss: the keys
// of a connector are far apart in memory, between those of every other
// connector of the offsets topic (a Latest's block of keys, a fetched
// response of values hold the records of every connector as they came).
// So the pick copies each text and offset side by side, in the order
// picked (bodyCopy): the sort and the writing read the copies, a
// megabyte for a connector of 14,000 partitions, reused from one body to
// the next, in place of a second and third miss on each. What the body
// holds is what it held (TestBodyCopiesWriteAsWithout).

// bodyCopies is off in tests that compare with the bodies made without
// copies.
var bodyCopies = true

// bodyCopy holds copies of texts in blocks that never move (textKey
// points into them), kept from one body to the next.
type bodyCopy struct {
	blocks [][]byte
	at     int // the block being filled
}

// bodyCopyBlock is the size of a block of copies; a text of a quarter of
// it or more is not copied (one of the rare keys that long is read where
// it is).
const bodyCopyBlock = 64 << 10

// bodyCopyBlocks bounds the copies of one body (8 MB): a body of a
// connector of a million partitions is a hundred megabytes, which copies
// of all its texts would nearly double; past the bound they are read where
// they are. (A variable for the tests.)
var bodyCopyBlocks = 128

// keep copies a and b side by side, and returns the copies.
func (c *bodyCopy) keep(a, b string) (string, string) {
	n := len(a) + len(b)
	if n >= bodyCopyBlock/4 {
		return a, b
	}
	if c.at == len(c.blocks) || cap(c.blocks[c.at])-len(c.blocks[c.at]) < n {
		if c.at < len(c.blocks) {
			c.at++
		}
		if c.at == len(c.blocks) {
			if len(c.blocks) >= bodyCopyBlocks {
				c.at--
				return a, b
			}
			c.blocks = append(c.blocks, make([]byte, 0, bodyCopyBlock))
		}
	}
	blk := c.blocks[c.at]
	from := len(blk)
	blk = append(append(blk, a...), b...)
	c.blocks[c.at] = blk
	s := unsafe.String(unsafe.SliceData(blk[from:]), n)
	return s[:len(a)], s[len(a):]
}

// reset empties c, keeping its blocks.
func (c *bodyCopy) reset() {
	for i := range c.blocks[:min(c.at+1, len(c.blocks))] {
		c.blocks[i] = c.blocks[i][:0]
	}
	c.at = 0
}
