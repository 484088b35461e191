package store

import (
	"bytes"
	"hash/maphash"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"koff/model"
	"koff/model/java"
)

// StoreOptions bound the Store's memory: it grows with the number of live
// source partitions, never with the number of records read.
type StoreOptions struct {
	History     int           // updates kept per source partition (16)
	Flushes     int           // flush events kept per connector (64)
	FlushWindow time.Duration // records of one connector this close together are one flush (100ms)
	Unparseable int           // unparseable records kept for the view (500)
	// OneShot is for a Store read once and thrown away (koff get): it
	// groups no flush events and works out no update gaps, which only the
	// dashboard shows. What a task reads, flags and notes are the same.
	OneShot bool
}

func (o StoreOptions) withDefaults() StoreOptions {
	if o.History <= 0 {
		o.History = 16
	}
	if o.Flushes <= 0 {
		o.Flushes = 64
	}
	if o.FlushWindow <= 0 {
		// A task's commit produces all its records in one send loop:
		// milliseconds apart, far less than any flush interval.
		o.FlushWindow = 100 * time.Millisecond
	}
	if o.Unparseable <= 0 {
		o.Unparseable = 500
	}
	return o
}

// Store is the in-memory model of the offsets topics: connectors and their
// source partitions. One writer (the tailer) ingests batches; any number of
// readers (UIs, CLI) take snapshots sized to what one screen needs.
type Store struct {
	opts    StoreOptions
	version atomic.Uint64
	// stamp counts the changes to source partitions (under mu), from a
	// base of its own per Store: see PartitionsSince.
	stamp uint64

	mu sync.RWMutex
	// countsMu guards the connectors' kept counts, which their readers
	// bring up to date under s.mu's read lock (countsOf).
	countsMu sync.Mutex
	// byKey finds a stored key: topic → hash of the raw key bytes (seed)
	// → the first entry stored with that hash; the others (the same bytes
	// in the topic's other partitions, and in the rarest case other bytes
	// of the same hash) follow it through entry.nextHome. An index of
	// numbers is smaller than a map of strings, and growing it does not
	// hash every key again.
	byKey       map[string]*hashIndex
	partitions  map[string]int // topic → partition count
	connectors  map[model.ConnectorID]*connector
	shapes      keyShapes
	blocks      [][]entry // every entry, by number (entryAt), entryBlock to a block
	nentries    int
	updates     []model.Update      // where first updates are taken from, a block at a time
	keys        arena               // the bytes of stored keys
	unparseable []model.Unparseable // ring, oldest first
	unparsed    int64
	records     int64
	status      model.TailStatus
	rest        model.RESTStatus
	groups      map[string]*sinkGroup
	// namedGroups are sinks' groups the user named (koff get/status
	// --group): without REST or a config topic, a consumer.override.group.id
	// is out of sight.
	namedGroups map[string]string
	topicsOf    map[string][]string                  // connector → topics it writes (sources)
	unflushed   map[string]model.Unflushed           // connector → records since its last flush
	configs     atomic.Pointer[model.ConnectConfigs] // Connect's config topic (ConfigFeed)

	// readTo is one past the newest record ingested, per topic-partition.
	readTo map[model.TopicPartition]int64
	// handed and handedBytes are the records (and their key and value
	// bytes) each topic-partition has handed over, handedTopic those of
	// each topic, and ordinal the place of the one being ingested: a fresh
	// read's polls are cut from them (FreshRead).
	handed      map[model.TopicPartition]int64
	handedBytes map[model.TopicPartition]int64
	handedTopic map[string]int64
	ordinal     int64
	regap       []*entry   // entries whose history changed in this batch
	ahead       storeAhead // what lookAhead worked out of the batch
	expect      expectation
	spare       spareBlocks // made off the lock (makeSpares)
	// koff is the records koff's edits announced (store_koff.go), and
	// koffUpdates the record offsets of those read, per entry.
	koff        map[koffWrite]koffAnnounced
	koffUpdates map[*entry][]int64
}

type connector struct {
	id      model.ConnectorID
	entries []*entry
	// copies finds the first stored copy of each partition by the hash of
	// its identity (collided by the identity itself for another partition
	// of the same hash); the others follow it through entry.nextCopy.
	copies   hashIndex
	collided map[string]*entry
	// gen moves with every record of the connector; parts caches what the
	// task reads of each partition (see partsOf) for that gen.
	gen        uint64
	parts      atomic.Pointer[connParts]
	live       int
	deleted    int
	records    int64
	lastUpdate time.Time
	flushes    []model.FlushEvent
	lastFlush  int // the flush event the connector's last record went to (-1: none)
	// stamp is the Store's stamp at the connector's last change, whole the
	// one from which every row of it reads differently (its creation, a
	// new partition count): see PartitionsSince.
	stamp, whole uint64
	changes      changeLog   // what changed, in order (store_changelog.go)
	counts       *keptCounts // counts over its partitions (store_counts.go)
}

// entry is one stored copy of a source partition: one key in one
// topic-partition. A million source partitions make every byte count, so
// the parsed partition map is not kept (partitionMap parses the key again
// where it is needed) and the latest value, time and record offset are
// those of the newest update in the history ring.
type entry struct {
	key          string // raw key bytes; the topic is the connector's (pid)
	conn         *connector
	nextHome     *entry // the next entry of the topic whose key bytes have the same hash
	nextCopy     *entry // the next copy of the same partition (Java-equal map) in the connector
	partitionStr string // compact JSON of the source partition map
	identity     string // JavaIdentity of the partition: equal for copies of one partition
	// history is a ring of the most recent updates: in order while it
	// grows, then the oldest at head. Never empty.
	history   []model.Update
	head      int32
	partition int32 // of the offsets topic
	// gap is the median time between this partition's recent updates, and
	// gaps how many it is taken over: a partition is written at most once
	// per flush of the one task that owns it, so the shortest such gap
	// over a connector's partitions is its tasks' flush interval.
	gaps    int32
	updates int32
	idx     int32  // position in conn.entries
	shape   int32  // field order (keyShapes), -1 for fewer than two fields
	hash    int32  // murmur2 of the key bytes
	homes   uint16 // partitions of the topic holding the same key bytes
	state   valueState
	// canonical: the key REST writes (HashMap order); taskForm: bytes a
	// task's own map serialises to (in the stored field order); nested: a
	// field of the partition map holds an object or array.
	canonical, taskForm, nested bool
	firstCopy                   bool // the first copy of its partition: nextCopy chains the others
	javaNumber                  bool // a number of the value reads differently in Java (FlagJavaNumber)
	plain                       bool // the value is an offset in the plain form (plainOffset)
	regap                       bool // in Store.regap
	gap                         time.Duration
	ordinal                     int64 // the newest update's place among its topic-partition's records (FreshRead)
	// stamp is the Store's stamp at the entry's last record
	// (PartitionsSince).
	stamp uint64
}

// An entry is one of a million at a million source partitions: its
// topic-partition is kept as the partition alone, the topic being its
// connector's.
func (e *entry) tp() model.TopicPartition {
	return model.TopicPartition{Topic: e.conn.id.Topic, Partition: int(e.partition)}
}
func (e *entry) pid() model.PartitionID { return model.PartitionID{TopicPartition: e.tp(), Key: e.key} }

// last is the newest update.
func (e *entry) last() *model.Update {
	return &e.history[(int(e.head)+len(e.history)-1)%len(e.history)]
}

func (e *entry) value() []byte       { return e.last().Value }
func (e *entry) updated() time.Time  { return e.last().Time }
func (e *entry) recordOffset() int64 { return e.last().RecordOffset }

// orderedHistory returns the history ring's updates oldest first, in a
// new slice.
func (e *entry) orderedHistory() []model.Update {
	out := make([]model.Update, 0, len(e.history))
	out = append(out, e.history[e.head:]...)
	return append(out, e.history[:e.head]...)
}

// push adds an update to e's ring of at most History.
func (s *Store) push(e *entry, u model.Update) {
	max := s.opts.History
	if e.history == nil {
		// A first update, often the only one: taken from a block.
		if len(s.updates) == 0 {
			s.updates = s.updateBlockNew()
		}
		e.history = s.updates[:1:1]
		s.updates = s.updates[1:]
		e.history[0] = u
		return
	}
	if len(e.history) < max {
		e.history = append(e.history, u)
		return
	}
	e.history[e.head] = u
	if e.head++; int(e.head) == len(e.history) {
		e.head = 0
	}
}

// partitionMap parses the source partition map from the key (nil for a
// null partition).
func (e *entry) partitionMap() java.Object {
	k, _ := model.ParseKey([]byte(e.key)) // it parsed when stored
	return k.Partition
}

// NewStore returns an empty Store.
func NewStore(opts StoreOptions) *Store {
	return &Store{
		stamp:      newStampBase(),
		opts:       opts.withDefaults(),
		byKey:      map[string]*hashIndex{},
		partitions: map[string]int{},
		connectors: map[model.ConnectorID]*connector{},
		spare:      newSpareBlocks(),
	}
}

// History is how many updates the Store keeps per source partition.
func (s *Store) History() int { return s.opts.History }

// Version changes whenever anything a reader can see changes.
func (s *Store) Version() uint64 { return s.version.Load() }

func (s *Store) bump() { s.version.Add(1) }

// SetStatus records the tailer's state.
func (s *Store) SetStatus(st model.TailStatus) {
	s.mu.Lock()
	s.status = st
	s.mu.Unlock()
	s.bump()
}

// SetTopicPartitions records how many partitions an offsets topic has; the
// murmur2 placement check needs it.
func (s *Store) SetTopicPartitions(topic string, n int) {
	s.mu.Lock()
	changed := s.partitions[topic] != n
	s.partitions[topic] = n
	if changed {
		// Which copy is live can depend on the murmur2 placement.
		s.stamp++
		for id, c := range s.connectors {
			if id.Topic == topic {
				c.gen++
				c.stamp, c.whole = s.stamp, s.stamp
			}
		}
	}
	s.mu.Unlock()
	if changed {
		s.bump()
	}
}

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
		e.gap, e.gaps = s.gapOf(e)
		e.regap = false
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
	head := s.entryAt(keys.get(h))
	var e, same *entry // this copy; the first copy of the same bytes
	for x := head; x != nil; x = x.nextHome {
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
	e.updates++
	e.ordinal = s.ordinal
	s.push(e, model.Update{Time: r.Time, RecordOffset: r.Offset, Value: r.Value})
	if !e.regap && !s.opts.OneShot {
		e.regap = true
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
			n++
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
			partitionStr: same.partitionStr, identity: same.identity, shape: same.shape, hash: same.hash,
			canonical: same.canonical, taskForm: same.taskForm, nested: same.nested, homes: same.homes + 1,
		}
		for x := head; x != nil; x = x.nextHome {
			if x.key == e.key {
				x.homes = e.homes
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
			partitionStr: f.partition, identity: f.identity, shape: f.shape, hash: murmur,
			canonical: f.canonical, taskForm: f.taskForm, nested: f.nested, homes: 1,
		}
	}
	// Last in the chain of its hash: a copy's nextHome order is the order
	// first seen.
	if x := head; x == nil {
		s.reserve(keys)
		keys.Put(h, ref)
	} else {
		for x.nextHome != nil {
			x = x.nextHome
		}
		x.nextHome = e
	}
	c := e.conn
	e.idx = int32(len(c.entries))
	c.entries = append(c.entries, e)
	var ih uint64
	if k != nil && same == nil {
		ih = k.ihash
	} else {
		ih = hashString(keySeed, e.identity)
	}
	s.addCopy(c, e, ref, ih)
	return e, true
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

// hashBytes and hashString hash stored keys and identities (variables so
// that a test can make every hash collide), with one seed for the process
// (Record.Prepare hashes before the Store is known).
var (
	keySeed    = maphash.MakeSeed()
	hashBytes  = maphash.Bytes
	hashString = maphash.String
)

// addCopy chains e (number ref-1) to the first stored copy of its
// partition in c, or makes it the first; ih is the hash of its identity.
func (s *Store) addCopy(c *connector, e *entry, ref uint32, ih uint64) {
	first := s.entryAt(c.copies.get(ih))
	switch {
	case first == nil:
		c.copies.Put(ih, ref)
		e.firstCopy = true
		return
	case first.identity != e.identity: // another partition of the same hash
		if first = c.collided[e.identity]; first == nil {
			if c.collided == nil {
				c.collided = map[string]*entry{}
			}
			c.collided[e.identity] = e
			e.firstCopy = true
			return
		}
	}
	for first.nextCopy != nil {
		first = first.nextCopy
	}
	first.nextCopy = e
}

// arena holds strings that live until Reset (stored keys and what is
// derived from them): a million of them are a million objects for the
// garbage collector to mark, while a few hundred blocks are not. A
// strings.Builder never changes bytes it has written, so the substrings
// stay valid when it moves on to a new block.
type arena struct{ b strings.Builder }

func (a *arena) keep(b []byte) string {
	const block = 64 << 10
	if len(b) > block/4 {
		return string(b)
	}
	if a.b.Cap()-a.b.Len() < len(b) {
		a.b = strings.Builder{}
		a.b.Grow(block)
	}
	from := a.b.Len()
	a.b.Write(b)
	return a.b.String()[from:]
}

// entryBlock is how many entries are allocated at a time: they live until
// Reset, so they are allocated in blocks, which the garbage collector sees
// as one object each.
const entryBlock = 1024

// alloc takes a new entry, and its number+1 (entryAt).
func (s *Store) alloc() (*entry, uint32) {
	n := s.nentries
	if n%entryBlock == 0 {
		s.blocks = append(s.blocks, s.entryBlockNew())
	}
	s.nentries++
	return &s.blocks[n/entryBlock][n%entryBlock], uint32(n + 1)
}

// entryAt is the entry of number ref-1, nil for 0.
func (s *Store) entryAt(ref uint32) *entry {
	if ref == 0 {
		return nil
	}
	n := int(ref - 1)
	return &s.blocks[n/entryBlock][n%entryBlock]
}

// home is the first entry of topic stored under the hash h of key bytes.
func (s *Store) home(topic string, h uint64) *entry {
	if keys := s.byKey[topic]; keys != nil {
		return s.entryAt(keys.get(h))
	}
	return nil
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

// joinREST fills a row's REST state, type, own offsets topic, orphan mark
// and sink lag.
func (s *Store) joinREST(r *model.ConnectorRow) {
	r.REST, r.InREST = s.rest.Connectors[r.ID.Name]
	r.RESTStale, r.RESTAt, r.Tail = s.rest.Err, s.rest.StateAt, s.status
	r.Topics = s.topicsOf[r.ID.Name]
	if u, ok := s.unflushed[r.ID.Name]; ok {
		r.Unflushed = &u
	}
	if r.Type == "" {
		r.Type = "source"
	}
	cfg := r.REST.Config
	configs := s.ConnectConfigs()
	cc, inConfig := configs.Connectors[r.ID.Name]
	if inConfig && cc.Config != nil {
		r.Target = cc.TargetState
	}
	r.Unconfigured = configs.Topic != "" && (!inConfig || cc.Config == nil)
	if r.InREST {
		if r.REST.Type != "" && r.REST.Type != "unknown" {
			r.Type = r.REST.Type
		}
		r.OwnTopic = strings.TrimSpace(r.REST.Config["offsets.storage.topic"])
	} else {
		if s.rest.Connectors != nil && s.rest.Err == "" {
			r.Orphaned = true
		}
		// Without REST's word, the config topic's.
		if r.Target != "" {
			cfg = cc.Config
			r.OwnTopic = cc.OwnOffsetsTopic()
		}
	}
	if r.Type == "sink" {
		group := model.SinkGroupName(r.ID.Name, cfg)
		if named := s.namedGroups[r.ID.Name]; named != "" && !r.InREST {
			group = named
		}
		if g := s.groups[group]; g != nil {
			sum := g.summary()
			r.Sink = &sum
		} else {
			r.Sink = &model.SinkSummary{Group: group}
		}
	}
}

func (s *Store) flags(e *entry) model.Flags {
	return flagsIn(e, s.partsOf(e.conn).of[e.idx], s.partitions[e.conn.id.Topic])
}

// flagsIn is flags with e's partition state and its topic's partition
// count looked up already: a read of many rows of one connector looks
// them up once.
func flagsIn(e *entry, ps *partState, n int) model.Flags {
	var f model.Flags
	if e.homes > 1 {
		f |= model.FlagDuplicate
	}
	if n > 0 && int(e.hash&0x7fffffff)%n != int(e.partition) {
		f |= model.FlagMisplaced
	}
	if !e.canonical {
		f |= model.FlagNotCanonical
	}
	if ps.live != e && (e.state != valueTombstone || ps.live != nil) {
		// A deleted copy with no live one beside it is just deleted.
		f |= model.FlagStray
	}
	switch e.state {
	case valueNull, valueUnreadable:
		f |= model.FlagUnreadable
	case valueOffset:
		if e.javaNumber {
			f |= model.FlagJavaNumber
		}
	}
	return f
}

// Connectors returns every connector, sorted by offsets topic then name.
func (s *Store) Connectors() []model.ConnectorRow { return s.connectorRows(true) }

// ConnectorList is Connectors without what is counted over each
// connector's partitions (Partitions, Deleted, NoOffset, Suspect,
// PartitionInterval are 0): the list of connectors, their types, sink
// groups and REST state, at a cost that does not grow with partitions.
func (s *Store) ConnectorList() []model.ConnectorRow { return s.connectorRows(false) }

func (s *Store) connectorRows(counts bool) []model.ConnectorRow {
	s.mu.RLock()
	defer s.mu.RUnlock()
	rows := make([]model.ConnectorRow, 0, len(s.connectors))
	for _, c := range s.connectors {
		r := model.ConnectorRow{
			ID:         c.id,
			Partitions: c.live,
			Deleted:    c.deleted,
			Records:    c.records,
			LastUpdate: c.lastUpdate,
			Flushes:    append([]model.FlushEvent(nil), c.flushes...),
		}
		if !counts {
			r.Partitions, r.Deleted = 0, 0
			s.joinREST(&r)
			rows = append(rows, r)
			continue
		}
		s.countsMu.Lock()
		k := s.countsOf(c)
		r.Partitions, r.Deleted, r.NoOffset = k.reads[shareOffset], k.reads[shareDeleted], k.reads[shareNoOffset]
		r.Suspect, r.PartitionInterval = k.suspect, k.interval()
		s.countsMu.Unlock()
		s.joinREST(&r)
		rows = append(rows, r)
	}
	// Connectors REST knows that have no source offsets (new ones, sinks).
	withOffsets := make(map[string]bool, len(s.connectors))
	for id := range s.connectors {
		withOffsets[id.Name] = true
	}
	claimed := map[string]bool{}
	for name, st := range s.rest.Connectors {
		if st.Type == "sink" {
			claimed[model.SinkGroupName(name, st.Config)] = true
		}
		if !withOffsets[name] {
			r := model.ConnectorRow{ID: model.ConnectorID{Name: name}}
			s.joinREST(&r)
			rows = append(rows, r)
		}
	}
	// Sinks whose group the user named, that REST does not list.
	for name, group := range s.namedGroups {
		if _, inREST := s.rest.Connectors[name]; inREST || withOffsets[name] || claimed[group] || s.groups[group] == nil {
			continue
		}
		claimed[group] = true
		r := model.ConnectorRow{ID: model.ConnectorID{Name: name}, Type: "sink"}
		s.joinREST(&r)
		rows = append(rows, r)
	}
	// Sinks the config topic holds and REST does not list: their group is
	// the one their config names (consumer.override.group.id).
	for name, cc := range s.ConnectConfigs().Connectors {
		if _, inREST := s.rest.Connectors[name]; inREST || cc.Config == nil || withOffsets[name] || s.namedGroups[name] != "" {
			continue
		}
		group := model.SinkGroupName(name, cc.Config)
		if g := s.groups[group]; g != nil && !claimed[group] {
			claimed[group] = true
			r := model.ConnectorRow{ID: model.ConnectorID{Name: name}, Type: "sink"}
			s.joinREST(&r)
			rows = append(rows, r)
		}
	}
	// Without REST (or for sinks it no longer lists), connect-* groups are sinks.
	for name, g := range s.groups {
		if claimed[name] || !strings.HasPrefix(name, "connect-") {
			continue
		}
		sum := g.summary()
		r := model.ConnectorRow{ID: model.ConnectorID{Name: strings.TrimPrefix(name, "connect-")}, Type: "sink", Sink: &sum, Tail: s.status}
		r.Orphaned = s.rest.Connectors != nil && s.rest.Err == ""
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].ID.Topic != rows[j].ID.Topic {
			return rows[i].ID.Topic < rows[j].ID.Topic
		}
		return rows[i].ID.Name < rows[j].ID.Name
	})
	return rows
}

// Partitions returns the source partitions of one connector, sorted by
// partition map, then topic-partition.
func (s *Store) Partitions(id model.ConnectorID) []model.PartitionRow {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := s.connectors[id]
	if c == nil {
		return nil
	}
	// Sorted as entries, not as rows: a row is some 300 bytes to move.
	es := slices.Clone(c.entries)
	sortByPartition(es)
	// Filled through write barriers, which read first.
	rows, lives := newPages[model.PartitionRow](len(es)), newPages[model.PartitionID](len(es))
	cp, nparts := s.partsOf(c), s.partitions[id.Topic]
	for i, e := range es {
		s.rowInto(&rows[i], &lives[i], e, cp, nparts)
	}
	return rows
}

func (s *Store) row(e *entry) model.PartitionRow {
	var r model.PartitionRow
	s.rowInto(&r, nil, e, s.partsOf(e.conn), s.partitions[e.conn.id.Topic])
	return r
}

// rowInto makes e's row in r, with live to hold its LiveCopy (nil: a new
// one), from the
// connector's parts and its topic's partition count (nparts): a read of
// many rows looks those up once, and can give a row and its LiveCopy one
// allocation.
func (s *Store) rowInto(r *model.PartitionRow, live *model.PartitionID, e *entry, cp *connParts, nparts int) {
	ps := cp.of[e.idx]
	u := e.last()
	*r = model.PartitionRow{
		ID:           e.pid(),
		Connector:    e.conn.id.Name,
		Partition:    e.partitionStr,
		Deleted:      u.Value == nil,
		Stored:       u.Value,
		Updated:      u.Time,
		RecordOffset: u.RecordOffset,
		Updates:      int(e.updates),
		Flags:        flagsIn(e, ps, nparts),
		Live:         ps.live == e,
		TaskNote:     ps.note,
		TaskForm:     e.taskForm,
		OrderUnknown: ps.orderUnknown,
	}
	if ps.stray != nil {
		r.Stray = ps.stray[e]
	}
	r.Offset, r.Unreadable, r.JavaReads = valueTexts(u.Value)
	if ps.live != nil {
		if live == nil {
			live = new(model.PartitionID)
		}
		*live = ps.live.pid()
		r.LiveCopy = live
		r.TaskReads, r.NoOffset = r.Offset, r.Unreadable
		if ps.live != e {
			r.TaskReads, r.NoOffset, _ = valueTexts(ps.live.value())
		}
		if ps.live.value() == nil {
			r.NoOffset = "deleted: the latest record of the key the task reads is a tombstone"
		}
	} else {
		r.NoOffset = "no stored key has the bytes the task looks up (" + ps.lookup() + ")"
		if allDeleted(ps) {
			r.NoOffset = "deleted"
		}
	}
}

func allDeleted(ps *partState) bool {
	for _, e := range ps.entries {
		if e.value() != nil {
			return false
		}
	}
	return true
}

// reads is what the task gets for the partition.
func (ps *partState) reads() valueState {
	if ps.live != nil {
		return ps.live.state
	}
	if allDeleted(ps) {
		return valueTombstone
	}
	return valueUnreadable
}

// valueTexts renders a stored value: its compact JSON when the task can
// read it, else why not; and what Java reads when that differs.
func valueTexts(raw []byte) (offset, unreadable, javaReads string) {
	if raw == nil {
		return "", "", ""
	}
	if plainOffset(raw) {
		return string(raw), "", "" // already compact, read as written
	}
	o, err := model.ParseOffset(raw)
	switch {
	case err == model.ErrNullOffset:
		return "", "the value reads as null (zero bytes, whitespace or the literal null): the task gets no offset", ""
	case err != nil:
		return "", "the value is unreadable (" + err.Error() + "): the worker logs an error and the task gets no offset", ""
	}
	offset = string(java.AppendJackson(nil, o))
	if java.JavaReadsDiffer(o) {
		javaReads = string(java.JavaForm(o))
	}
	return offset, "", javaReads
}

// ReadTo is one past the offset of the newest record ingested from a
// topic-partition (0 before any): a record at or after it has not been
// seen. Edits look for other writers' records from there.
func (s *Store) ReadTo(tp model.TopicPartition) int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.readTo[tp]
}

// Partition returns one source partition's detail.
func (s *Store) Partition(id model.PartitionID) (model.PartitionDetail, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.find(id)
	if e == nil {
		return model.PartitionDetail{}, false
	}
	d := model.PartitionDetail{
		PartitionRow: s.row(e),
		Key:          []byte(e.key),
		PartitionMap: e.partitionMap(),
		Value:        e.value(),
		History:      e.orderedHistory(),
		Expected:     -1,
	}
	if n := s.partitions[id.Topic]; n > 0 {
		d.Expected = int(e.hash&0x7fffffff) % n
		for h := s.home(id.Topic, hashString(keySeed, id.Key)); h != nil; h = h.nextHome {
			if h.key == id.Key && int(h.partition) < n {
				d.Homes = append(d.Homes, int(h.partition))
			}
		}
		slices.Sort(d.Homes)
	}
	return d, true
}

// find returns the stored copy id names, or nil.
func (s *Store) find(id model.PartitionID) *entry {
	for e := s.home(id.Topic, hashString(keySeed, id.Key)); e != nil; e = e.nextHome {
		if e.key == id.Key && int(e.partition) == id.Partition {
			return e
		}
	}
	return nil
}

// UnparseableRecords returns the most recent unparseable records, oldest first.
func (s *Store) UnparseableRecords() []model.Unparseable {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]model.Unparseable(nil), s.unparseable...)
}

// Stats returns totals and the tailer state.
func (s *Store) Stats() model.Stats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := model.Stats{
		Records:     s.records,
		Unparseable: s.unparsed,
		Connectors:  len(s.connectors),
		Status:      s.status,
		Topics:      make(map[string]int, len(s.partitions)),
	}
	for t, n := range s.partitions {
		st.Topics[t] = n
	}
	s.countsMu.Lock()
	for _, c := range s.connectors {
		st.Partitions += s.countsOf(c).reads[shareOffset]
	}
	s.countsMu.Unlock()
	return st
}

// medianGap is medianGap of the history ring, as int32 gaps.
func (e *entry) medianGap() (time.Duration, int32) {
	g, n := model.MedianGapRing(e.history, int(e.head))
	return g, int32(n)
}

// freshRead works out how a fresh read of topic (n partitions) hands over
// the records read so far. Callers hold s.mu.
func (s *Store) freshRead(topic string, n int) *model.FreshRead {
	records, bytes := map[int]int64{}, map[int]int64{}
	for tp, c := range s.handed {
		if tp.Topic == topic {
			records[tp.Partition], bytes[tp.Partition] = c, s.handedBytes[tp]
		}
	}
	return model.NewFreshRead(topic, n, records, bytes)
}
