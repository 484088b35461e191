package screens

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"koff/edit"
	"koff/keymap"
	"koff/model"
	"koff/ui/kit"
)

// prow is a row of the partitions screen, by pointer: a reload of 100,000
// rows of which some changed then moves pointers, not rows of some 300
// bytes.
type Prow = *model.PartitionRow

// partitionsScreen lists the source partitions of one connector, under a
// panel of its flush lag.
type PartitionsScreen struct {
	km            *keymap.KeyMap
	st            *kit.Styles
	Id            model.ConnectorID
	List          kit.List[Prow]
	now           time.Time
	topics        int
	width, height int
	needs         partitionNeeds
	// rest is what Connect's REST API says of the connector; inREST is
	// false when it does not list it, restOn when koff has no REST view.
	rest           model.ConnectorState
	inREST, restOn bool

	// The connector's row (its flushes, unflushed records, orphan mark),
	// its flush lag at now, and the partitions that stopped advancing
	// while it kept flushing (identity → how long).
	interval time.Duration
	conn     model.ConnectorRow
	hasConn  bool
	Report   model.FlushReport
	// staleCut: the live partitions updated before it stopped advancing
	// while the connector kept flushing (zero: none can be); staleN is how
	// many, and staleWide and staleNarrow the widest cell that says so
	// (FLAGS when wide, UPDATED when narrow). Counted, not collected: a
	// MirrorMaker connector can have 100,000 idle partitions.
	staleCut                       time.Time
	StaleN, StaleWide, StaleNarrow int
	rates                          RateCache
	// edited is when this dashboard applied an edit to each connector.
	Edited map[string]time.Time
	ranks  *rankCache
	// table is what the rows were read as, when read through
	// PartitionsSince (nil when they were read whole in place).
	Table *PartTable
	// loaded: the rows were read once (a big Source is read off the UI
	// goroutine, so a new screen can wait for its first snapshot).
	loaded bool
}

// partitionsPrepared is a reload of a big connector worked out off the UI
// goroutine: its rows, what the filter searches, the widths, and the
// rows of the filter and sort at the time.
type partitionsPrepared struct {
	id    model.ConnectorID
	rows  []Prow
	hay   []string
	needs partitionNeeds
	view  kit.ListView
	sort  int
	q     string
	selID string
	table *PartTable
	// rates are the progress rates at the snapshot's time, when worked
	// out with it.
	rates   RateCache
	ratesOK bool
}

func (s *PartitionsScreen) Prefetch() func(kit.Source, *Snapshot) {
	id, j, ranks, latest := s.Id, s.List.Job(), s.ranks, &s.List.Asked
	search := s.List.Search
	old, oldHay := j.Items, j.Hay
	table, rates := s.Table, s.rates
	return func(src kit.Source, snap *Snapshot) {
		if ss, ok := src.(sinceSource); ok {
			// Only what changed since the rows on screen were read, with
			// what was worked out of the others kept.
			t := ReadTable(ss, id, table, search)
			ranks.addTable(t)
			j.Items, j.Hay, j.Sorted, j.Prev, j.Y = t.Rows, t.Hay, nil, nil, &kit.Yielder{}
			j.Sort, j.Q = latest.Get()
			p := partitionsPrepared{id: id, rows: t.Rows, hay: t.Hay, needs: t.Tally.Needs(), view: j.Run(), sort: j.Sort, q: j.Q, selID: j.SelID, table: t}
			if !snap.At.IsZero() {
				// A walk of every row and a read of histories: not on
				// the UI goroutine either.
				p.rates, p.ratesOK = rates.Next(src, t.Rows, snap.At, &kit.Yielder{}, t.Times()), true
			}
			snap.prepared = p
			return
		}
		read := src.Partitions(id)
		snap.parts = map[model.ConnectorID][]model.PartitionRow{id: read}
		rows := pointers(read)
		// What the filter searches and the partition order depend on the
		// partition maps alone: the same rows keep them.
		hay := oldHay
		if !sameRows(old, rows) || len(oldHay) != len(rows) {
			hay = kit.MakeHay(search, rows)
		}
		ranks.carry(old, rows)
		j.Items, j.Hay, j.Sorted, j.Prev, j.Y = rows, hay, nil, nil, &kit.Yielder{}
		// The sort and filter asked for by now, not when the read began: a
		// key pressed meanwhile would otherwise find its order undone when
		// the snapshot lands, until it was worked out again.
		j.Sort, j.Q = latest.Get()
		snap.prepared = partitionsPrepared{id: id, rows: rows, hay: j.Hay, needs: MeasurePartitions(rows), view: j.Run(), sort: j.Sort, q: j.Q, selID: j.SelID}
	}
}

func (s *PartitionsScreen) ViewCmd() tea.Cmd { return s.List.ViewCmd() }
func (s *PartitionsScreen) Viewing() bool    { return s.List.Viewing() }

func (s *PartitionsScreen) ViewDone(msg kit.ViewMsg) {
	if s.List.ViewDone(msg) {
		s.Sync()
	}
}

// settled says the rows on screen are those of the filter and sort.
func (s *PartitionsScreen) Settled() bool { return s.loaded && !s.List.Stale }

// partitionNeeds are the widths the rows need and the counts in the title,
// measured once per Source change rather than on every key: a connector
// can have many thousands of source partitions. Measured over all rows, so
// the columns do not jump about while a filter is typed.
type partitionNeeds struct {
	partition, offset, tpShort, tpLong, flagsShort, flagsWide int
	// The widths of their values alone (fitJSON), for narrow screens.
	partitionValues, offsetValues int
	live, deleted, suspect        int
}

func (s *PartitionsScreen) measure() { s.needs = MeasurePartitions(s.List.Items) }

func MeasurePartitions(rows []Prow) partitionNeeds {
	n := partitionNeeds{partition: len("SOURCE PARTITION"), offset: len("OFFSET"),
		tpShort: len("PART"), tpLong: len("TOPIC-PARTITION"), flagsShort: len("FLAGS"), flagsWide: len("FLAGS")}
	seen := map[model.Flags]bool{}
	for _, r := range rows {
		n.partition = max(n.partition, kit.CellWidth(kit.CleanJSON(r.Partition)))
		n.offset = max(n.offset, kit.CellWidth(offsetCell(*r)))
		n.partitionValues = max(n.partitionValues, kit.CompactWidth(r.Partition))
		n.offsetValues = max(n.offsetValues, kit.CompactWidth(offsetCell(*r)))
		n.tpShort = max(n.tpShort, len(tpText(*r, true)))
		n.tpLong = max(n.tpLong, len(tpText(*r, false)))
		if !seen[r.Flags] { // flags cells are few: measure each once
			seen[r.Flags] = true
			n.flagsShort = max(n.flagsShort, ansi.StringWidth(flagsCell(r.Flags, false)))
			n.flagsWide = max(n.flagsWide, ansi.StringWidth(flagsCell(r.Flags, true)))
		}
		if r.Deleted {
			n.deleted++
		} else {
			n.live++
		}
		if r.Flags.Suspect() {
			n.suspect++
		}
	}
	return n
}

func NewPartitionsScreen(km *keymap.KeyMap, st *kit.Styles, id model.ConnectorID, topics int, interval time.Duration) *PartitionsScreen {
	s := &PartitionsScreen{
		km:       km,
		st:       st,
		Id:       id,
		topics:   topics,
		interval: interval,
		ranks:    &rankCache{},
		List: kit.NewList(st, func(r Prow) string { return partitionIdentity(*r) },
			func(r Prow, q string) bool {
				return strings.Contains(strings.ToLower(r.Partition), q) ||
					strings.Contains(strings.ToLower(r.ID.TopicPartition.String()), q)
			},
			kit.SortOrder[Prow]{Name: "partition", Cmp: func(a, b Prow) int { return ByPartition(*a, *b) }},
			kit.SortOrder[Prow]{Name: "offset", Cmp: func(a, b Prow) int {
				// Deleted partitions (no offset) go last.
				if (a.Offset == "") != (b.Offset == "") {
					return cmp.Compare(b.Offset, a.Offset)
				}
				return cmp.Or(naturalCompare(a.Offset, b.Offset), ByPartition(*a, *b))
			}},
			kit.SortOrder[Prow]{Name: "updated (newest first)", Cmp: func(a, b Prow) int {
				return cmp.Or(b.Updated.Compare(a.Updated), ByPartition(*a, *b))
			}},
			kit.SortOrder[Prow]{Name: "topic-partition", Cmp: func(a, b Prow) int {
				return cmp.Or(strings.Compare(a.ID.Topic, b.ID.Topic), cmp.Compare(a.ID.Partition, b.ID.Partition), ByPartition(*a, *b))
			}},
		),
	}
	s.List.Search = func(r Prow) []string { return []string{r.Partition, r.ID.TopicPartition.String()} }
	s.List.Keyed = s.ranks.partitionSorts
	s.List.Ordered = s.ranks.partitionOrder
	s.List.Matched = s.ranks.partitionMatches
	s.List.MatchID = isPartition
	return s
}

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

func (s *PartitionsScreen) Refresh(src kit.Source, now time.Time, reload bool) {
	s.now = now
	ratesOK := false
	if snap, ok := src.(*Snapshot); ok && reload {
		if p, ok := snap.prepared.(partitionsPrepared); ok && p.id == s.Id {
			if p.ratesOK {
				s.rates, ratesOK = p.rates, true
			}
			// Worked out off the UI goroutine: so are filter and sort from now.
			s.List.Async = true
			s.List.TakeItems(p.rows, p.hay, p.view, p.sort, p.q, p.selID)
			s.needs, s.Table = p.needs, p.table
		} else {
			s.reloadRows(src.Partitions(s.Id))
		}
		s.loaded = true
	} else if reload {
		s.reloadRows(src.Partitions(s.Id))
		s.loaded = true
	}
	if reload {
		r := src.REST()
		s.restOn = kit.RestAvailable(r)
		s.rest, s.inREST = r.Connectors[s.Id.Name]
		s.conn, s.hasConn = model.ConnectorRow{}, false
		for _, c := range src.Connectors() {
			if c.ID == s.Id && c.Type != "sink" {
				s.conn, s.hasConn = c, true
				break
			}
		}
		if !ratesOK {
			s.rates.Update(src, s.List.Items, now)
		}
	}
	s.Report = kit.JudgeFlush(s.conn, now, s.interval)
	s.CountStale(now)
	s.Sync()
}

// countStale finds the partitions that stopped advancing, as
// model.StalePartitions does (older than three flush intervals of a
// connector that flushes on time), with the widths of the cells that say
// so, without making those cells.
func (s *PartitionsScreen) CountStale(now time.Time) {
	s.staleCut, s.StaleN, s.StaleWide, s.StaleNarrow = time.Time{}, 0, 0, 0
	rep := s.Report
	if rep.Status != model.FlushOK || rep.Interval == 0 {
		return
	}
	s.staleCut = now.Add(-3 * rep.Interval)
	flagsW := map[model.Flags]int{}
	// A table's update times and tombstones tell the stale rows without
	// reading the 100,000 rows (isStale).
	times := s.Table.madeTimes(s.List.Items)
	cut := UnixNano(s.staleCut)
	for i := range s.List.Items {
		if times != nil && (times.Del[i] || times.Upd[i] >= cut) {
			continue
		}
		r := s.List.Items[i]
		if !s.IsStale(*r) {
			continue
		}
		s.StaleN++
		d := now.Sub(r.Updated)
		w := staleTextWidth + kit.DurWidth(d)
		fw, ok := flagsW[r.Flags]
		if !ok {
			fw = ansi.StringWidth(flagsCell(r.Flags, true))
			flagsW[r.Flags] = fw
		}
		if fw > 0 {
			w += 1 + fw
		}
		s.StaleWide = max(s.StaleWide, w)
		s.StaleNarrow = max(s.StaleNarrow, 2+kit.AgeWidth(d)) // "◌ " + age
	}
}

// isStale says the partition stopped advancing (countStale).
func (s *PartitionsScreen) IsStale(r model.PartitionRow) bool {
	return !s.staleCut.IsZero() && !r.Deleted && r.Updated.Before(s.staleCut)
}

// reloadRows takes in rows read in place; the same partitions as before
// keep what the filter searches and their order.
func (s *PartitionsScreen) reloadRows(read []model.PartitionRow) {
	s.Table = nil
	rows := pointers(read)
	var hay []string
	if sameRows(s.List.Items, rows) {
		hay = s.List.Hay
		s.ranks.carry(s.List.Items, rows)
	}
	s.List.SetItemsHay(rows, hay)
	s.measure()
}

// panelLines is how many lines the flush panel takes above the table.
func (s *PartitionsScreen) panelLines() int {
	return len(s.panel())
}

// knownPartitions are the connector's stored source partitions, in
// canonical form, for the "add a source partition" form to recognise one.
func (s *PartitionsScreen) KnownPartitions() map[string]bool {
	known := make(map[string]bool, len(s.List.Items))
	for _, r := range s.List.Items {
		if r.Deleted {
			continue
		}
		if k, err := model.ParseKey([]byte(r.ID.Key)); err == nil {
			known[kit.CanonPartition(k.Partition)] = true
		}
	}
	return known
}

// siblingShapes are the connector's live partition maps (at most a few
// hundred: enough to know its shapes) and the offset shapes it wrote,
// learnt from the history of the selected row first, as the CLI's plan
// learns them.
func (s *PartitionsScreen) SiblingShapes(src kit.Source, selected model.PartitionRow) kit.SiblingShapes {
	var sib kit.SiblingShapes
	rows := make([]model.PartitionRow, 0, len(s.List.Items)+1)
	if selected.ID.Key != "" {
		rows = append(rows, selected)
	}
	for _, r := range s.List.Items {
		if r.ID != selected.ID {
			rows = append(rows, *r)
		}
		if r.Deleted || len(sib.Partitions) >= 500 {
			continue
		}
		k, err := model.ParseKey([]byte(r.ID.Key))
		if err != nil || k.Partition == nil {
			continue
		}
		sib.Partitions = append(sib.Partitions, k.Partition)
	}
	sib.Offsets = edit.WrittenShapes(src, rows)
	return sib
}

func (s *PartitionsScreen) SetSize(width, height int) {
	s.width, s.height = width, height
	s.List.SetSize(width, height-3-s.panelLines()) // title, table header, detail line
	s.Sync()
}

func (s *PartitionsScreen) FilterValue() string { return s.List.Filter }

// setFilter and cycleSort lay the table out again when the rows changed:
// a view worked out off the UI goroutine leaves the rows on screen as
// they are until it lands (viewDone), and only the title says it is
// under way.
func (s *PartitionsScreen) SetFilter(q string) { s.List.SetFilter(q); s.syncIfApplied() }
func (s *PartitionsScreen) CycleSort()         { s.List.CycleSort(); s.syncIfApplied() }

func (s *PartitionsScreen) syncIfApplied() {
	if !s.List.Stale {
		s.Sync()
	}
}

func (s *PartitionsScreen) HandleKey(msg tea.KeyPressMsg) Action {
	if moveList(&s.List, s.km, msg) {
		s.Sync()
		return nil
	}
	if key.Matches(msg, s.km.Open) {
		if r, ok := s.List.Selected(); ok {
			return OpenPartition{r.ID}
		}
	}
	return nil
}

// wideFlags is the width from which flags are spelled out in full.
const wideFlags = 140

// flagsCell names a partition's flags: in full on wide terminals, in short
// words on narrow ones, with ⚠ when the stored offset may not be the one a
// worker reads.
func flagsCell(f model.Flags, wide bool) string {
	words := f.Words()
	if len(words) == 0 {
		return ""
	}
	if !wide {
		short := map[string]string{"duplicate": "dup", "non-canonical": "noncanon"}
		for i, w := range words {
			if s, ok := short[w]; ok {
				words[i] = s
			}
		}
		// The words that say the task reads another value go first: a
		// narrow cell cuts its end.
		first := map[string]int{"stray": 0, "unreadable": 1}
		sort.SliceStable(words, func(i, j int) bool {
			a, okA := first[words[i]]
			b, okB := first[words[j]]
			return okA && (!okB || a < b)
		})
	}
	s := strings.Join(words, ",")
	if f.Suspect() {
		s = "⚠ " + s
	}
	return s
}

// tpText is where the record lives: "connect-offsets/11", or "11" when short.
func tpText(r model.PartitionRow, short bool) string {
	if short {
		return strconv.Itoa(r.ID.Partition)
	}
	return r.ID.TopicPartition.String()
}

// staleText marks a source partition that stopped advancing while its
// connector kept flushing.
func staleText(d time.Duration) string { return "◌ not advancing " + kit.ShortDur(d) }

// staleTextWidth is the width of staleText before the duration.
var staleTextWidth = ansi.StringWidth("◌ not advancing ")

// rowFlags is the FLAGS cell. Wide, it starts with "◌ not advancing";
// narrow, the UPDATED cell carries the ◌ instead (updatedCell), so the
// JSON keeps its room.
func (s *PartitionsScreen) RowFlags(r model.PartitionRow, wide bool) string {
	f := flagsCell(r.Flags, wide)
	stale := s.IsStale(r)
	d := s.now.Sub(r.Updated)
	switch {
	case !stale || !wide:
		return f
	case f == "":
		return staleText(d)
	}
	return staleText(d) + " " + f
}

// updatedCell is how long ago the partition's offset last changed, with ◌
// on a narrow screen when it stopped advancing while its connector flushes.
func (s *PartitionsScreen) UpdatedCell(r model.PartitionRow, wide bool) string {
	if s.IsStale(r) && !wide {
		return "◌ " + kit.Age(s.now, r.Updated)
	}
	return kit.Age(s.now, r.Updated)
}

func tpCell(r model.PartitionRow, c partitionColumns) string {
	if c.short { // a bare number: align it as one
		return kit.FitRight(tpText(r, true), c.tp)
	}
	return tpText(r, false)
}

func offsetCell(r model.PartitionRow) string {
	if r.Deleted {
		return "✕ deleted"
	}
	return kit.CleanJSON(r.Offset)
}

type partitionColumns struct {
	partition, offset, tp, updated, flags int
	wide                                  bool
	// short shows only the partition number of the offsets topic: with
	// one topic (named in the header) the topic name on every row would
	// take the room the JSON needs at 80 columns.
	short bool
}

// columns gives the JSON columns the slack, split by how much each needs.
func (s *PartitionsScreen) columns() partitionColumns {
	n := s.needs
	c := partitionColumns{tp: min(n.tpLong, 28), updated: len("just now"), flags: min(n.flagsShort, 14),
		wide: s.width >= wideFlags, short: s.topics <= 1 && s.width < 120}
	if c.short {
		c.tp = n.tpShort
	}
	if c.wide {
		c.flags = min(n.flagsWide, 40)
	}
	if s.StaleN > 0 {
		if c.wide {
			c.flags = max(c.flags, min(s.StaleWide, 40))
		} else {
			c.updated = max(c.updated, s.StaleNarrow)
		}
	}
	needP, needO := n.partition, n.offset
	avail := s.width - (2 + c.tp + 1 + c.updated + 1 + c.flags + 1 + 2)
	if avail < 20 || s.width < 80 { // narrow: the flags go to the detail line, a ⚠ on the row
		avail += c.flags + 1
		c.flags = 0
	}
	avail = max(avail, 2)
	// The offset is what an operator acts on: it gets the room to show
	// every number whole (its values alone if need be) before the
	// partition map gets more than its values' room.
	if needP+needO <= avail {
		c.partition, c.offset = needP, needO
		// Room to spare: the flags get all of it they need, rather than
		// ending in "…" beside empty columns.
		if c.flags > 0 {
			need := n.flagsShort
			if c.wide {
				need = n.flagsWide
			}
			c.flags += max(min(need-c.flags, avail-needP-needO), 0)
		}
	} else {
		o := min(needO, avail-min(needP, max(n.partitionValues, 8)))
		o = max(o, min(n.offsetValues, avail-6))
		c.offset = max(min(o, avail-1), 1)
		c.partition = max(avail-c.offset, 1)
	}
	return c
}

func (s *PartitionsScreen) Sync() {
	c := s.columns()
	tpTitle := "TOPIC-PARTITION"
	if c.short {
		tpTitle = kit.FitRight("PART", c.tp)
	}
	cols := []table.Column{
		{Title: "SOURCE PARTITION", Width: c.partition},
		{Title: "OFFSET", Width: c.offset},
		{Title: tpTitle, Width: c.tp},
		{Title: kit.FitRight("UPDATED", c.updated), Width: c.updated},
	}
	if c.flags > 0 {
		cols = append(cols, table.Column{Title: "FLAGS", Width: c.flags})
	}
	s.List.Sync(cols, func(r Prow) []string {
		part := kit.FitJSON(r.Partition, c.partition)
		if c.flags == 0 && r.Flags.Suspect() { // no FLAGS column: the row says it
			part = "⚠ " + kit.FitJSON(r.Partition, c.partition-2)
		}
		cells := []string{
			part,
			kit.FitJSON(offsetCell(*r), c.offset),
			tpCell(*r, c),
			kit.FitRight(s.UpdatedCell(*r, c.wide), c.updated),
		}
		if c.flags > 0 {
			cells = append(cells, s.RowFlags(*r, c.wide))
		}
		return cells
	})
}

func (s *PartitionsScreen) View() string {
	live, deleted, suspect := s.needs.live, s.needs.deleted, s.needs.suspect
	name := kit.Clean(s.Id.Name)
	if s.topics > 1 {
		name += " (" + kit.Clean(s.Id.Topic) + ")"
	}
	if !s.loaded { // a big Source: its first snapshot is being read
		title := titleLine(s.st, s.width, "Connectors › "+name, []string{"reading its source partitions…"}, nil)
		return title + "\n" + s.st.Muted.Render(kit.Truncate("  Reading the source partitions and flushes of "+name+"…", s.width))
	}
	var info []string
	switch {
	case s.restOn && s.inREST:
		info = append(info, kit.StateText(s.rest.State))
		w := 12 // "1/2 ✗1" where the title is short of room
		if s.width >= 120 {
			w = 30
		}
		if tasks := kit.RestTasksCell(model.ConnectorRow{REST: s.rest, InREST: true}, w); tasks != "–" {
			info = append(info, "tasks "+tasks)
		}
	case s.restOn && s.conn.Orphaned:
		info = append(info, orphanedText)
	case s.restOn:
		info = append(info, kit.NotInREST)
	}
	// What needs a look comes before the counts: a narrow title cuts the end.
	if suspect > 0 {
		info = append(info, "⚠ "+kit.Count(suspect)+" suspect")
	}
	if n := s.StaleN; n > 0 {
		info = append(info, "◌ "+kit.Count(n)+" not advancing")
	}
	info = append(info, kit.Plural(live, "source partition", "source partitions"))
	if deleted > 0 {
		info = append(info, kit.Count(deleted)+" deleted")
	}
	title := titleLine(s.st, s.width, "Connectors › "+name, info, s.List.ViewInfo())
	empty := "No source partitions: the connector has no offsets in this topic."
	if s.List.Filter != "" && len(s.List.Items) > 0 {
		empty = fmt.Sprintf("No source partition contains %q.", s.List.Filter)
	}
	parts := []string{title}
	parts = append(parts, s.panel()...)
	return strings.Join(append(parts, s.List.View(empty), s.detailLine()), "\n")
}

// detailLine is the selected row in full under the table, where a narrow
// column cuts it: its flags in words, its offset, its source partition.
func (s *PartitionsScreen) detailLine() string {
	r, ok := s.List.Selected()
	if !ok {
		return ""
	}
	st := s.st
	var parts []string
	if f := s.RowFlags(*r, true); f != "" {
		parts = append(parts, st.Warn.Render(strings.ReplaceAll(f, ",", ", ")))
	}
	parts = append(parts, st.Label.Render("offset ")+offsetCell(*r), st.Label.Render("partition ")+kit.CleanJSON(r.Partition))
	return kit.Truncate("↳ "+strings.Join(parts, st.Muted.Render(" · ")), s.width)
}

// ShortHelp names the two common edits when editing is on; the unparseable
// key gives way to them (the header names it too).
func (s *PartitionsScreen) ShortHelp() []key.Binding {
	keys := []key.Binding{s.km.Open, backBinding(s.km, s.List.Filter, true), s.km.Filter, s.km.Sort}
	if s.km.EditOffset.Enabled() {
		keys = append(keys, kit.Short(s.km.EditOffset, "edit"), kit.Short(s.km.ResetOffset, "reset"))
		if s.conn.Orphaned { // its offsets wait for a connector of its name
			keys = append(keys, kit.Short(s.km.Copy, "copy to…"))
		}
	} else {
		keys = append(keys, s.km.Unparseable)
	}
	return append(keys, s.km.Help, s.km.Quit)
}

func (s *PartitionsScreen) FullHelp() [][]key.Binding {
	return append(tableFullHelp(s.km, s.km.Open, backBinding(s.km, s.List.Filter, true), true, true, "copy offset"),
		[]key.Binding{s.km.EditOffset, s.km.ResetOffset, s.km.NewPartition, s.km.ResetAll, kit.Short(s.km.Copy, "copy offsets to…"),
			s.km.Stop, s.km.Resume, s.km.Undo})
}

// timelineSpan is how far back the connector screen's flush timeline and
// progress rates look.
const timelineSpan = 10 * time.Minute

// panelMinHeight is the screen height below which the flush panel gives
// its rows to the table.
const panelMinHeight = 14

// panel is the connector's flush lag above the table: status and why,
// last flush and interval, unflushed records, flushes per minute and
// progress, and a timeline of its flushes. It always takes the same
// number of lines for a size, so the table's height does not jump.
func (s *PartitionsScreen) panel() []string {
	if s.height < panelMinHeight {
		return nil
	}
	st, rep, w := s.st, s.Report, s.width
	sep := st.Muted.Render(" · ")
	status := st.FlushStyle(rep.Status).Render(kit.FlushText(rep.Status)) + st.Muted.Render(": "+kit.Clean(rep.Reason))
	last := "last flush " + kit.Age(s.now, rep.Last)
	interval := kit.IntervalText(rep)
	if ansi.StringWidth(strings.Join([]string{status, last, interval}, sep)) > w { // say it briefly
		interval = "every " + kit.IntervalCell(rep)
	}
	parts := []string{status, last, interval}
	edit, edited := s.Edited[s.Id.Name]
	edited = edited && s.now.Sub(edit) < timelineSpan
	if edited { // its records are not a flush: say so, after the last flush
		parts = append(parts[:2], st.Info.Render("✎ edited "+kit.Age(s.now, edit)), interval)
		if s.inREST && (s.rest.State == "STOPPED" || s.rest.State == "PAUSED") && !rep.Last.Before(edit.Add(-kit.ApplyTimeout)) {
			// No task ran since: the newest records are the edit's.
			parts = []string{status, st.Info.Render("✎ newest records: the edit, " + kit.Age(s.now, edit)), interval}
		}
	}
	line1 := fitParts(w, sep, parts...)

	var unflushed string
	switch {
	case kit.ShownUnflushed(s.conn, rep).Unflushed >= 0:
		u := kit.ShownUnflushed(s.conn, rep)
		unflushed = kit.Plural(int(u.Unflushed), "record", "records") + " unflushed"
		if w >= 120 {
			unflushed += " (a crash replays them)"
		}
		if u.Shared > 0 && s.conn.Unflushed != nil {
			unflushed = fmt.Sprintf("%s, and %d in topics shared with %s, whose koff cannot tell", unflushed, u.Shared, strings.Join(s.conn.Unflushed.SharedWith, ", "))
		}
	case len(s.conn.Topics) == 0:
		unflushed = "unflushed: – (its topics are not known)"
	default:
		unflushed = "unflushed: – (not measured yet)"
	}
	perMin := kit.Plural(model.FlushesSince(s.conn.Flushes, s.now.Add(-time.Minute)), "flush/min", "flushes/min")
	progress := "progress –"
	if rates := s.rates.sum; len(rates) > 0 {
		var rs []string
		for _, r := range rates {
			rs = append(rs, r.Field+" "+kit.RateText(r.Rate))
		}
		progress = "progress " + strings.Join(rs, ", ")
		if s.rates.skipped > 0 {
			progress += fmt.Sprintf(" (the %s most recent partitions)", kit.Count(s.rates.counted))
		}
	}
	line2 := kit.Truncate(strings.Join([]string{unflushed, perMin, progress}, sep), w)

	buckets := model.FlushBuckets(s.conn.Flushes, s.now, timelineSpan, max(w, 1))
	cells := []rune(kit.Sparkline(buckets))
	if edited && len(cells) > 0 { // ✎ in the cell of the edit
		cell := timelineSpan / time.Duration(len(cells))
		cells[max(len(cells)-1-int(s.now.Sub(edit)/cell), 0)] = '✎'
	}
	spark := st.Info.Render(string(cells))
	middle := "records per flush, " + kit.ShortDur(timelineSpan/time.Duration(max(w, 1))) + " a cell"
	if sum(buckets) == 0 {
		middle = "no flush in the last " + kit.ShortDur(timelineSpan)
	}
	labels := st.Muted.Render(ends("−"+kit.ShortDur(timelineSpan), middle, "now", w))
	return []string{line1, line2, spark, labels}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// ends lays out a label at each end of a line of width w and one in the
// middle, dropping the middle when there is no room for it.
func ends(left, middle, right string, w int) string {
	lw, mw, rw := ansi.StringWidth(left), ansi.StringWidth(middle), ansi.StringWidth(right)
	if lw+mw+rw+4 > w {
		return kit.Spread(left, right, w)
	}
	gap := w - lw - mw - rw
	return left + strings.Repeat(" ", gap/2) + middle + strings.Repeat(" ", gap-gap/2) + right
}

// fitParts joins parts with sep in width w. When they do not fit, the
// first part (a status and its reason) is cut so the facts after it stay.
func fitParts(w int, sep string, parts ...string) string {
	line := strings.Join(parts, sep)
	if ansi.StringWidth(line) <= w {
		return line
	}
	rest := sep + strings.Join(parts[1:], sep)
	if room := w - ansi.StringWidth(rest); room >= 16 {
		return ansi.Truncate(parts[0], room, "…") + rest
	}
	return ansi.Truncate(line, w, "…")
}

// maxRatePartitions bounds the histories read for the progress rate on a
// reload: a connector can have many thousands of source partitions.
const maxRatePartitions = 500

// rateCache keeps each source partition's progress rates, recomputed only
// for partitions that got a new record since the last reload (reading a
// partition's history copies it), and their sum by field.
type RateCache struct {
	byID             map[string]rateEntry
	sum              []kit.FieldRate
	counted, skipped int
}

// newestRows is a min-heap of row indices by update time (upd).
type newestRows struct {
	upd []int64
	idx []int
}

func (h *newestRows) Len() int           { return len(h.idx) }
func (h *newestRows) Less(a, b int) bool { return h.upd[h.idx[a]] < h.upd[h.idx[b]] }
func (h *newestRows) Swap(a, b int)      { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *newestRows) Push(x any)         { h.idx = append(h.idx, x.(int)) }
func (h *newestRows) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

type rateEntry struct {
	recordOffset int64
	rates        map[string]float64
}

// update sums the rates of the partitions updated within the timeline:
// an older rate says nothing about progress now.
func (c *RateCache) Update(src kit.Source, rows []Prow, now time.Time) {
	*c = c.Next(src, rows, now, nil, nil)
}

// rowTimes are the update times of rows, Unix ns, and which are
// tombstones, in arrays of their own: the rates' walk of 100,000 rows
// then reads two arrays, not 100,000 rows scattered over the heap.
type rowTimes struct {
	Upd []int64
	Del []bool
}

// unixNano is t in Unix ns, in the same order as the times: those before
// 1678 or after 2262, which UnixNano cannot give, are the least and the
// most int64 (a record's timestamp is any int64 of milliseconds).
func UnixNano(t time.Time) int64 {
	switch {
	case t.Before(MinUnixNano):
		return math.MinInt64
	case t.After(MaxUnixNano):
		return math.MaxInt64
	}
	return t.UnixNano()
}

var MinUnixNano, MaxUnixNano = time.Unix(0, math.MinInt64+1), time.Unix(0, math.MaxInt64-1)

func TimesOf(rows []Prow) rowTimes {
	t := rowTimes{Upd: make([]int64, len(rows)), Del: make([]bool, len(rows))}
	for i, r := range rows {
		t.Upd[i], t.Del[i] = UnixNano(r.Updated), r.Deleted
	}
	return t
}

// next is update's result as a new cache, c left as it is (a reload off
// the UI goroutine works it out while the screen shows c).
// times are those of rows (nil: made of them).
func (c RateCache) Next(src kit.Source, rows []Prow, now time.Time, y *kit.Yielder, times *rowTimes) RateCache {
	if times == nil || len(times.Upd) != len(rows) {
		t := TimesOf(rows)
		times = &t
	}
	// The newest maxRatePartitions updated within the timeline, newest
	// first: kept in a min-heap of that size, not by sorting every row.
	upd, del := times.Upd, times.Del
	cut := UnixNano(now.Add(-timelineSpan))
	h := &newestRows{upd: upd}
	n := 0
	for i := range rows {
		y.Step()
		if del[i] || upd[i] < cut {
			continue
		}
		n++
		switch {
		case len(h.idx) < maxRatePartitions:
			heap.Push(h, i)
		case upd[i] > upd[h.idx[0]]:
			h.idx[0] = i
			heap.Fix(h, 0)
		}
	}
	sort.Slice(h.idx, func(a, b int) bool { return upd[h.idx[a]] > upd[h.idx[b]] })
	c.skipped = max(n-maxRatePartitions, 0)
	recent := make([]model.PartitionRow, len(h.idx))
	for k, i := range h.idx {
		recent[k] = *rows[i]
	}
	next := make(map[string]rateEntry, len(recent))
	all := make([]map[string]float64, 0, len(recent))
	// The histories of the partitions with a new record, read together.
	var stale []model.PartitionID
	for _, r := range recent {
		if e, ok := c.byID[partitionIdentity(r)]; !ok || e.recordOffset != r.RecordOffset {
			stale = append(stale, r.ID)
		}
	}
	var histories [][]model.Update
	if len(stale) > 0 {
		histories = src.Histories(stale)
	}
	for _, r := range recent {
		id := partitionIdentity(r)
		e, ok := c.byID[id]
		if !ok || e.recordOffset != r.RecordOffset {
			h := histories[0]
			histories = histories[1:]
			if h == nil {
				continue
			}
			e = rateEntry{recordOffset: r.RecordOffset, rates: model.Rates(h)}
		}
		next[id] = e
		all = append(all, e.rates)
	}
	c.byID, c.counted, c.sum = next, len(recent), kit.SumRates(all)
	return c
}

// pointers are the rows of read as the screen holds them.
func pointers(read []model.PartitionRow) []Prow {
	rows := make([]Prow, len(read))
	for i := range read {
		rows[i] = &read[i]
	}
	return rows
}

// selected is the selected row, a copy.
func (s *PartitionsScreen) Selected() (model.PartitionRow, bool) {
	if r, ok := s.List.Selected(); ok {
		return *r, true
	}
	return model.PartitionRow{}, false
}

// clip on the partitions table is the selected source partition's offset
// as the Store holds it: compact JSON, byte for byte what the table shows.
func (s *PartitionsScreen) Clip() (string, string, error) {
	r, ok := s.Selected()
	switch {
	case !ok:
		return "", "", errors.New("no source partition selected")
	case r.Deleted || r.Offset == "":
		return "", "", errors.New("nothing to copy: this source partition's offset is deleted (its latest record is a tombstone)")
	}
	return r.Offset, "offset of " + kit.TruncateMiddle(r.Partition, kit.ClipWhatWidth), nil
}
