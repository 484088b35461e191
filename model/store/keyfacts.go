package store

import (
	"slices"
	"strings"

	"koff/model"
	"koff/model/java"
)

// keyFacts is what the Store works out once of a new key's bytes: enough
// to place it (connector), show it (partition) and judge it (task form,
// REST form, identity) without keeping the parsed map. Strings share the
// bytes of key where they can.
type keyFacts struct {
	connector string
	// partition is the compact JSON of the source partition ("null").
	partition string
	// identity is JavaIdentity of the partition: equal for copies of one
	// partition whatever their field order and number forms.
	identity  string
	fields    int   // fields of the partition map
	shape     int32 // its field order (keyShapes), -1 for fewer than two fields
	nested    bool  // a field holds an object or array
	null      bool  // the partition is JSON null
	canonical bool  // the key REST writes (HashMap order)
	taskForm  bool  // the bytes a task's own map serialises to
}

// analyzeKey works out the facts of key (raw bytes held as a string). The
// plain form nearly every worker writes (plainKey) is read without
// parsing; anything else takes ParseKey and the full Jackson reading.
func analyzeKey(key string, shapes *keyShapes, keep *arena) (keyFacts, error) {
	if f, ok := plainKeyFacts(key, shapes, keep); ok {
		return f, nil
	}
	return parsedKeyFacts(key, shapes)
}

// parsedKeyFacts is analyzeKey the long way: ParseKey, then the Jackson
// writer. It is the reference plainKeyFacts is tested against.
func parsedKeyFacts(key string, shapes *keyShapes) (keyFacts, error) {
	raw := []byte(key)
	k, err := model.ParseKey(raw)
	if err != nil {
		return keyFacts{}, err
	}
	f := keyFacts{
		connector: within(k.Connector, key),
		partition: within(string(k.PartitionRaw), key),
		identity:  within(partitionIdentity(k.Partition), key),
		fields:    len(k.Partition),
		nested:    hasNested(k.Partition),
		null:      k.Partition == nil,
		canonical: model.IsRESTCanonical(k, raw),
		taskForm:  model.TaskKeyForm(k, raw),
	}
	names := make([]string, len(k.Partition))
	for i, fl := range k.Partition {
		names[i] = fl.Name
	}
	f.shape = shapes.of(names)
	return f, nil
}

// plainKeyFacts reads a key in the plain form: ["<name>",<plain offset
// form>] or ["<name>",null], nothing before or after, the name a plain
// string (see plainOffset). Such bytes are compact and written as Jackson
// writes them, so the task's own map serialises to exactly them, the
// partition's compact JSON is the second element itself, and REST writes
// them when the field names are in HashMap order.
func plainKeyFacts(key string, shapes *keyShapes, keep *arena) (keyFacts, bool) {
	if len(key) < 7 || key[0] != '[' || key[1] != '"' || key[len(key)-1] != ']' {
		return keyFacts{}, false
	}
	end := plainString(key, 1)
	if end < 0 || end >= len(key) || key[end] != ',' {
		return keyFacts{}, false
	}
	f := keyFacts{connector: key[2 : end-1], taskForm: true, shape: -1}
	p := key[end+1 : len(key)-1]
	if p == "null" {
		f.partition, f.identity, f.null, f.canonical = p, p, true, true
		return f, true
	}
	var sp plainSpans
	if !plainObject(p, &sp) {
		return keyFacts{}, false
	}
	n, spans, fieldSpans := sp.n, &sp.names, &sp.fields
	f.partition, f.fields = p, n
	f.canonical = true // one field or none: in any order HashMap's
	if n < 2 {
		f.identity = p
		return f, true
	}
	names := shapes.names[:0]
	for _, sp := range spans[:n] {
		names = append(names, p[sp[0]:sp[1]])
	}
	shapes.names = names
	f.shape = shapes.of(names)
	sf := shapes.factsOf(f.shape)
	f.canonical = sf.canonical
	if sf.sorted {
		f.identity = p
		return f, true
	}
	// JavaIdentity sorts the fields by name; the values are written as
	// they are stored (plain values read back as themselves).
	b := append(shapes.buf[:0], '{')
	for i, j := range sf.order[:n] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p[fieldSpans[j][0]:fieldSpans[j][1]]...)
	}
	b = append(b, '}')
	shapes.buf = b
	f.identity = keep.keep(b)
	return f, true
}

// hashMapKeeps reports whether a java.util.HashMap filled with distinct
// names of these String.hashCode values, in this order, iterates them in
// the same order (see HashMapOrder).
func hashMapKeeps(hashes []uint32) bool {
	capacity := uint32(16)
	for i, h := range hashes {
		h ^= h >> 16
		hashes[i] = h
		inBin := 0
		for _, g := range hashes[:i] {
			if g&(capacity-1) == h&(capacity-1) {
				inBin++
			}
		}
		if inBin >= 8 && capacity < 64 {
			capacity *= 2
		}
		if uint32(i+1) > capacity/4*3 {
			capacity *= 2
		}
	}
	for i := 1; i < len(hashes); i++ {
		if hashes[i]&(capacity-1) < hashes[i-1]&(capacity-1) {
			return false
		}
	}
	return true
}

// keyShapes interns the field orders of partition maps: the task-order
// inference compares them across every partition of a connector, so each
// entry holds a number rather than its names.
type keyShapes struct {
	ids   map[string]int32
	list  []keyShape
	buf   []byte   // scratch
	names []string // scratch
	// facts are what plainKeyFacts works out of each shape's names, by
	// number, once (known); last is the shape of is asked for last, which
	// the next key nearly always has too.
	facts []shapeFacts
	last  int32
}

// shapeFacts are what follows from a field order alone: whether HashMap
// keeps it (hashMapKeeps), whether it is sorted, and the fields in sorted
// order (by their places in it).
type shapeFacts struct {
	known, canonical, sorted bool
	order                    [plainMaxFields]uint8
}

// factsOf returns the facts of shape id (of at least two fields).
func (k *keyShapes) factsOf(id int32) *shapeFacts {
	if int(id) >= len(k.facts) {
		k.facts = append(k.facts, make([]shapeFacts, len(k.list)-len(k.facts))...)
	}
	sf := &k.facts[id]
	if sf.known {
		return sf
	}
	names := strings.Split(k.list[id].order, "\x00")
	var hashes [plainMaxFields]uint32
	sf.sorted = true
	for i, name := range names {
		hashes[i] = java.JavaStringHash(name)
		sf.order[i] = uint8(i)
		if i > 0 && name < names[i-1] {
			sf.sorted = false
		}
	}
	sf.canonical = hashMapKeeps(hashes[:len(names)])
	order := sf.order[:len(names)]
	slices.SortFunc(order, func(a, b uint8) int { return strings.Compare(names[a], names[b]) })
	sf.known = true
	return sf
}

type keyShape struct {
	order  string // field names in stored order, NUL-separated (fieldOrder)
	sorted string // the same sorted (sortedNames)
}

// of returns the shape of names (-1 for fewer than two).
func (k *keyShapes) of(names []string) int32 {
	if len(names) < 2 {
		return -1
	}
	if int(k.last) < len(k.list) && sameOrder(k.list[k.last].order, names) {
		return k.last
	}
	k.last = k.ofNames(names)
	return k.last
}

// sameOrder reports whether order (fieldOrder: names NUL-separated) holds
// names. Plain names hold no NUL; others are compared whole by ofNames.
func sameOrder(order string, names []string) bool {
	at := 0
	for i, n := range names {
		if i > 0 {
			if at >= len(order) || order[at] != 0 {
				return false
			}
			at++
		}
		if len(order)-at < len(n) || order[at:at+len(n)] != n {
			return false
		}
		at += len(n)
	}
	return at == len(order)
}

func (k *keyShapes) ofNames(names []string) int32 {
	k.buf = k.buf[:0]
	for i, n := range names {
		if i > 0 {
			k.buf = append(k.buf, 0)
		}
		k.buf = append(k.buf, n...)
	}
	if id, ok := k.ids[string(k.buf)]; ok {
		return id
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	return k.intern(keyShape{order: string(k.buf), sorted: strings.Join(sorted, "\x00")})
}

// intern returns the number of shape sh, numbering it if it is new.
// The shape asked for last is compared first: the Store interns the
// shape of each new key a Latest analysed, nearly always the last one's.
func (k *keyShapes) intern(sh keyShape) int32 {
	if int(k.last) < len(k.list) && k.list[k.last].order == sh.order {
		return k.last
	}
	id, ok := k.ids[sh.order]
	if !ok {
		if k.ids == nil {
			k.ids = map[string]int32{}
		}
		id = int32(len(k.list))
		k.list = append(k.list, sh)
		k.ids[sh.order] = id
	}
	k.last = id
	return id
}
