package store

import (
	"bytes"
	"slices"
	"strings"

	"koff/model"
	"koff/model/java"
)

// Ingest applies a batch of records under one lock. Each distinct key is
// parsed once; later records of a known key are matched by raw bytes. The
// Store copies the keys it keeps, so a caller may reuse Key buffers once
// Ingest returns; it keeps the Value slices, which must not be reused.
func (s *Store) Ingest(batch []Record) {
	if len(batch) == 0 {
		return
	}
	s.makeSpares(batch)
	s.mu.Lock()
	s.stamp++
	if s.readTo == nil {
		s.readTo = map[model.TopicPartition]int64{}
	}
	// A batch is nearly always of one topic-partition: its maps are
	// looked up once per run of records of the same one.
	var tp model.TopicPartition
	var keys *hashIndex
	var run handedRun
	to := int64(-1)
	for i := range batch {
		r := &batch[i]
		if lookAhead && i%aheadWindow == 0 {
			s.lookAhead(batch[i:min(i+aheadWindow, len(batch))])
		}
		if i == 0 || r.Partition != tp.Partition || r.Topic != tp.Topic {
			if i > 0 {
				s.endRun(tp, to, run)
			}
			tp, to = model.TopicPartition{Topic: r.Topic, Partition: r.Partition}, -1
			run = handedRun{from: s.readTo[tp], first: s.handed[tp]}
			run.next = run.first
			if c := r.prep.chunk; c != nil {
				// The records a Latest kept stand for their whole chunk.
				skip, n, bytes := c.counted(run.from)
				run.skip, run.next, run.bytes = skip, run.first+n, bytes
			}
			if keys = s.byKey[r.Topic]; keys == nil {
				keys = &hashIndex{}
				s.byKey[r.Topic] = keys
			}
		}
		// A record before readTo was ingested before (a re-read after a
		// reconnect): not counted again.
		s.ordinal = -1
		switch {
		case r.prep.chunk != nil:
			if pos := int(r.prep.pos); pos >= run.skip {
				s.ordinal = run.first + int64(pos-run.skip)
			}
		case r.Offset >= run.from:
			s.ordinal = run.next
			run.next++
			run.bytes += int64(len(r.Key) + len(r.Value))
		}
		to = max(to, r.Offset+1)
		p, k := r.prep, r.prep.keyAt()
		if lookAhead {
			p, k = s.ahead.prep[i%aheadWindow], s.keyAhead(i%aheadWindow)
		}
		s.ingest(r, keys, p, k)
	}
	s.endRun(tp, to, run)
	// Once per batch, not per record: a key is often updated several
	// times in one fetched chunk while catching up.
	for _, e := range s.regap {
		r := e.more
		r.gap, r.gaps = s.gapOf(e)
		r.regap = false
	}
	clear(s.regap)
	s.regap = s.regap[:0]
	s.mu.Unlock()
	s.bump()
}

// handedRun counts the records of a run of one topic-partition in a batch:
// from is readTo before it, first and next the ordinals of its first and
// next record, bytes their key and value bytes.
type handedRun struct {
	from, first, next, bytes int64
	skip                     int // a Latest chunk's records read before (latestChunk.counted)
}

// endRun notes what a run of records of tp added.
func (s *Store) endRun(tp model.TopicPartition, to int64, run handedRun) {
	if to > s.readTo[tp] {
		s.readTo[tp] = to
	}
	if n := run.next - run.first; n > 0 {
		if s.handed == nil {
			s.handed, s.handedBytes, s.handedTopic = map[model.TopicPartition]int64{}, map[model.TopicPartition]int64{}, map[string]int64{}
		}
		s.handed[tp] = run.next
		s.handedBytes[tp] += run.bytes
		s.handedTopic[tp.Topic] += n
	}
}

// ingest applies r, p being what Prepare works out of it (or not yet, if
// not p.done) and k the facts of its key, if worked out before.
func (s *Store) ingest(r *Record, keys *hashIndex, p prepared, k *keptKey) {
	s.records++
	if p.chunk != nil {
		s.records += int64(p.chunk.count[p.pos])
	}
	if !p.done { // worked out here, not written back: the batch is the caller's
		p = r.workPrepared()
	}
	h := p.hash
	head := s.entryAt(keys.get(h, homeSlot))
	var e, same *entry // this copy; the first copy of the same bytes
	for x := head; x != nil; x = s.entryAt(x.nextHome) {
		if x.key == string(r.Key) {
			if same == nil {
				same = x
			}
			if int(x.partition) == r.Partition {
				e = x
				break
			}
		}
	}
	if e != nil && r.Offset <= e.recordOffset() {
		return // already seen (re-read after a reconnect)
	}
	if e == nil {
		var ok bool
		if e, ok = s.newEntry(r, keys, h, head, same, k); !ok {
			return
		}
	}
	// Every value counts, readable or not: the worker's map keeps the
	// latest record of the key whatever it holds (consumedCallback), so an
	// unreadable value replaces the offset before it.
	e.plain = p.plain
	if p.plain {
		e.state, e.javaNumber = valueOffset, false // the common form, known without parsing
	} else {
		e.state = classifyValue(r.Value)
		// Worked out once here, not each time flags are shown.
		e.javaNumber = e.state == valueOffset && javaNumberDiffers(r.Value)
	}
	if e.state == valueUnreadable {
		_, err := model.ParseOffset(r.Value)
		s.addUnparseable(r, "value: "+err.Error())
	}
	c := e.conn
	c.records++
	c.gen++
	s.logChange(c, e)
	e.stamp, c.stamp = s.stamp, s.stamp
	wasLive := e.updates > 0 && e.value() != nil
	if p.chunk != nil && p.chunk.count[p.pos] > 0 {
		s.pushOlder(e, p)
	}
	e.ordinal = s.ordinal
	s.push(e, model.Update{Time: r.Time, RecordOffset: r.Offset, Value: r.Value})
	e.updates++
	// An entry of one update has no gap: only a ring's is worked out.
	if m := e.more; m != nil && !m.regap && !s.opts.OneShot {
		m.regap = true
		s.regap = append(s.regap, e)
	}
	switch {
	case r.Value != nil && !wasLive:
		c.live++
		if e.updates > 1 {
			c.deleted--
		}
	case r.Value == nil && wasLive:
		c.live--
		c.deleted++
	case r.Value == nil && e.updates == 1:
		c.deleted++
	}
	if r.Time.After(c.lastUpdate) {
		c.lastUpdate = r.Time
	}
	switch {
	case r.Koff || s.takeKoff(r):
		s.koffUpdate(e, r.Offset) // koff's edit: no flush of the connector
	case !s.opts.OneShot:
		c.flushes, c.lastFlush = model.AddFlushAt(c.flushes, c.lastFlush, r.Time, s.opts.FlushWindow, s.opts.Flushes)
	}
}

// pushOlder adds to e's history the records of its key bytes that the
// record p was worked out of superseded in its chunk (Latest.Keep), as ingesting them one by one
// would have: their times and offsets, in order, and their count.
func (s *Store) pushOlder(e *entry, p prepared) {
	seen := int64(-1) // a re-read after a reconnect: offsets already stored
	if e.updates > 0 {
		seen = e.recordOffset()
	}
	superseded, older := p.chunk.superseded(int(p.pos))
	n := superseded - len(older) // not in the ring: counted only
	if len(older) > 0 && older[0].RecordOffset <= seen {
		n = 0 // older still
	}
	if t := p.chunk.newest[p.pos]; t.After(e.conn.lastUpdate) {
		e.conn.lastUpdate = t
	}
	for _, u := range older {
		if u.RecordOffset > seen {
			s.push(e, u)
			e.updates++ // push counts on it
			e.conn.records++
		}
	}
	e.updates += int32(n)
	e.conn.records += int64(n)
}

// within returns s sharing the bytes of in when in holds it: a compact
// partition map, and often its identity, are already in the key's bytes,
// and a million source partitions make every copy count.
func within(s, in string) string {
	if i := strings.Index(in, s); i >= 0 {
		return in[i : i+len(s)]
	}
	return s
}

// newEntry stores a key first seen in r's topic-partition, h the hash of
// its bytes and head keys[h]; same is its copy in another partition of the
// topic, if any, whose analysis it shares; k its facts if worked out
// before. ok is false for a key the worker cannot read (then recorded as
// unparseable).
func (s *Store) newEntry(r *Record, keys *hashIndex, h uint64, head, same *entry, k *keptKey) (*entry, bool) {
	tp := model.TopicPartition{Topic: r.Topic, Partition: r.Partition}
	var e *entry
	var ref uint32
	if same != nil {
		e, ref = s.alloc()
		*e = entry{
			key: same.key, partition: int32(tp.Partition), conn: same.conn,
			part: same.part, ident: same.ident, shape: same.shape, hash: same.hash,
			canonical: same.canonical, taskForm: same.taskForm, nested: same.nested, shared: true,
		}
		for x := head; x != nil; x = s.entryAt(x.nextHome) {
			if x.key == e.key {
				x.shared = true
			}
		}
	} else {
		key, f, murmur, err := s.analyze(r, k)
		if err != nil {
			s.addUnparseable(r, err.Error())
			return nil, false
		}
		cid := model.ConnectorID{Topic: tp.Topic, Name: f.connector}
		var c *connector
		if k != nil && k.conn != nil {
			c = k.conn // lookAhead found it: connectors stay until Reset
		} else {
			c = s.connectorOf(cid)
		}
		if c == nil {
			c = &connector{id: cid, lastFlush: -1, whole: s.stamp}
			s.connectors[cid] = c
		}
		e, ref = s.alloc()
		*e = entry{
			key: key, partition: int32(tp.Partition), conn: c,
			shape: f.shape, hash: murmur,
			canonical: f.canonical, taskForm: f.taskForm, nested: f.nested,
		}
		e.setPartitionStr(f.partition)
		e.setIdentity(f.identity)
	}
	c := e.conn
	e.idx = int32(len(c.entries))
	c.entries = appendDoubling(c.entries, e)
	// The slots that find e: of its key bytes if the first of them, and
	// of its partition if the first copy; one if both (the key in the
	// form workers write).
	var kind slotKind
	if x := head; x == nil {
		kind = homeSlot
	} else {
		// Last in the chain of its hash: a copy's nextHome order is the
		// order first seen.
		for x.nextHome != 0 {
			x = s.entryAt(x.nextHome)
		}
		x.nextHome = ref
	}
	ch := s.copyHash(e, h)
	if s.addCopy(keys, c, e, ref, ch) {
		if kind == homeSlot && sameTag(h, ch) {
			kind |= copySlot
		} else {
			s.reserve(keys)
			keys.Put(ch, copySlot, ref)
		}
	}
	if kind != 0 {
		s.reserve(keys)
		keys.Put(h, kind, ref)
	}
	return e, true
}

// copyHash is the hash e's partition is found by in its topic's index
// (copySlot): that of the bytes ["connector",identity], whatever e's own
// bytes. A key in that form, which workers write, is those bytes, whose
// hash h is already worked out; for another the bytes are made in a
// buffer of the Store's, not a string each.
func (s *Store) copyHash(e *entry, h uint64) uint64 {
	name, key := e.conn.id.Name, e.key
	if from, to := int(e.ident.from), int(e.ident.to); !e.ident.odd() && from == len(name)+4 && to == len(key)-1 &&
		key[:2] == `["` && key[2:from-2] == name && key[from-2:from] == `",` && key[to] == ']' {
		return h
	}
	b := append(append(s.copyBytes[:0], `["`...), name...)
	b = append(append(append(b, `",`...), e.identity()...), ']')
	s.copyBytes = b
	return hashBytes(keySeed, b)
}

// analyze keeps a new key's bytes and works out its facts, or takes them
// as k has them, worked out before (numbering its field order here, in the
// order the Store meets new keys, as analyzeKey would).
func (s *Store) analyze(r *Record, k *keptKey) (string, keyFacts, int32, error) {
	if k != nil {
		f := k.facts
		if f.shape >= 0 {
			f.shape = s.shapes.intern(k.shape)
		}
		return k.key, f, k.murmur, nil
	}
	key := s.keys.keep(r.Key)
	f, err := analyzeKey(key, &s.shapes, &s.keys)
	return key, f, java.Murmur2(r.Key), err
}

// addCopy chains e (number ref-1) to the first stored copy of its
// partition in c, found in keys under ch (its copyHash), or makes it the
// first: true when it is then to be found under ch.
func (s *Store) addCopy(keys *hashIndex, c *connector, e *entry, ref uint32, ch uint64) bool {
	first := s.entryAt(keys.get(ch, copySlot))
	switch {
	case first == nil:
		e.firstCopy = true
		return true
	case first.conn != c || first.identity() != e.identity(): // another partition of the same hash
		if first = c.collided[e.identity()]; first == nil {
			if c.collided == nil {
				c.collided = map[string]*entry{}
			}
			c.collided[e.identity()] = e
			e.firstCopy = true
			return false
		}
	}
	for first.nextCopy != 0 {
		first = s.entryAt(first.nextCopy)
	}
	first.nextCopy = ref
	return false
}

func (s *Store) addUnparseable(r *Record, reason string) {
	s.unparsed++
	u := model.Unparseable{
		TopicPartition: model.TopicPartition{Topic: r.Topic, Partition: r.Partition},
		Offset:         r.Offset,
		Time:           r.Time,
		Reason:         reason,
		Key:            model.Preview(r.Key, 60),
		Value:          model.Preview(r.Value, 60),
		RawKey:         bytes.Clone(r.Key[:min(len(r.Key), model.UnparseableRaw)]),
		KeyLen:         len(r.Key),
		ValueLen:       len(r.Value),
	}
	if r.Value != nil {
		u.RawValue = bytes.Clone(r.Value[:min(len(r.Value), model.UnparseableRaw)])
	}
	if r.Value == nil {
		u.Value = "(null)"
	}
	if len(s.unparseable) >= s.opts.Unparseable {
		n := copy(s.unparseable, s.unparseable[1:])
		s.unparseable = s.unparseable[:n]
	}
	s.unparseable = append(s.unparseable, u)
}

// javaNumberDiffers reports whether a readable offset holds a number Java
// reads differently from its text.
func javaNumberDiffers(raw []byte) bool {
	v, err := model.ParseOffset(raw)
	return err == nil && java.JavaReadsDiffer(v)
}

func partitionIdentity(p java.Object) string {
	if p == nil {
		return "null"
	}
	return java.JavaIdentity(p)
}

// appendDoubling is append growing a full slice to twice its capacity.
// append grows big slices by a quarter, so a connector's entries reaching
// a million would be copied some forty times, leaving about five times
// their final size behind; a one-shot read collects none of it (see
// cli/gc.go). Doubling leaves about twice.
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(8, len(s)))
	}
	return append(s, v)
}
