package screens

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"

	"koff/model"
	"koff/model/resume"
	"koff/model/store"
	"koff/ui/kit"
)

// sinceSource reads only what changed of a connector's source partitions
// since an earlier read (*store.Store does).
type sinceSource interface {
	PartitionsSinceGivingWay(id model.ConnectorID, since uint64, giveWay func()) store.PartitionChanges
}

// partTable is a big connector's rows as read through PartitionsSince, in
// the Store's places, with what is worked out of each row (what the
// filter searches, the widths, the sort keys, the sorted orders) kept
// from read to read: a read of 100,000 partitions of which some thousands
// changed works out those thousands. A table is not changed once built
// (views are worked out from it on other goroutines); the next read
// makes a new one, sharing what did not change.
type PartTable struct {
	stamp uint64 // the Store's stamp of the read
	gen   int    // reads since the first, whole one
	Rows  []Prow
	Hay   []string
	// changedAt is the gen of each place's last change (its first read
	// for a new one); grown says this read added places.
	changedAt []int32
	grown     bool
	Tally     *needsTally
	// rank is each row's place in the partition order (the order every
	// sort ends in); the sort keys of the other orders are made when
	// first asked, then carried from read to read for the rows that did
	// not change.
	Rank   []int32
	mu     sync.Mutex
	offset *prefixKeys // natural-order keys of the offsets
	noOff  []bool      // the row has no offset (deleted, unreadable): last
	upd    []int64     // update times, Unix ns
	del    []bool      // the row is a tombstone
	tp     []int64     // topic place << 32 | partition
	orders *orderCache // shared by the tables of one run of reads
	picks  *matchCache // likewise
}

// matchCache keeps which places the latest filters pick, by lowercased
// filter: what the filter searches of a place never changes, so a filter
// typed again (a key deleted), or asked again by a reload, tests only the
// places added since; a new one tests only the places a filter it
// contains picked.
type matchCache struct {
	mu    sync.Mutex
	by    map[string]matchSet
	older []string // the filters kept, oldest first
}

// matchSet is a bit per place of the first n.
type matchSet struct {
	n    int
	bits []uint64
}

// maxFilters bounds the filters a matchCache keeps (12.5 KB each at
// 100,000 partitions).
const maxFilters = 64

// orderCache keeps the latest sorted order made of each sort, and the gen
// of the table it was made of: a later table's order is that one with the
// rows that changed since merged in.
type orderCache struct {
	mu sync.Mutex
	by map[int]madeOrder
}

type madeOrder struct {
	gen   int
	order []int32
}

// readTable reads the connector's rows since t (nil: all of them) and
// returns the table of the rows now.
func ReadTable(src sinceSource, id model.ConnectorID, t *PartTable, search func(Prow) []string) *PartTable {
	since := uint64(0)
	if t != nil {
		since = t.stamp
	}
	y := &kit.Yielder{}
	ch := src.PartitionsSinceGivingWay(id, since, y.GiveWay)
	if ch.Whole || t == nil {
		return wholeTable(ch.Stamp, ch.Rows, search)
	}
	return t.Next(ch, search)
}

func wholeTable(stamp uint64, rows []Prow, search func(Prow) []string) *PartTable {
	t := &PartTable{stamp: stamp, Rows: rows, Hay: kit.MakeHay(search, rows), changedAt: make([]int32, len(rows)), grown: true,
		orders: &orderCache{by: map[int]madeOrder{}}, picks: &matchCache{by: map[string]matchSet{}}}
	t.Tally = newNeedsTally(rows)
	t.Rank = PartitionRanks(rows, &kit.Yielder{})
	return t
}

// next is the table of t's rows with the changes ch applied.
func (t *PartTable) Next(ch store.PartitionChanges, search func(Prow) []string) *PartTable {
	if len(ch.Rows) == 0 && ch.Count == len(t.Rows) {
		n := t.carry()
		n.stamp = ch.Stamp
		return n.withKeys()
	}
	n := t.carry()
	n.stamp, n.gen = ch.Stamp, t.gen+1
	old := len(t.Rows)
	n.Rows = make([]Prow, ch.Count)
	copy(n.Rows, t.Rows)
	n.changedAt = make([]int32, ch.Count)
	copy(n.changedAt, t.changedAt)
	n.grown = ch.Count > old
	changed := make([]int32, 0, len(ch.At))
	y := &kit.Yielder{}
	for k, at := range ch.At {
		y.Step()
		// Each changed row is an allocation of its own (PartitionsSince):
		// kept as it is, it keeps no other row of the read alive.
		n.Rows[at] = ch.Rows[k]
		n.changedAt[at] = int32(n.gen)
		changed = append(changed, at)
	}
	n.Tally = t.Tally.with(t.Rows, n.Rows, changed)
	if n.grown {
		// What the filter searches depends on the partition alone: only
		// new places need it.
		n.Hay = make([]string, ch.Count)
		copy(n.Hay, t.Hay)
		if search != nil {
			for i := old; i < ch.Count; i++ {
				n.Hay[i] = kit.MakeHay(search, n.Rows[i:i+1])[0]
			}
		}
		n.Rank = PartitionRanks(n.Rows, &kit.Yielder{})
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.offset != nil {
		n.noOff = make([]bool, ch.Count)
		copy(n.noOff, t.noOff)
		keys := make([]string, len(changed))
		for k, i := range changed {
			keys[k], n.noOff[i] = kit.NaturalKey(n.Rows[i].Offset), n.Rows[i].Offset == ""
		}
		rows := n.Rows
		n.offset = t.offset.with(ch.Count, changed, keys, func(k int) string { return kit.NaturalKey(rows[k].Offset) })
	}
	if t.upd != nil {
		n.upd, n.del = make([]int64, ch.Count), make([]bool, ch.Count)
		copy(n.upd, t.upd)
		copy(n.del, t.del)
		for _, i := range changed {
			n.upd[i], n.del[i] = UnixNano(n.Rows[i].Updated), n.Rows[i].Deleted
		}
	}
	if n.grown {
		n.tp = nil // topics may be new: made again
	}
	return n.withKeys()
}

// withKeys makes the sort keys t lacks: from the first read after the
// whole one, so that the first re-sort to an order sorts numbers rather
// than making 100,000 keys first, and every read after keeps them for the
// rows that changed.
func (t *PartTable) withKeys() *PartTable {
	for i := 1; i <= 3; i++ {
		t.keys(i)
	}
	return t
}

// carry is a table of t's rows with a new read to come: what does not
// depend on the changes is shared.
func (t *PartTable) carry() *PartTable {
	t.mu.Lock()
	defer t.mu.Unlock()
	return &PartTable{stamp: t.stamp, gen: t.gen, Rows: t.Rows, Hay: t.Hay, changedAt: t.changedAt, Tally: t.Tally,
		Rank: t.Rank, offset: t.offset, noOff: t.noOff, upd: t.upd, del: t.del, tp: t.tp, orders: t.orders, picks: t.picks}
}

// keys makes sort i's keys if they are not made yet.
func (t *PartTable) keys(i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rows := t.Rows
	switch {
	case i == 1 && t.offset == nil:
		t.noOff = make([]bool, len(rows))
		for k, r := range rows {
			t.noOff[k] = r.Offset == ""
		}
		p := newPrefixKeys(len(rows), func(k int) string { return kit.NaturalKey(rows[k].Offset) })
		t.offset = &p
	case i == 2 && t.upd == nil:
		times := TimesOf(rows)
		t.upd, t.del = times.Updates, times.Deleted
	case i == 3 && t.tp == nil:
		t.tp = topicPartitionKeys(rows)
	}
}

// times are the rows' update times and tombstones (the progress rates').
func (t *PartTable) Times() *rowTimes {
	t.keys(2)
	return &rowTimes{Updates: t.upd, Deleted: t.del}
}

// madeTimes are times when made already and rows are the table's (nil
// otherwise, or for a nil table).
func (t *PartTable) madeTimes(rows []Prow) *rowTimes {
	if t == nil || len(rows) == 0 || len(t.Rows) != len(rows) || &t.Rows[0] != &rows[0] {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.upd == nil {
		return nil
	}
	return &rowTimes{Updates: t.upd, Deleted: t.del}
}

// compare is sort i of the partitions screen as a comparator of places,
// in the order of its sorts[i].cmp (partitionSorts).
func (t *PartTable) Compare(i int) func(a, b int32) int {
	t.keys(i)
	rank := t.Rank
	byPart := func(a, b int32) int { return cmp.Compare(rank[a], rank[b]) }
	switch i {
	case 1:
		off, noOff := t.offset, t.noOff
		return func(a, b int32) int {
			if noOff[a] != noOff[b] { // those without an offset go last
				if noOff[a] {
					return 1
				}
				return -1
			}
			return cmp.Or(off.Compare(a, b), byPart(a, b))
		}
	case 2:
		upd := t.upd
		return func(a, b int32) int { return cmp.Or(cmp.Compare(upd[b], upd[a]), byPart(a, b)) }
	case 3:
		tp := t.tp
		return func(a, b int32) int { return cmp.Or(cmp.Compare(tp[a], tp[b]), byPart(a, b)) }
	}
	return byPart
}

// order is every row's place sorted by sort i: the partition order from
// the ranks, another from the latest order made of it, the rows that
// changed since merged in, or sorted afresh.
func (t *PartTable) Order(i int) []int32 {
	oc := t.orders
	oc.mu.Lock()
	made, ok := oc.by[i]
	oc.mu.Unlock()
	if ok && made.gen == t.gen && len(made.order) == len(t.Rows) {
		return made.order
	}
	var order []int32
	switch {
	case i == 0:
		order = make([]int32, len(t.Rows))
		for k, r := range t.Rank {
			order[r] = int32(k)
		}
	case ok && made.gen < t.gen && len(made.order) <= len(t.Rows):
		y := &kit.Yielder{}
		moved := t.movedSince(i, made.gen, len(made.order))
		order = mergeInto(made.order, t.SortPlaces(i, moved, y), len(t.Rows), kit.Yielding(y, t.Compare(i)))
	default:
		order = make([]int32, len(t.Rows))
		for k := range order {
			order[k] = int32(k)
		}
		order = t.SortPlaces(i, order, &kit.Yielder{})
	}
	oc.mu.Lock()
	if cur, ok := oc.by[i]; !ok || cur.gen <= t.gen {
		oc.by[i] = madeOrder{gen: t.gen, order: order}
	}
	oc.mu.Unlock()
	return order
}

// movedSince is the places whose key of sort i may have changed since
// the read of gen, when the table had n places: those changed since, and
// the new ones. The partition and topic-partition of a place never
// change, so those sorts move only new places.
func (t *PartTable) movedSince(i, gen, n int) []int32 {
	var moved []int32
	if i != 3 {
		for k, g := range t.changedAt[:n] {
			if int(g) > gen {
				moved = append(moved, int32(k))
			}
		}
	}
	for k := n; k < len(t.Rows); k++ {
		moved = append(moved, int32(k))
	}
	return moved
}

// mergeSorted is the order of n items by cmp made from prev, their order
// by cmp before the items of moved changed (and those at len(prev) and
// beyond were added, all of them in moved): the others keep their order
// among themselves, so the moved ones, sorted, are merged in. cmp must be
// a total order.
func MergeSorted(prev, moved []int32, n int, cmp func(a, b int32) int) []int32 {
	add := slices.Clone(moved)
	slices.SortFunc(add, cmp)
	return mergeInto(prev, add, n, cmp)
}

// mergeInto is mergeSorted with the moved items sorted already (add).
func mergeInto(prev, add []int32, n int, cmp func(a, b int32) int) []int32 {
	if len(add) == 0 && len(prev) == n {
		return prev
	}
	out := make([]int32, 0, n)
	isMoved := make([]bool, n)
	for _, i := range add {
		isMoved[i] = true
	}
	a := 0
	for _, i := range prev {
		if isMoved[i] {
			continue
		}
		for a < len(add) && cmp(add[a], i) < 0 {
			out = append(out, add[a])
			a++
		}
		out = append(out, i)
	}
	return append(out, add[a:]...)
}

// sortKey is a place with its key of a sort as numbers side by side: a
// sort of 100,000 of them compares 16 bytes in one array rather than
// reading keys from several arrays at the places of two rows.
type sortKey struct {
	key      uint64
	rank, at int32 // the place's rank in the partition order, the place
}

// sortPlaces sorts places (a new slice of them) in the order of
// compare(i), from keys that compare as numbers: the key of the sort,
// then the partition order. The offset's key is its first eight bytes
// after the shared prefix, the rest compared as strings on a tie; places
// without an offset go last, in the partition order.
func (t *PartTable) SortPlaces(i int, places []int32, y *kit.Yielder) []int32 {
	t.keys(i)
	if i == 0 {
		out := slices.Clone(places)
		rank := t.Rank
		slices.SortFunc(out, kit.Yielding(y, func(a, b int32) int { return cmp.Compare(rank[a], rank[b]) }))
		return out
	}
	const sign = 1 << 63 // flipped: an int64's order as a uint64's
	keys := make([]sortKey, 0, len(places))
	var last []int32
	for _, at := range places {
		y.Step()
		var k uint64
		switch i {
		case 1:
			if t.noOff[at] {
				last = append(last, at)
				continue
			}
			k = t.offset.head[at]
		case 2:
			k = ^(uint64(t.upd[at]) ^ sign) // newest first
		case 3:
			k = uint64(t.tp[at]) ^ sign
		}
		keys = append(keys, sortKey{key: k, rank: t.Rank[at], at: at})
	}
	var rest []string
	if i == 1 {
		rest = t.offset.rest
	}
	// A total order (ranks differ): an unstable sort gives the stable one.
	slices.SortFunc(keys, kit.Yielding(y, func(a, b sortKey) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		if rest != nil {
			if c := strings.Compare(rest[a.at], rest[b.at]); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.rank, b.rank)
	}))
	out := make([]int32, 0, len(places))
	for _, k := range keys {
		out = append(out, k.at)
	}
	rank := t.Rank
	slices.SortFunc(last, func(a, b int32) int { return cmp.Compare(rank[a], rank[b]) })
	return append(out, last...)
}

// topicPartitionKeys orders topics by their place among the few distinct
// ones, then partitions.
func topicPartitionKeys(rows []Prow) []int64 {
	var names []string
	seen := map[string]bool{}
	for k := range rows {
		if t := rows[k].ID.Topic; !seen[t] {
			seen[t] = true
			names = append(names, t)
		}
	}
	slices.Sort(names)
	place := make(map[string]int64, len(names))
	for k, t := range names {
		place[t] = int64(k)
	}
	tp := make([]int64, len(rows))
	for k := range rows {
		tp[k] = place[rows[k].ID.Topic]<<32 | int64(uint32(rows[k].ID.Partition))
	}
	return tp
}

// with is p for n keys where those of the places changed are new (keys,
// in the same order): only they are cut again, unless one of them shares
// less of the prefix the others share; then every key (key) is cut anew.
func (p *prefixKeys) with(n int, changed []int32, keys []string, key func(int) string) *prefixKeys {
	for _, k := range keys {
		if c := commonPrefix(p.first, k); c < p.shared {
			q := newPrefixKeys(n, key)
			return &q
		}
	}
	next := &prefixKeys{head: make([]uint64, n), rest: make([]string, n), shared: p.shared, first: p.first}
	copy(next.head, p.head)
	copy(next.rest, p.rest)
	for k, i := range changed {
		next.cut(int(i), keys[k])
	}
	return next
}

// needsTally is partitionNeeds kept by counts, so that a read changes
// them by its rows alone: the widths that rows of a place keep (their
// partition map and topic-partition) only grow with new places, and the
// offset widths and flags are counted by value, so that the widest is
// known when a row that had it changes.
type needsTally struct {
	fixed          partitionNeeds // the partition and topic-partition widths
	offW, offV     []int32        // each place's offset widths
	offWN, offVN   map[int32]int  // how many places have each
	flags          map[model.Flags]int
	live, del, sus int
	// resumed counts rows with a resume check, gaps and replays those
	// whose check says so.
	resumed, gaps, replays int
}

func newNeedsTally(rows []Prow) *needsTally {
	t := &needsTally{fixed: partitionNeeds{partition: len("SOURCE PARTITION"), tpShort: len("PART"), tpLong: len("TOPIC-PARTITION")},
		offW: make([]int32, len(rows)), offV: make([]int32, len(rows)), offWN: map[int32]int{}, offVN: map[int32]int{}, flags: map[model.Flags]int{}}
	for i, r := range rows {
		t.grow(r)
		t.add(i, r, 1)
	}
	return t
}

func (t *needsTally) grow(r Prow) {
	f := &t.fixed
	f.partition = max(f.partition, kit.CellWidth(kit.CleanJSON(r.Partition)))
	f.partitionValues = max(f.partitionValues, kit.CompactWidth(r.Partition))
	f.tpShort = max(f.tpShort, len(tpText(*r, true)))
	f.tpLong = max(f.tpLong, len(tpText(*r, false)))
}

// add counts row r of place i in (by 1) or out (by -1).
func (t *needsTally) add(i int, r Prow, by int) {
	if by > 0 {
		cell := offsetCell(*r)
		t.offW[i], t.offV[i] = int32(kit.CellWidth(cell)), int32(kit.CompactWidth(cell))
	}
	t.offWN[t.offW[i]] += by
	t.offVN[t.offV[i]] += by
	t.flags[r.Flags] += by
	if r.Deleted {
		t.del += by
	} else {
		t.live += by
	}
	if r.Flags.Suspect() {
		t.sus += by
	}
	if r.Resume != nil {
		t.resumed += by
		switch r.Resume.State {
		case resume.Gap:
			t.gaps += by
		case resume.Replay:
			t.replays += by
		}
	}
}

// with is the tally of rows, which are old but for the places changed
// (and those after len(old), which are new).
func (t *needsTally) with(old, rows []Prow, changed []int32) *needsTally {
	n := &needsTally{fixed: t.fixed, offW: make([]int32, len(rows)), offV: make([]int32, len(rows)),
		offWN: cloneMap(t.offWN), offVN: cloneMap(t.offVN), flags: cloneMap(t.flags), live: t.live, del: t.del, sus: t.sus,
		resumed: t.resumed, gaps: t.gaps, replays: t.replays}
	copy(n.offW, t.offW)
	copy(n.offV, t.offV)
	y := &kit.Yielder{}
	for _, i := range changed {
		y.Step()
		if int(i) < len(old) {
			n.add(int(i), old[i], -1)
		} else {
			n.grow(rows[i])
		}
		n.add(int(i), rows[i], 1)
	}
	return n
}

func cloneMap[K comparable](m map[K]int) map[K]int {
	out := make(map[K]int, len(m))
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// needs are the widths and counts of measurePartitions.
func (t *needsTally) Needs() partitionNeeds {
	n := t.fixed
	n.offset, n.flagsShort, n.flagsWide = len("OFFSET"), len("FLAGS"), len("FLAGS")
	for w, c := range t.offWN {
		if c > 0 {
			n.offset = max(n.offset, int(w))
		}
	}
	for w, c := range t.offVN {
		if c > 0 {
			n.offsetValues = max(n.offsetValues, int(w))
		}
	}
	for f, c := range t.flags {
		if c > 0 {
			n.flagsShort = max(n.flagsShort, ansi.StringWidth(flagsCell(f, false)))
			n.flagsWide = max(n.flagsWide, ansi.StringWidth(flagsCell(f, true)))
		}
	}
	n.live, n.deleted, n.suspect = t.live, t.del, t.sus
	n.resumed, n.gaps, n.replays = t.resumed, t.gaps, t.replays
	return n
}

// partitionRanks is each row's place in the partition order: by the
// natural order of partition maps, then topic-partition and key bytes.
func PartitionRanks(rows []Prow, y *kit.Yielder) []int32 {
	part := newPrefixKeys(len(rows), func(k int) string { return kit.NaturalKey(rows[k].Partition) })
	idx := make([]int32, len(rows))
	for k := range idx {
		idx[k] = int32(k)
	}
	// A total order (it ends in the row's identity).
	slices.SortFunc(idx, kit.Yielding(y, func(a, b int32) int {
		x, y := rows[a], rows[b]
		return cmp.Or(part.Compare(a, b),
			strings.Compare(x.ID.Topic, y.ID.Topic), cmp.Compare(x.ID.Partition, y.ID.Partition),
			strings.Compare(x.ID.Key, y.ID.Key))
	}))
	rank := make([]int32, len(rows))
	for k, i := range idx {
		rank[i] = int32(k)
	}
	return rank
}

// matches is a bit per place: the row's filter texts (hay) contain the
// lowercased filter q, which holds no NUL.
func (t *PartTable) Matches(q string) []uint64 {
	mc, n := t.picks, len(t.Rows)
	mc.mu.Lock()
	exact, isExact := mc.by[q]
	var base matchSet // the longest filter kept that q contains picks a superset
	baseKey, isBase := "", false
	if !isExact {
		for k, set := range mc.by {
			if len(k) > len(baseKey) && set.n <= n && strings.Contains(q, k) {
				base, baseKey, isBase = set, k, true
			}
		}
	}
	mc.mu.Unlock()
	if isExact && exact.n == n {
		return exact.bits
	}
	bits := make([]uint64, (n+63)/64)
	from := 0
	y := &kit.Yielder{}
	switch {
	case isExact && exact.n < n: // q itself, of fewer places
		copy(bits, exact.bits)
		from = exact.n
	case isBase: // among the places a filter q contains picked
		for i := range base.n {
			y.Step()
			if base.bits[i>>6]&(1<<(i&63)) != 0 && strings.Contains(t.Hay[i], q) {
				bits[i>>6] |= 1 << (i & 63)
			}
		}
		from = base.n
	}
	for i := from; i < n; i++ {
		y.Step()
		if strings.Contains(t.Hay[i], q) {
			bits[i>>6] |= 1 << (i & 63)
		}
	}
	mc.mu.Lock()
	if cur, ok := mc.by[q]; !ok || cur.n <= n {
		if !ok {
			mc.older = append(mc.older, q)
			if len(mc.older) > maxFilters {
				delete(mc.by, mc.older[0])
				mc.older = mc.older[1:]
			}
		}
		mc.by[q] = matchSet{n: n, bits: bits}
	}
	mc.mu.Unlock()
	return bits
}
