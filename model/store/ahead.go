package store

import (
	"encoding/binary"

	"koff/model"
)

// At a million new keys, the Store's lookups in its index of a topic's
// keys and partitions (byKey) are each a cache miss, and one waits for the
// next.
// lookAhead, before Ingest's pass over a batch, reads the slots that pass
// will look at, all of the batch's at once, so that the CPU waits for
// them side by side; and works out what the pass needs of each record
// (Record.Prepare, and the facts of a key new to the Store) on the way.
// What the pass then does is what it would have done: lookAhead changes
// nothing a reader sees.

// storeAhead is what lookAhead worked out of the records being ingested,
// by their places in the window it looked at.
type storeAhead struct {
	prep []prepared // each record's, Prepared
	key  []int32    // 1 + the index in kept of its key's facts, 0: none
	kept []keptKey  // keys new to the Store, analysed here (analyzePlain)
	// shapes numbers kept's field orders (the Store numbers them again as
	// it meets them); conns are connectors looked up, by a slot of their
	// names (connSlot).
	shapes keyShapes
	conns  [connSlots]*connector
	// owner marks the connectors a Latest keeps for this Store
	// (latestChunk.conns): made anew by Reset, as the connectors are.
	owner *aheadOwner
	sum   uint64 // of the slots read, so that reading them is not left out
}

// aheadOwner is a Store's mark, not of size zero (those share an address).
type aheadOwner struct{ _ byte }

// connSlots is how many connectors lookAhead keeps at hand: the keys of a
// partition of the offsets topic are of many connectors in turn.
const (
	connBits  = 8
	connSlots = 1 << connBits
)

// aheadWindow is how many records lookAhead looks at at a time: the
// slots of as many are still in the cache (and their pages in the TLB)
// when Ingest's pass comes to them.
const aheadWindow = 256

// lookAhead is off in tests that compare with Ingest without it.
var lookAhead = true

// lookAhead fills s.ahead for recs, the next records of a batch. Callers
// hold s.mu.
func (s *Store) lookAhead(recs []Record) {
	a := &s.ahead
	n := len(recs)
	a.prep, a.key = grow(a.prep, n), grow(a.key, n)
	a.kept = a.kept[:0]
	for i := range recs {
		r := &recs[i]
		p := r.prep
		if !p.done {
			p = r.workPrepared()
		}
		a.prep[i], a.key[i] = p, 0
	}
	// The keys' slots in byKey, read side by side: a loop of loads only,
	// so that the CPU has the next ones under way while it waits.
	sum := a.sum
	keys, topic := s.byKey[recs[0].Topic], recs[0].Topic
	for i := range recs {
		if recs[i].Topic != topic {
			topic, keys = recs[i].Topic, s.byKey[recs[i].Topic]
		}
		if keys != nil {
			sum += keys.peek(a.prep[i].hash)
		}
	}
	// Keys whose bytes the Store holds nowhere in the topic, analysed,
	// and their connectors found. (A key the Store holds in another of
	// the topic's partitions takes that copy's facts; the slot of a key's
	// partition, copySlot, is that of its bytes in the form workers
	// write.)
	keys, topic = s.byKey[recs[0].Topic], recs[0].Topic
	var of *latestChunk // the chunk of the last record analysed by a Latest
	for i := range recs {
		r := &recs[i]
		if r.Topic != topic {
			topic, keys = r.Topic, s.byKey[r.Topic]
		}
		k := a.prep[i].keyAt()
		if k != nil && k.cref > 0 {
			// Analysed by a Latest, which numbered its connector's name.
			if ch := a.prep[i].chunk; ch != of {
				of = ch
				if a.owner == nil {
					a.owner = new(aheadOwner)
				}
				if of.connsOwner != a.owner { // another Store's, or before a Reset
					clear(of.conns)
					of.connsOwner = a.owner
				}
			}
			var c *connector
			if int(k.cref) <= len(of.conns) {
				c = of.conns[k.cref-1]
			}
			if c == nil || c.id.Topic != r.Topic {
				if c = s.connectorOf(model.ConnectorID{Topic: r.Topic, Name: k.facts.connector}); c == nil {
					continue
				}
				of.nameConnector(k.cref, c)
			}
			k.conn = c // not looked up again by newEntry
			continue
		}
		if k == nil {
			if keys != nil && keys.get(a.prep[i].hash, homeSlot) != 0 {
				continue // bytes of that hash are stored: not analysed ahead
			}
			a.kept = append(a.kept, keptKey{})
			k = &a.kept[len(a.kept)-1]
			if !analyzePlain(r.Key, &s.keys, &a.shapes, k) {
				a.kept = a.kept[:len(a.kept)-1]
				continue
			}
			a.key[i] = int32(len(a.kept))
		}
		if c := s.connectorOf(model.ConnectorID{Topic: r.Topic, Name: k.facts.connector}); c != nil {
			k.conn = c // not looked up again by newEntry
		}
	}
	a.sum = sum
}

// keyAhead is the facts lookAhead (or a Latest) worked out of the key of
// the record at i in its window, or nil.
func (s *Store) keyAhead(i int) *keptKey {
	if k := s.ahead.key[i]; k > 0 {
		return &s.ahead.kept[k-1]
	}
	return s.ahead.prep[i].keyAt()
}

// connectorOf is the connector id names, or nil: the one last looked up
// in the slot of its name is asked first, before the map (which hashes
// the topic and the name, then compares them again).
func (s *Store) connectorOf(id model.ConnectorID) *connector {
	slot := &s.ahead.conns[connSlot(id.Name)]
	if c := *slot; c != nil && c.id == id {
		return c
	}
	c := s.connectors[id]
	if c != nil {
		*slot = c
	}
	return c
}

// connSlot is the slot of a connector's name in connSlots.
func connSlot(name string) int { return int(connHash(name) >> (64 - connBits)) }

// connHash hashes a connector's name by its length and first and last
// bytes (names of one family often differ only in a number at either
// end), mixed as murmur3's finalizer mixes: cheaper than maphash for
// these few bytes.
func connHash(name string) uint64 {
	h := uint64(len(name))
	if len(name) >= 8 {
		h ^= binary.LittleEndian.Uint64([]byte(name[:8]))
		h ^= binary.LittleEndian.Uint64([]byte(name[len(name)-8:])) * 0x9e3779b97f4a7c15
	} else {
		for i := range len(name) {
			h = h<<8 | uint64(name[i])
		}
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}
