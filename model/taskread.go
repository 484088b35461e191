package model

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
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
	_, err := ParseOffset(raw)
	switch {
	case err == nil:
		return valueOffset
	case err == ErrNullOffset:
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
	// taskKey is the key the task looks up, as far as koff can know.
	taskKey []byte
	// note qualifies the choice (field order unknown, read order).
	note string
	// orderUnknown: several task-form keys differ only in field order and
	// nothing tells which order the task uses.
	orderUnknown bool
	// stray gives each non-live copy's reason.
	stray map[*entry]string
}

// connParts is a connector's partitions with their copies; computed from
// the entries on demand and cached until the connector changes.
type connParts struct {
	gen   uint64
	parts []*partState
	of    map[*entry]*partState
}

// partsOf returns the connector's partition states. Callers hold s.mu (read
// or write); the cache is swapped atomically so concurrent readers are safe.
func (s *Store) partsOf(c *connector) *connParts {
	if cp := c.parts.Load(); cp != nil && cp.gen == c.gen {
		return cp
	}
	cp := buildParts(c, s.partitions[c.id.Topic])
	c.parts.Store(cp)
	return cp
}

func buildParts(c *connector, nparts int) *connParts {
	cp := &connParts{gen: c.gen, of: make(map[*entry]*partState, len(c.entries))}
	byID := make(map[string]*partState, len(c.entries))
	for _, e := range c.entries {
		ps := byID[e.identity]
		if ps == nil {
			ps = &partState{}
			byID[e.identity] = ps
			cp.parts = append(cp.parts, ps)
		}
		ps.entries = append(ps.entries, e)
		cp.of[e] = ps
	}
	orders := taskOrders(cp.parts)
	for _, ps := range cp.parts {
		ps.decide(c.id.Name, orders, nparts)
	}
	return cp
}

// taskOrders infers the task's field order for each set of field names
// from partitions whose task-form keys agree on one order: a task builds
// every partition map of one shape the same way.
func taskOrders(parts []*partState) map[string]string {
	count := map[string]map[string]int{}
	for _, ps := range parts {
		var order string
		n := 0
		for _, e := range ps.entries {
			if !e.taskForm || len(e.partition) < 2 {
				continue
			}
			if o := fieldOrder(e.partition); o != order {
				order = o
				n++
			}
		}
		if n != 1 {
			continue
		}
		names := sortedNames(ps.entries[0].partition)
		if count[names] == nil {
			count[names] = map[string]int{}
		}
		count[names][order]++
	}
	out := map[string]string{}
	for names, byOrder := range count {
		best, bestN, tie := "", 0, false
		for o, n := range byOrder {
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

func fieldOrder(o Object) string {
	n := make([]string, len(o))
	for i, f := range o {
		n[i] = f.Name
	}
	return strings.Join(n, "\x00")
}

func sortedNames(o Object) string {
	n := make([]string, len(o))
	for i, f := range o {
		n[i] = f.Name
	}
	sort.Strings(n)
	return strings.Join(n, "\x00")
}

// later reports whether a was read after b in the worker's read order. The
// worker consumes all partitions at once, so for the same key bytes in two
// partitions the order is not fixed; the newer record is the best guess
// (and the copies are flagged duplicate). Records of one moment (one edit)
// prefer the copy in its murmur2 partition, where the worker itself writes.
func later(a, b *entry, nparts int) bool {
	if !a.updated.Equal(b.updated) {
		return a.updated.After(b.updated)
	}
	if nparts > 0 {
		ah, bh := int(a.hash&0x7fffffff)%nparts == a.id.Partition, int(b.hash&0x7fffffff)%nparts == b.id.Partition
		if ah != bh {
			return ah
		}
	}
	if a.id.Partition != b.id.Partition {
		return a.id.Partition > b.id.Partition
	}
	return a.recordOffset > b.recordOffset
}

func (ps *partState) decide(connector string, orders map[string]string, nparts int) {
	ps.stray = map[*entry]string{}
	// The latest record of each distinct key bytes.
	latest := map[string]*entry{}
	var keys []string
	for _, e := range ps.entries {
		cur := latest[e.id.Key]
		if cur == nil {
			keys = append(keys, e.id.Key)
		}
		if cur == nil || later(e, cur, nparts) {
			latest[e.id.Key] = e
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
		var p Object
		if first.partition != nil {
			p = javaNumbers(first.partition).(Object)
		}
		ps.taskKey = EncodeKey(connector, p)
		if len(first.partition) > 1 {
			ps.taskKey = EncodeKey(connector, javaNumbers(HashMapOrder(first.partition)).(Object))
		}
	case len(candidates) == 1:
		ps.live = candidates[0]
	default:
		ps.live, ps.note, ps.orderUnknown = pickOrder(candidates, orders, nparts)
	}
	if ps.live != nil {
		ps.taskKey = []byte(ps.live.id.Key)
	}
	if len(first.partition) > 0 && hasNested(first.partition) {
		ps.note = joinNote(ps.note, "the partition map has nested values, which OffsetUtils.validateFormat refuses: no task can read or write this partition")
	}
	for _, e := range ps.entries {
		if e == ps.live {
			continue
		}
		ps.stray[e] = strayReason(e, ps, latest)
	}
	if ps.live != nil {
		for _, e := range ps.entries {
			if e != ps.live && e.id.Key == ps.live.id.Key {
				ps.note = joinNote(ps.note, "the same key bytes are in more than one partition of the topic: a restarted worker keeps the one it reads last, taken here to be the newest")
				break
			}
		}
	}
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
func pickOrder(cands []*entry, orders map[string]string, nparts int) (*entry, string, bool) {
	names := sortedNames(cands[0].partition)
	if o, ok := orders[names]; ok {
		for _, c := range cands {
			if fieldOrder(c.partition) == o {
				return c, "field order taken from the connector's other keys", false
			}
		}
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

func hasNested(o Object) bool {
	for _, f := range o {
		switch f.Value.(type) {
		case Object, []any:
			return true
		}
	}
	return false
}

// strayReason says why the task does not read e.
func strayReason(e *entry, ps *partState, latest map[string]*entry) string {
	live := ps.live
	switch {
	case live != nil && e.id.Key == live.id.Key:
		return fmt.Sprintf("an older record of the same key bytes: the worker keeps the copy in %s, written later", live.id.TopicPartition)
	case latest[e.id.Key] != e:
		return fmt.Sprintf("an older record of the same key bytes than the one in %s", latest[e.id.Key].id.TopicPartition)
	case e.taskForm && live != nil:
		return "the same partition with its fields in another order: the task looks up " + string(ps.taskKey)
	case e.taskForm:
		return "field order differs from the task's"
	}
	want := EncodeKey(e.conn.id.Name, javaNumbersOrNil(e.partition))
	why := keyDifference([]byte(e.id.Key), want)
	if live == nil {
		return why + ": the task looks up " + string(want) + ", which is not stored, so it reads no offset"
	}
	return why + ": the task looks up " + string(ps.taskKey)
}

func javaNumbersOrNil(p Object) Object {
	if p == nil {
		return nil
	}
	return javaNumbers(p).(Object)
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
		if isJacksonSpace(c) {
			return out
		}
		return append(out, c)
	})
}

// numberShape replaces every number token outside strings by '#', so that
// two texts of the same shape differ only in how numbers are written.
func numberShape(b []byte) []byte {
	return outsideStrings(b, func(out []byte, c byte) []byte {
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || isDigit(c) {
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
