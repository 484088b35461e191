package model

import (
	"slices"
	"strings"
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
	k, err := ParseKey(raw)
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
		canonical: IsRESTCanonical(k, raw),
		taskForm:  TaskKeyForm(k, raw),
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
	var hashes [plainMaxFields]uint32
	sorted := true
	for i := 0; i < n; i++ {
		name := p[spans[i][0]:spans[i][1]]
		hashes[i] = javaStringHash(name)
		if i > 0 && name < p[spans[i-1][0]:spans[i-1][1]] {
			sorted = false
		}
	}
	f.canonical = hashMapKeeps(hashes[:n])
	if n >= 2 {
		var names [plainMaxFields]string
		for i := range n {
			names[i] = p[spans[i][0]:spans[i][1]]
		}
		f.shape = shapes.of(names[:n])
	}
	if sorted {
		f.identity = p
		return f, true
	}
	// JavaIdentity sorts the fields by name; the values are written as
	// they are stored (plain values read back as themselves).
	var orderBuf [plainMaxFields]int
	order := orderBuf[:n]
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return strings.Compare(p[spans[a][0]:spans[a][1]], p[spans[b][0]:spans[b][1]])
	})
	b := append(shapes.buf[:0], '{')
	for i, j := range order {
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
	ids  map[string]int32
	list []keyShape
	buf  []byte // scratch
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
func (k *keyShapes) intern(sh keyShape) int32 {
	if id, ok := k.ids[sh.order]; ok {
		return id
	}
	if k.ids == nil {
		k.ids = map[string]int32{}
	}
	id := int32(len(k.list))
	k.list = append(k.list, sh)
	k.ids[sh.order] = id
	return id
}
