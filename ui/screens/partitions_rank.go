package screens

import (
	"cmp"
	"strconv"
	"strings"
	"sync"

	"koff/model"
	"koff/ui/kit"
)

// partitionSorts are the sort orders above as comparators of row indices,
// with the natural-order keys of partition maps and offsets made once.
// Every order ends in the partition order, which is worked out once per
// set of rows (ranks): a re-sort of 100,000 rows then compares numbers.
func (c *rankCache) partitionSorts(i int, rows []Prow) func(a, b int32) int {
	if t := c.table(rows); t != nil {
		return t.Compare(i)
	}
	rank := c.partRanks(rows)
	byPart := func(a, b int32) int { return cmp.Compare(rank[a], rank[b]) }
	switch i {
	case 1:
		off := newPrefixKeys(len(rows), func(k int) string { return kit.NaturalKey(rows[k].Offset) })
		return func(a, b int32) int {
			x, y := rows[a], rows[b]
			if (x.Offset == "") != (y.Offset == "") {
				return cmp.Compare(y.Offset, x.Offset)
			}
			return cmp.Or(off.Compare(a, b), byPart(a, b))
		}
	case 2:
		// Keys in arrays of their own: a comparison then reads 16 bytes,
		// not two rows of hundreds scattered over 100,000.
		upd := make([]int64, len(rows))
		for k := range rows {
			upd[k] = UnixNano(rows[k].Updated)
		}
		return func(a, b int32) int { return cmp.Or(cmp.Compare(upd[b], upd[a]), byPart(a, b)) }
	case 3:
		tp := topicPartitionKeys(rows)
		return func(a, b int32) int { return cmp.Or(cmp.Compare(tp[a], tp[b]), byPart(a, b)) }
	}
	return byPart
}

// rankCache keeps each row's place in the partition order for the rows
// last asked about (and the ones before: filter and sort jobs ask from
// other goroutines, some about older rows).
type rankCache struct {
	mu      sync.Mutex
	entries [2]rankEntry
	// tables are the last tables read (a read may be under way while a
	// view of the one before is worked out): their rows sort with the
	// keys and orders they keep.
	tables [2]*PartTable
}

// table is the table whose rows are rows, if one of the last.
func (c *rankCache) table(rows []Prow) *PartTable {
	if len(rows) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.tables {
		if t != nil && len(t.Rows) == len(rows) && &t.Rows[0] == &rows[0] {
			return t
		}
	}
	return nil
}

func (c *rankCache) addTable(t *PartTable) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tables[0] != t {
		c.tables[1], c.tables[0] = c.tables[0], t
	}
}

// partitionMatches are the rows the lowercased filter q picks, made from
// what a table of rows keeps (nil when rows are no table's).
func (c *rankCache) partitionMatches(q string, rows []Prow) []uint64 {
	if t := c.table(rows); t != nil {
		return t.Matches(q)
	}
	return nil
}

// partitionOrder is every row's index sorted by sort i, made from what a
// table of rows keeps (nil when rows are no table's).
func (c *rankCache) partitionOrder(i int, rows []Prow) []int32 {
	if t := c.table(rows); t != nil {
		return t.Order(i)
	}
	return nil
}

type rankEntry struct {
	rows *Prow // the first of the rows the ranks are of
	n    int
	rank []int32
}

func (c *rankCache) lookup(rows []Prow) []int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		if e.rows == &rows[0] && e.n == len(rows) {
			return e.rank
		}
	}
	return nil
}

func (c *rankCache) store(rows []Prow, rank []int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[1], c.entries[0] = c.entries[0], rankEntry{rows: &rows[0], n: len(rows), rank: rank}
}

// carry gives rows the ranks of old when they are the same partitions in
// the same places (sameRows): the order of partition maps is then the
// same, whatever their offsets did.
func (c *rankCache) carry(old, rows []Prow) {
	if len(rows) == 0 || !sameRows(old, rows) {
		return
	}
	if r := c.lookup(old); r != nil {
		c.store(rows, r)
	}
}

// sameRows says b holds the same source partitions as a, in the same
// places: what is worked out of their partition maps alone stays true.
func sameRows(a, b []Prow) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Partition != b[i].Partition {
			return false
		}
	}
	return true
}

func (c *rankCache) partRanks(rows []Prow) []int32 {
	if len(rows) == 0 {
		return nil
	}
	if r := c.lookup(rows); r != nil {
		return r
	}
	rank := PartitionRanks(rows, nil)
	c.store(rows, rank)
	return rank
}

// prefixKeys are sort keys with the prefix they all share cut off, and
// their next eight bytes as a number that is compared first: the keys of
// one connector's partition maps share most of their bytes (`{"cluster":
// "primary","partition":`), which every string comparison would scan.
type prefixKeys struct {
	head   []uint64
	rest   []string // each key after the shared prefix
	shared int      // the length of the prefix cut off
	first  string   // the prefix
}

func newPrefixKeys(n int, key func(int) string) prefixKeys {
	p := prefixKeys{head: make([]uint64, n), rest: make([]string, n)}
	shared := -1
	for k := range n {
		p.rest[k] = key(k)
		if shared < 0 {
			shared = len(p.rest[k])
		}
		shared = min(shared, commonPrefix(p.rest[0], p.rest[k]))
	}
	if n > 0 {
		p.shared, p.first = shared, p.rest[0][:shared]
	}
	for k, s := range p.rest {
		p.cut(k, s)
	}
	return p
}

// cut makes s, which begins with the shared prefix, key k.
func (p *prefixKeys) cut(k int, s string) {
	s = s[p.shared:]
	var h uint64
	for b := range 8 {
		h <<= 8
		if b < len(s) {
			h |= uint64(s[b])
		}
	}
	p.head[k], p.rest[k] = h, s
}

// compare orders keys a and b as strings.Compare orders the whole keys.
func (p prefixKeys) Compare(a, b int32) int {
	if c := cmp.Compare(p.head[a], p.head[b]); c != 0 {
		// A key's end reads as zero bytes: a shorter key's head is at most
		// the head of a longer one it begins, and equal heads fall through.
		return c
	}
	return strings.Compare(p.rest[a], p.rest[b])
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// isPartition tells the rows of a partitionIdentity without building
// theirs.
func isPartition(id string) func(Prow) bool {
	topic, rest, _ := strings.Cut(id, "\x00")
	num, key, _ := strings.Cut(rest, "\x00")
	p, err := strconv.Atoi(num)
	if err != nil {
		return func(Prow) bool { return false }
	}
	return func(r Prow) bool { return r.ID.Partition == p && r.ID.Key == key && r.ID.Topic == topic }
}

func partitionIdentity(r model.PartitionRow) string {
	return r.ID.Topic + "\x00" + strconv.Itoa(r.ID.Partition) + "\x00" + r.ID.Key
}

func ByPartition(a, b model.PartitionRow) int {
	return cmp.Or(naturalCompare(a.Partition, b.Partition),
		strings.Compare(a.ID.Topic, b.ID.Topic), cmp.Compare(a.ID.Partition, b.ID.Partition),
		strings.Compare(a.ID.Key, b.ID.Key))
}

func naturalCompare(a, b string) int {
	switch {
	case kit.NaturalLess(a, b):
		return -1
	case kit.NaturalLess(b, a):
		return 1
	}
	return 0
}
