package store

import (
	"hash/maphash"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

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

// defaultHistory is the updates kept per source partition unless
// StoreOptions.History says otherwise.
const defaultHistory = 16

func (o StoreOptions) withDefaults() StoreOptions {
	if o.History <= 0 {
		o.History = defaultHistory
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
	tail    tailWatch // status.State, for TailState and TailMoved
	// stamp counts the changes to source partitions (under mu), from a
	// base of its own per Store: see PartitionsSince.
	stamp uint64

	mu sync.RWMutex
	// countsMu guards the connectors' kept counts, which their readers
	// bring up to date under s.mu's read lock (countsOf).
	countsMu sync.Mutex
	// partsMu lets one reader at a time work out a connector's parts
	// anew (partsOf), so that one that extends the last in place is alone.
	partsMu sync.Mutex
	// byKey finds a stored key: topic → hash of the raw key bytes (seed)
	// → the first entry stored with that hash; the others (the same bytes
	// in the topic's other partitions, and in the rarest case other bytes
	// of the same hash) follow it through entry.nextHome. It finds the
	// first copy of each partition too (copyHash). An index of numbers is
	// smaller than a map of strings, and growing it does not hash every
	// key again.
	byKey       map[string]*hashIndex
	partitions  map[string]int // topic → partition count
	connectors  map[model.ConnectorID]*connector
	shapes      keyShapes
	blocks      [][]entry // every entry, by number (entryAt), entryBlock to a block
	nentries    int
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
	resume      *resumeChecks                        // the latest resume check (SetResume), nil before one

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
	copyBytes   []byte     // for copyHash
	ahead       storeAhead // what lookAhead worked out of the batch
	expect      expectation
	spare       spareBlocks // made off the lock (makeSpares)
	// koff is the records koff's edits announced (koff.go), and
	// koffUpdates the record offsets of those read, per entry.
	koff        map[koffWrite]koffAnnounced
	koffUpdates map[*entry][]int64
}

type connector struct {
	id      model.ConnectorID
	entries []*entry
	// collided finds the first stored copy of a partition by its
	// identity where its topic's index (copySlot) holds another
	// partition under the same hash; the others follow the first
	// through entry.nextCopy.
	collided  map[string]*entry
	oddParts  []string // partitions not found in their key's bytes (entry.part)
	oddIdents []string // identities not found in their key's bytes (entry.ident)
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
	changes      changeLog   // what changed, in order (changelog.go)
	counts       *keptCounts // counts over its partitions (counts.go)
}

// entry is one stored copy of a source partition: one key in one
// topic-partition. A million source partitions make every byte count, so
// the parsed partition map is not kept (partitionMap parses the key again
// where it is needed) and the latest value, time and record offset are
// those of the newest update.
type entry struct {
	key  string // raw key bytes; the topic is the connector's (pid)
	conn *connector
	// At a million source partitions nearly every entry has one update
	// only: it is kept in the entry (at, off, val, vlen), its time as
	// the milliseconds Kafka stamps, in 28 bytes where a model.Update
	// beside the entry took 56 and a ring's slice header 24 more. A
	// second update makes the ring (more), which holds them all from
	// then on; so does a first whose time is not a millisecond's
	// time.UnixMilli gives (exactUpdate).
	more *updateRing
	at   int64 // the first update's time, Unix milliseconds
	off  int64 // its record offset
	val  *byte // its value's bytes, nil for a tombstone
	vlen uint32
	// partition is that of the offsets topic.
	partition int32
	updates   int32
	idx       int32 // position in conn.entries
	shape     int32 // field order (keyShapes), -1 for fewer than two fields
	hash      int32 // murmur2 of the key bytes
	// nextHome is the next entry of the topic whose key bytes have the
	// same hash, nextCopy the next copy of the same partition (Java-equal
	// map) in the connector: numbers+1 (Store.entryAt), 0 for none. A
	// number is half a pointer, and not one for the collector to follow.
	nextHome, nextCopy uint32
	// part places the compact JSON of the source partition map
	// (partitionStr) in key, where nearly every worker's key has it: half
	// the bytes of a string of its own. A key written otherwise (spaces,
	// another number form) has it in conn.oddParts.
	part keyPlace
	// ident places the JavaIdentity of the partition (equal for copies of
	// one partition) the same way, in conn.oddIdents when not in key
	// (fields stored out of name order).
	ident   keyPlace
	ordinal int64 // the newest update's place among its topic-partition's records (FreshRead)
	// stamp is the Store's stamp at the entry's last record
	// (PartitionsSince).
	stamp uint64
	state valueState
	// shared: other partitions of the topic hold the same key bytes
	// (FlagDuplicate).
	shared bool
	// canonical: the key REST writes (HashMap order); taskForm: bytes a
	// task's own map serialises to (in the stored field order); nested: a
	// field of the partition map holds an object or array.
	canonical, taskForm, nested bool
	firstCopy                   bool // the first copy of its partition: nextCopy chains the others
	javaNumber                  bool // a number of the value reads differently in Java (FlagJavaNumber)
	plain                       bool // the value is an offset in the plain form (plainOffset)
}

// updateRing is the history of an entry of more than one update: the
// most recent, in order while it grows, then the oldest at head.
type updateRing struct {
	history []model.Update
	head    int32
	// gap is the median time between this partition's recent updates, and
	// gaps how many it is taken over: a partition is written at most once
	// per flush of the one task that owns it, so the shortest such gap
	// over a connector's partitions is its tasks' flush interval. An entry
	// of one update has none (0, 0).
	gaps  int32
	gap   time.Duration
	regap bool // in Store.regap
}

// An entry is one of a million at a million source partitions: its
// topic-partition is kept as the partition alone, the topic being its
// connector's.
func (e *entry) tp() model.TopicPartition {
	return model.TopicPartition{Topic: e.conn.id.Topic, Partition: int(e.partition)}
}
func (e *entry) pid() model.PartitionID { return model.PartitionID{TopicPartition: e.tp(), Key: e.key} }

// keyPlace is where a string worked out of an entry's key is: the bytes
// [from, to) of the key, in a key shorter than inKeyMax; or, for one kept
// aside in its connector's list, its index there, marked by from's top
// bit (odd). Two uint16 are half of two uint32: 8 MB at a million
// entries.
type keyPlace struct{ from, to uint16 }

// inKeyMax bounds the keys whose strings are placed in them: longer
// keys' are kept aside.
const inKeyMax = 1 << 15

func (p keyPlace) odd() bool  { return p.from >= inKeyMax }
func (p keyPlace) index() int { return int(p.from&(inKeyMax-1))<<16 | int(p.to) }

func (p keyPlace) in(key string) string { return key[p.from:p.to] }

// oddPlace is the place of the string at index i of a connector's list.
func oddPlace(i int) keyPlace { return keyPlace{uint16(i>>16) | inKeyMax, uint16(i)} }

// partitionStr is the compact JSON of the source partition map.
func (e *entry) partitionStr() string {
	if !e.part.odd() {
		return e.part.in(e.key)
	}
	return e.conn.oddParts[e.part.index()]
}

// identity is JavaIdentity of the partition.
func (e *entry) identity() string {
	if !e.ident.odd() {
		return e.ident.in(e.key)
	}
	return e.conn.oddIdents[e.ident.index()]
}

// setPartitionStr and setIdentity keep p as e's partitionStr or identity:
// as its place in e.key when p is bytes of e.key, aside otherwise.
func (e *entry) setPartitionStr(p string) { e.part = e.placeOf(p, &e.conn.oddParts) }

func (e *entry) setIdentity(p string) { e.ident = e.placeOf(p, &e.conn.oddIdents) }

func (e *entry) placeOf(p string, odd *[]string) keyPlace {
	if len(e.key) < inKeyMax {
		k, q := uintptr(unsafe.Pointer(unsafe.StringData(e.key))), uintptr(unsafe.Pointer(unsafe.StringData(p)))
		if len(p) > 0 && q >= k && q+uintptr(len(p)) <= k+uintptr(len(e.key)) {
			return keyPlace{uint16(q - k), uint16(q-k) + uint16(len(p))}
		}
	}
	*odd = append(*odd, p)
	return oddPlace(len(*odd) - 1)
}

// last is the newest update.
func (e *entry) last() model.Update {
	if r := e.more; r != nil {
		return r.history[(int(r.head)+len(r.history)-1)%len(r.history)]
	}
	return e.first()
}

// first is the update kept in e itself (while e.more is nil).
func (e *entry) first() model.Update {
	return model.Update{Time: time.UnixMilli(e.at), RecordOffset: e.off, Value: e.firstValue()}
}

func (e *entry) firstValue() []byte {
	if e.val == nil {
		return nil
	}
	return unsafe.Slice(e.val, e.vlen)
}

func (e *entry) value() []byte {
	if e.more != nil {
		return e.last().Value
	}
	return e.firstValue()
}

func (e *entry) updated() time.Time {
	if e.more != nil {
		return e.last().Time
	}
	return time.UnixMilli(e.at)
}

func (e *entry) recordOffset() int64 {
	if e.more != nil {
		return e.last().RecordOffset
	}
	return e.off
}

// gapOfUpdates is the median gap between e's recent updates and how many
// it is taken over (see updateRing).
func (e *entry) gapOfUpdates() (time.Duration, int32) {
	if e.more == nil {
		return 0, 0
	}
	return e.more.gap, e.more.gaps
}

// kept is the updates kept, in no particular order, one being for an
// entry of one update: for a look at each without a new slice.
func (e *entry) kept(one *[1]model.Update) []model.Update {
	if r := e.more; r != nil {
		return r.history
	}
	if e.updates == 0 {
		return nil
	}
	one[0] = e.first()
	return one[:]
}

// orderedHistory returns the updates kept, oldest first, in a new slice.
func (e *entry) orderedHistory() []model.Update {
	r := e.more
	if r == nil {
		if e.updates == 0 {
			return nil
		}
		return []model.Update{e.first()}
	}
	out := make([]model.Update, 0, len(r.history))
	out = append(out, r.history[r.head:]...)
	return append(out, r.history[:r.head]...)
}

// exactUpdate reports whether u is kept exactly in an entry's own fields:
// its time is what time.UnixMilli gives for its milliseconds (Local, no
// monotonic reading), as the Tailer makes every record's.
func exactUpdate(u *model.Update) bool {
	return u.Time == time.UnixMilli(u.Time.UnixMilli()) && uint64(len(u.Value)) <= math.MaxUint32
}

// inlineFirst is off in tests that compare with a ring for every entry.
var inlineFirst = true

// push adds an update to e's history of at most History; e.updates counts
// those pushed before (callers add 1 after each push).
func (s *Store) push(e *entry, u model.Update) {
	r := e.more
	if r == nil {
		if e.updates == 0 && inlineFirst && exactUpdate(&u) {
			// A first update, often the only one: kept in the entry.
			e.at, e.off, e.val, e.vlen = u.Time.UnixMilli(), u.RecordOffset, unsafe.SliceData(u.Value), uint32(len(u.Value))
			return
		}
		r = &updateRing{}
		if e.updates > 0 {
			r.history = append(make([]model.Update, 0, 2), e.first())
		}
		e.more = r
		e.at, e.off, e.val, e.vlen = 0, 0, nil, 0 // the ring holds them now
	}
	if len(r.history) < s.opts.History {
		r.history = append(r.history, u)
		return
	}
	r.history[r.head] = u
	if r.head++; int(r.head) == len(r.history) {
		r.head = 0
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
	s.tail.set(st.State)
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

// hashBytes and hashString hash stored keys and identities (variables so
// that a test can make every hash collide), with one seed for the process
// (Record.Prepare hashes before the Store is known).
var (
	keySeed    = maphash.MakeSeed()
	hashBytes  = maphash.Bytes
	hashString = maphash.String
)

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
		return s.entryAt(keys.get(h, homeSlot))
	}
	return nil
}

// medianGap is medianGap of the history ring, as int32 gaps.
func (e *entry) medianGap() (time.Duration, int32) {
	r := e.more
	if r == nil {
		return 0, 0
	}
	g, n := model.MedianGapRing(r.history, int(r.head))
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
