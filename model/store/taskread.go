package store

import (
	"bytes"
	"fmt"
	"maps"
	"time"

	"koff/model"
	"koff/model/java"
)

// What a restarted task reads (Apache Kafka 4.1.1):
//
//   - KafkaOffsetBackingStore's consumedCallback keeps one value per raw
//     key bytes across every partition of the offsets topic: the record
//     read last replaces the one before it, and a null value removes it.
//   - OffsetStorageReaderImpl.offsets serialises the task's own partition
//     map (JsonConverter.fromConnectData: compact, Jackson's escaping, the
//     map's field order, Java's number forms) and looks up exactly those
//     bytes. A key that parses to the same partition but has other bytes is
//     a different key the task never reads.
//   - The value found is read with JsonConverter.toConnectData and checked
//     with OffsetUtils.validateFormat. Zero bytes and the literal null read
//     as null; anything the converter or the check refuses is logged and
//     the task gets no offset, not an older one.
//
// So of all stored copies of one partition (keys of one connector that
// parse to equal Java maps), the task reads the latest record of the key
// bytes it writes itself; every other copy is a stray.

// valueState is what a task makes of a stored value.
type valueState uint8

const (
	valueOffset     valueState = iota // a map of primitives: the task's offset
	valueTombstone                    // null record value: deleted
	valueNull                         // zero bytes, whitespace or null: the task reads null
	valueUnreadable                   // refused by the converter or validateFormat: logged, no offset
)

func classifyValue(raw []byte) valueState {
	if raw == nil {
		return valueTombstone
	}
	if plainOffset(raw) {
		return valueOffset
	}
	_, err := model.ParseOffset(raw)
	switch {
	case err == nil:
		return valueOffset
	case err == model.ErrNullOffset:
		return valueNull
	}
	return valueUnreadable
}

// partState is what koff worked out for one source partition of a
// connector: which stored copy the task reads, and why the others are
// strays.
type partState struct {
	entries []*entry // every stored copy, in the order first seen
	live    *entry   // nil: no copy has the task's key bytes
	// taskKey is the key the task looks up, as far as koff can know, when
	// no copy has it (else it is live's key: see lookup).
	taskKey []byte
	// note qualifies the choice (field order unknown, read order).
	note string
	// orderUnknown: several task-form keys differ only in field order and
	// nothing tells which order the task uses.
	orderUnknown bool
	// stray gives each non-live copy's reason (nil when there is none).
	stray map[*entry]string
}

// lookup is the key the task looks up.
func (ps *partState) lookup() string {
	if ps.live != nil {
		return ps.live.key
	}
	return string(ps.taskKey)
}

// connParts is a connector's partitions with their copies; computed from
// the entries on demand and cached until the connector changes.
type connParts struct {
	gen uint64
	// handed is the topic's records when a fresh read's polls (fresh)
	// decided a copy: another connector's records change which copy a
	// fresh read keeps.
	handed int64
	fresh  *model.FreshRead
	parts  []*partState
	of     []*partState // by entry.idx
	// What they were built over (the connector's entries and its topic's
	// partition count), the field orders of its task-form keys, and the
	// partitions of several copies (indices in parts): with the same
	// entries, only those can be decided differently (redecide).
	n, nparts int
	orders    map[string]int32
	tally     orderTallies // what orders was worked out of
	multi     []int32
}

// partsOf returns the connector's partition states. Callers hold s.mu (read
// or write); the cache is swapped atomically so concurrent readers are
// safe, and worked out anew by one reader at a time (s.partsMu).
func (s *Store) partsOf(c *connector) *connParts {
	handed := s.handedTopic[c.id.Topic]
	current := func(cp *connParts) bool {
		return cp != nil && cp.gen == c.gen && (cp.fresh == nil || cp.handed == handed)
	}
	if old := c.parts.Load(); current(old) {
		return old
	}
	s.partsMu.Lock()
	defer s.partsMu.Unlock()
	old := c.parts.Load()
	if current(old) {
		return old // another reader worked it out meanwhile
	}
	tr := &topicRead{partitions: s.partitions[c.id.Topic], store: s, topic: c.id.Topic}
	var cp *connParts
	switch {
	case old != nil && old.n == len(c.entries) && old.nparts == tr.partitions:
		cp = old.redecide(c, tr, s.opts.FlushWindow, s.shapes.list)
	case old != nil && old.n < len(c.entries) && old.nparts == tr.partitions:
		cp = old.extend(c, tr, s.opts.FlushWindow, s.shapes.list)
	}
	if cp == nil {
		cp = buildParts(c, tr, s.opts.FlushWindow, s.shapes.list)
	}
	cp.fresh, cp.handed = tr.fresh, handed
	c.parts.Store(cp)
	return cp
}

// buildParts groups the connector's entries into partitions (group) and
// decides each: a connector can have a million partitions, and this runs
// whenever one of them changed and a reader looks.
func buildParts(c *connector, tr *topicRead, window time.Duration, shapes []keyShape) *connParts {
	cp := &connParts{gen: c.gen, of: make([]*partState, len(c.entries)), n: len(c.entries), nparts: tr.partitions, tally: orderTallies{}}
	heads := 0
	for _, e := range c.entries {
		if e.firstCopy {
			heads++
		}
	}
	cp.parts = make([]*partState, 0, heads)
	cp.group(c.entries, heads, tr.store, shapes)
	cp.orders = cp.tally.orders()
	cp.decideFrom(0, c, tr, window, shapes)
	return cp
}

// decideFrom decides cp.parts[from:], over cp's orders and all its parts.
func (cp *connParts) decideFrom(from int, c *connector, tr *topicRead, window time.Duration, shapes []keyShape) {
	var flushed func(*entry) bool
	for _, ps := range cp.parts[from:] {
		if len(ps.entries) == 1 && ps.entries[0].taskForm {
			// The common case: one copy, in the task's own form.
			ps.live = ps.entries[0]
			if ps.live.nested {
				ps.note = nestedNote
			}
			continue
		}
		if flushed == nil {
			flushed = flushedWith(cp.parts, window)
		}
		ps.decide(c.id.Name, cp.orders, tr, flushed, shapes)
	}
}

const nestedNote = "the partition map has nested values, which OffsetUtils.validateFormat refuses: no task can read or write this partition"

// orderTallies infer the task's field order for each set of field names
// from partitions whose task-form keys agree on one order: a task builds
// every partition map of one shape the same way. They count, for each set
// of sorted names, those partitions by order (keyShape numbers), and are
// kept with the parts so that partitions added later are counted on
// (connParts.extend). A tally is never changed once a connParts holds it:
// clone it first.
type orderTallies map[string]*orderTally

type orderTally struct {
	best, n int32
	count   map[int32]int
}

// add counts ps's order, if its task-form keys agree on one.
func (t orderTallies) add(ps *partState, shapes []keyShape) {
	order := int32(-1)
	n := 0
	for _, e := range ps.entries {
		if !e.taskForm || e.shape < 0 {
			continue
		}
		if e.shape != order {
			order = e.shape
			n++
		}
	}
	if n != 1 {
		return
	}
	names := shapes[order].sorted
	c := t[names]
	if c == nil {
		c = &orderTally{best: order}
		t[names] = c
	}
	if order == c.best && c.count == nil {
		c.n++ // one order so far, as nearly always: no map
		return
	}
	if c.count == nil {
		c.count = map[int32]int{c.best: int(c.n)}
	}
	c.count[order]++
}

// clone is a copy to add to.
func (t orderTallies) clone() orderTallies {
	out := make(orderTallies, len(t))
	for names, c := range t {
		d := *c
		d.count = maps.Clone(c.count)
		out[names] = &d
	}
	return out
}

// orders is each set of names' order: the one of the most partitions,
// none on a tie.
func (t orderTallies) orders() map[string]int32 {
	out := map[string]int32{}
	for names, c := range t {
		if c.count == nil {
			out[names] = c.best
			continue
		}
		best, bestN, tie := int32(-1), 0, false
		for o, n := range c.count {
			switch {
			case n > bestN:
				best, bestN, tie = o, n, false
			case n == bestN:
				tie = true
			}
		}
		if !tie {
			out[names] = best
		}
	}
	return out
}

// later reports whether a was read after b in the worker's read order. The
// worker consumes all partitions at once, so for the same key bytes in two
// partitions the order is not fixed; the newer record is the best guess
// (and the copies are flagged duplicate). Records of one moment (one edit)
// prefer the copy in its murmur2 partition, where the worker itself writes.
func later(a, b *entry, nparts int) bool {
	if at, bt := a.updated(), b.updated(); !at.Equal(bt) {
		return at.After(bt)
	}
	if nparts > 0 {
		ah, bh := int(a.hash&0x7fffffff)%nparts == int(a.partition), int(b.hash&0x7fffffff)%nparts == int(b.partition)
		if ah != bh {
			return ah
		}
	}
	if a.partition != b.partition {
		return a.partition > b.partition
	}
	return a.recordOffset() > b.recordOffset()
}

func (ps *partState) decide(connector string, orders map[string]int32, tr *topicRead, flushed func(*entry) bool, shapes []keyShape) {
	nparts := tr.partitions
	ps.stray = make(map[*entry]string, len(ps.entries))
	// The latest record of each distinct key bytes.
	latest := map[string]*entry{}
	var keys []string
	for _, e := range ps.entries {
		cur := latest[e.key]
		if cur == nil {
			keys = append(keys, e.key)
		}
		if cur == nil || readLast(e, cur, tr) {
			latest[e.key] = e
		}
	}
	var candidates []*entry // latest copy of each task-form key bytes
	for _, k := range keys {
		if latest[k].taskForm {
			candidates = append(candidates, latest[k])
		}
	}
	first := ps.entries[0]
	switch {
	case len(candidates) == 0:
		var p java.Object
		fp := first.partitionMap()
		if fp != nil {
			p = java.JavaNumbers(fp).(java.Object)
		}
		ps.taskKey = java.EncodeKey(connector, p)
		if len(fp) > 1 {
			ps.taskKey = java.EncodeKey(connector, java.JavaNumbers(java.HashMapOrder(fp)).(java.Object))
		}
	case len(candidates) == 1:
		ps.live = candidates[0]
	default:
		ps.live, ps.note, ps.orderUnknown = pickOrder(candidates, orders, nparts, flushed, shapes)
	}
	if ps.live != nil {
		ps.taskKey = nil // lookup gives the live key
	}
	if first.nested {
		ps.note = joinNote(ps.note, nestedNote)
	}
	for _, e := range ps.entries {
		if e == ps.live {
			continue
		}
		ps.stray[e] = strayReason(e, ps, latest)
	}
	if ps.live != nil {
		// Of the other copies of the live key's bytes, one whose value
		// differs is the one to tell of, whichever was seen first.
		var other *entry
		for _, e := range ps.entries {
			if e == ps.live || e.key != ps.live.key {
				continue
			}
			if other == nil || !sameValue(e, ps.live) {
				other = e
			}
			if !sameValue(e, ps.live) {
				break
			}
		}
		if other != nil {
			ps.note = joinNote(ps.note, sameBytesNote(ps.live, other, tr))
		}
	}
}

// sameValue: two copies hold offsets a task reads alike.
func sameValue(a, b *entry) bool {
	av, bv := a.value(), b.value()
	return av != nil && bv != nil && model.SameOffset(av, bv)
}

// topicRead is what decides a fresh read's order in an offsets topic: its
// partition count (0: unknown) and the polls its records come in, worked
// out when first needed.
type topicRead struct {
	partitions int
	store      *Store
	topic      string
	fresh      *model.FreshRead
}

func (tr *topicRead) read() *model.FreshRead {
	if tr.fresh == nil {
		tr.fresh = tr.store.freshRead(tr.topic, tr.partitions)
	}
	return tr.fresh
}

// readLast reports whether copy a of some key bytes is the one a restarted
// worker keeps over copy b: the one its polls hand over last (FreshRead)
// when koff knows the partition count, else the newer record.
func readLast(a, b *entry, tr *topicRead) bool {
	if a.partition != b.partition && tr.partitions > 0 {
		return tr.read().ReadAfter(int(a.partition), a.ordinal, int(b.partition), b.ordinal)
	}
	return later(a, b, tr.partitions)
}

// sameBytesNote explains which of two copies of the task's key bytes a
// restarted task reads, and why an operator should not trust the newer.
func sameBytesNote(live, other *entry, tr *topicRead) string {
	if sameValue(other, live) {
		return "the same key bytes are in more than one partition of the topic, with the same value"
	}
	const differ = "the same key bytes are in more than one partition of the topic, with different values: a restarted worker reads the topic from the start and keeps the copy it reads last, which follows its consumer's partition order, not time; "
	var note string
	switch fr := tr.fresh; {
	case tr.partitions == 0:
		note = differ + "koff shows the newest"
	case fr == nil || fr.Exact && fr.OnePoll():
		note = fmt.Sprintf(differ+"the topic comes in one poll (up to 500 records, max.poll.records), in which the copy in %s is read after the one in %s", live.tp(), other.tp())
	case fr.Exact:
		note = fmt.Sprintf(differ+"the topic's %d records come in several polls of 500 (max.poll.records), which koff works out from the records it read, in which the copy in %s is read after the one in %s; compaction since can move the polls", fr.Records(), live.tp(), other.tp())
	default:
		note = fmt.Sprintf(differ+"a partition holds more than max.partition.fetch.bytes (1 MiB), so the order of the consumer's fetches decides, which koff cannot see: it shows the copy in %s, which the first fetch hands over after the one in %s", live.tp(), other.tp())
	}
	if other.updated().After(live.updated()) {
		note += "; a worker that was reading when the newer copy was written keeps that one until it restarts"
	}
	return note + "; an edit of the partition writes every copy"
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// pickOrder chooses among task-form keys that differ only in field order:
// the order the connector's other partitions show, else the HashMap order
// REST writes, else the newest.
func pickOrder(cands []*entry, orders map[string]int32, nparts int, flushed func(*entry) bool, shapes []keyShape) (*entry, string, bool) {
	// Candidates differ only in field order, so they have two fields or
	// more and one set of names.
	names := shapes[cands[0].shape].sorted
	if o, ok := orders[names]; ok {
		for _, c := range cands {
			if c.shape == o {
				return c, "field order taken from the connector's other keys", false
			}
		}
	}
	var withFlush []*entry
	for _, c := range cands {
		if flushed(c) {
			withFlush = append(withFlush, c)
		}
	}
	if len(withFlush) == 1 {
		return withFlush[0], "field order taken from the key written in one flush with the connector's other partitions, as a task commits its own keys", false
	}
	for _, c := range cands {
		if c.canonical {
			return c, "the task's field order cannot be known from the stored keys: koff assumes the Java HashMap order Connect's REST API writes; a task that builds its map in another order reads the copy in that order instead", true
		}
	}
	best := cands[0]
	for _, c := range cands[1:] {
		if later(c, best, nparts) {
			best = c
		}
	}
	return best, "the task's field order cannot be known from the stored keys, and none is in the HashMap order REST writes: koff assumes the newest", true
}

// flushedWith returns whether an entry has a record written within window
// of a record of another partition of the connector: one offset commit of
// a task, which sends all its partitions' offsets together
// (OffsetStorageWriter.doFlush), while a key written by hand or by one REST
// call of one partition stands alone.
func flushedWith(parts []*partState, window time.Duration) func(*entry) bool {
	return func(e *entry) bool {
		var eOne, oOne [1]model.Update
		eKept := e.kept(&eOne)
		for _, ps := range parts {
			if ps.entries[0].identity() == e.identity() {
				continue
			}
			for _, o := range ps.entries {
				for _, u := range o.kept(&oOne) {
					for _, v := range eKept {
						if d := u.Time.Sub(v.Time); d < window && d > -window {
							return true
						}
					}
				}
			}
		}
		return false
	}
}

func hasNested(o java.Object) bool {
	for _, f := range o {
		switch f.Value.(type) {
		case java.Object, []any:
			return true
		}
	}
	return false
}

// strayReason says why the task does not read e.
func strayReason(e *entry, ps *partState, latest map[string]*entry) string {
	live := ps.live
	switch {
	case live != nil && e.key == live.key:
		return fmt.Sprintf("the same key bytes as the copy in %s, which a restarted worker reads after this one", live.tp())
	case latest[e.key] != e:
		return fmt.Sprintf("an older record of the same key bytes than the one in %s", latest[e.key].tp())
	case e.taskForm && live != nil:
		return "the same partition with its fields in another order: the task looks up " + ps.lookup()
	case e.taskForm:
		return "field order differs from the task's"
	}
	want := java.EncodeKey(e.conn.id.Name, javaNumbersOrNil(e.partitionMap()))
	why := keyDifference([]byte(e.key), want)
	if live == nil {
		return why + ": the task looks up " + string(want) + ", which is not stored, so it reads no offset"
	}
	return why + ": the task looks up " + ps.lookup()
}

func javaNumbersOrNil(p java.Object) java.Object {
	if p == nil {
		return nil
	}
	return java.JavaNumbers(p).(java.Object)
}

// keyDifference names how stored key bytes differ from what a task writes.
func keyDifference(raw, want []byte) string {
	squeezed := squeezeSpace(raw)
	switch {
	case bytes.Equal(squeezed, want):
		return "the key has whitespace"
	case bytes.HasPrefix(squeezed, want):
		return "the key has text after its JSON"
	case bytes.Equal(numberShape(squeezed), numberShape(want)):
		return "the key's numbers are not written as Java writes them"
	}
	return "the key bytes (escaping or number forms) are not what Jackson writes"
}

// squeezeSpace drops JSON whitespace outside strings.
func squeezeSpace(b []byte) []byte {
	return outsideStrings(b, func(out []byte, c byte) []byte {
		if java.IsJacksonSpace(c) {
			return out
		}
		return append(out, c)
	})
}

// numberShape replaces every number token outside strings by '#', so that
// two texts of the same shape differ only in how numbers are written.
func numberShape(b []byte) []byte {
	return outsideStrings(b, func(out []byte, c byte) []byte {
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || java.IsDigit(c) {
			if len(out) == 0 || out[len(out)-1] != '#' {
				out = append(out, '#')
			}
			return out
		}
		return append(out, c)
	})
}

// outsideStrings copies b, keeping JSON strings (escapes included) as they
// are and passing every other byte through f.
func outsideStrings(b []byte, f func(out []byte, c byte) []byte) []byte {
	out := make([]byte, 0, len(b))
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr:
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		default:
			out = f(out, c)
		}
	}
	return out
}
