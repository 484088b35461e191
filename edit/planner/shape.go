package planner

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
)

// A task reads its offset by field name and type, so a typo in a name, a
// string where there was a number, or a dropped field is valid JSON that
// makes it start over (a JDBC timestamp+incrementing connector given
// {"incrementing":N} loses its timestamp and reads the whole table
// again). The CLI's plan and the dashboard's forms share this judgement.
//
// A connector may itself write more than one shape: Debezium drops
// snapshot fields and adds lsn_proc, messageType when its snapshot ends.
// So a new offset is judged against every shape the connector wrote (its
// partitions' offsets and their history), not only the one in force.

// jsonType names a parsed JSON value's type.
func jsonType(v any) string {
	switch v.(type) {
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	case java.Object:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// shapeKey is an object's field names and their types, in name order.
func shapeKey(o java.Object) string {
	parts := make([]string, len(o))
	for i, f := range o {
		parts[i] = f.Name + "\x01" + jsonType(f.Value)
	}
	sort.Strings(parts)
	return strings.Join(parts, "\x00")
}

// OffsetShapeWarnings judges a new offset against the offset in force
// (nil: none) and the offsets the connector itself wrote (known): the
// same value (nothing would change), and, when its field names and types
// are not a shape the connector wrote, the fields it drops, adds or
// changes the type of. Each warning says which fields.
func OffsetShapeWarnings(next, inForce java.Object, known []java.Object) []string {
	if next == nil {
		return nil
	}
	if inForce != nil && model.SortedJSON(inForce) == model.SortedJSON(next) {
		return []string{"the same as the offset in force: applying it changes nothing"}
	}
	want := shapeKey(next)
	shapes := known
	if inForce != nil {
		shapes = append([]java.Object{inForce}, known...)
	}
	for _, o := range shapes {
		if o != nil && shapeKey(o) == want {
			return nil // a shape the connector writes itself
		}
	}
	ref, where := referenceShape(next, inForce, known)
	if ref == nil {
		return nil
	}
	var out, dropped, added []string
	for _, f := range ref {
		if _, ok := next.Get(f.Name); !ok {
			dropped = append(dropped, f.Name)
		}
	}
	for _, f := range next {
		rv, ok := ref.Get(f.Name)
		if !ok {
			added = append(added, f.Name)
			continue
		}
		if a, b := jsonType(rv), jsonType(f.Value); a != b {
			out = append(out, fmt.Sprintf("%s is %s, %s %s there", f.Name, b, where, a))
		}
	}
	switch {
	case len(dropped) > 0 && len(added) > 0 && misspelt(dropped, added):
		out = append(out, fmt.Sprintf("drops %s and adds %s (misspelt?): a task that reads %s may start over",
			strings.Join(dropped, ", "), strings.Join(added, ", "), pluralWord(len(dropped), "it", "them")))
	case len(dropped) > 0 && len(added) > 0:
		out = append(out, fmt.Sprintf("drops %s and adds %s, a shape %s not: a task that reads %s may start over",
			strings.Join(dropped, ", "), strings.Join(added, ", "), shapeWhere(where), pluralWord(len(dropped), "it", "them")))
	case len(dropped) > 0:
		out = append(out, fmt.Sprintf("drops %s: a task that reads %s may start over",
			strings.Join(dropped, ", "), pluralWord(len(dropped), "it", "them")))
	case len(added) > 0:
		out = append(out, fmt.Sprintf("adds %s, which %s not have", strings.Join(added, ", "), doesWhere(where)))
	}
	return out
}

func shapeWhere(where string) string {
	if where == inForceWords {
		return "the connector has"
	}
	return "the connector wrote"
}

func doesWhere(where string) string {
	if where == inForceWords {
		return "the offset in force does"
	}
	return "the connector's offsets do"
}

const inForceWords = "the offset in force has"

// referenceShape is what a new offset is compared with: of the offset in
// force and the shapes the connector wrote, the one whose field names
// differ least from next's (the offset in force on a tie).
func referenceShape(next, inForce java.Object, known []java.Object) (java.Object, string) {
	var best java.Object
	bestDiff := -1
	where := ""
	consider := func(o java.Object, w string) {
		if o == nil {
			return
		}
		diff := 0
		for _, f := range o {
			if _, ok := next.Get(f.Name); !ok {
				diff++
			}
		}
		for _, f := range next {
			if _, ok := o.Get(f.Name); !ok {
				diff++
			}
		}
		if bestDiff < 0 || diff < bestDiff {
			best, bestDiff, where = o, diff, w
		}
	}
	consider(inForce, inForceWords)
	for _, o := range known {
		consider(o, "the connector's offsets have")
	}
	return best, where
}

// misspelt: an added name is a small edit away from a dropped one.
func misspelt(dropped, added []string) bool {
	for _, d := range dropped {
		for _, a := range added {
			if editDistance(strings.ToLower(d), strings.ToLower(a)) <= max(2, len([]rune(d))/3) {
				return true
			}
		}
	}
	return false
}

// PartitionShapeWarning says when a new source partition's field names
// are not those of any of the connector's other partitions (ignoring
// order): a task looks its partitions up by the exact map, so a misspelt
// or missing field is a partition it never reads.
func PartitionShapeWarning(next java.Object, others []java.Object) string {
	if next == nil || len(others) == 0 {
		return ""
	}
	want := fieldNames(next)
	seen := map[string]bool{}
	var shapes []string
	for _, o := range others {
		if o == nil {
			continue
		}
		k := fieldNames(o)
		if k == want {
			return ""
		}
		if !seen[k] {
			seen[k] = true
			shapes = append(shapes, strings.ReplaceAll(k, "\x00", ", "))
		}
	}
	if len(shapes) == 0 {
		return ""
	}
	slices.Sort(shapes)
	if len(shapes) > 3 {
		shapes = append(shapes[:3], "…")
	}
	names := make([]string, len(next))
	for i, f := range next {
		names[i] = f.Name
	}
	return fmt.Sprintf("its partition fields (%s) differ from the connector's other partitions' (%s)",
		strings.Join(names, ", "), strings.Join(shapes, "; "))
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// detailReader reads one stored copy with its history: the Store, or the
// dashboard's Source.
type detailReader interface {
	Partition(model.PartitionID) (model.PartitionDetail, bool)
}

// WrittenShapes are the offsets a connector wrote, one per shape: each
// row's offset and the values in its history (the Store keeps the last
// few updates of every partition) for the first 64, the offsets alone of
// a few hundred more: put the edited partition first.
func WrittenShapes(r detailReader, rows []model.PartitionRow) []java.Object {
	seen := map[string]bool{}
	var out []java.Object
	add := func(v []byte) {
		o, err := model.ParseOffset(v)
		if err != nil || o == nil {
			return
		}
		if k := shapeKey(o); !seen[k] {
			seen[k] = true
			out = append(out, o)
		}
	}
	for i, row := range rows {
		if i == 500 {
			break
		}
		if !row.Deleted {
			add([]byte(row.Offset))
		}
		if r == nil || i >= 64 {
			continue
		}
		if d, ok := r.Partition(row.ID); ok {
			for _, u := range d.History {
				add(u.Value)
			}
		}
	}
	return out
}

// shapeJudge judges the new offsets of one plan: the connector's written
// shapes are read once, however many partitions the plan sets.
type shapeJudge struct {
	e      *Planner
	p      *plan.Plan
	copies []StoredCopy
	index  *copyIndex // finds a partition's stored copies (copy_index.go)
	read   bool
	known  []java.Object // offset shapes of all the connector's partitions
	// knownKeys are known's shapeKeys: an offset of one of them needs no
	// look at its own partition's history (thousands of partitions in one
	// rewind or import would each parse theirs).
	knownKeys map[string]bool
	others    []java.Object // its partition maps, one per set of field names
}

func (e *Planner) shapeJudge(p *plan.Plan, copies []StoredCopy, index *copyIndex) *shapeJudge {
	return &shapeJudge{e: e, p: p, copies: copies, index: index}
}

// warnings are a set's or an import's shape warnings for one change.
func (j *shapeJudge) warnings(it plan.Item, ch plan.Change) []string {
	if it.Offset == nil || (j.p.Kind != plan.KindSet && j.p.Kind != plan.KindImport && j.p.Kind != plan.KindRewind) || plan.IsSinkPartition(it.Partition) {
		return nil
	}
	if !j.read {
		j.read = true
		rows := make([]model.PartitionRow, 0, len(j.copies))
		seen := map[string]bool{}
		for _, c := range j.copies {
			rows = append(rows, c.Row)
			if k := fieldNames(c.Partition); c.Partition != nil && !seen[k] {
				seen[k] = true // one map per set of field names is all the judgement needs
				j.others = append(j.others, c.Partition)
			}
		}
		j.known = WrittenShapes(j.e.Store, rows)
		j.knownKeys = make(map[string]bool, len(j.known))
		for _, o := range j.known {
			j.knownKeys[shapeKey(o)] = true
		}
	}
	canon := CanonOf(it.Partition)
	var mine []model.PartitionRow // the edited partition's own history counts whatever its rank
	for _, c := range j.index.of(canon, j.copies) {
		mine = append(mine, c.Row)
	}
	var inForce java.Object
	if ch.Before != nil {
		inForce, _ = model.ParseOffset(ch.Before)
	}
	var out []string
	if len(mine) == 0 {
		if w := PartitionShapeWarning(it.Partition, j.others); w != "" {
			out = append(out, ch.PartitionJSON+": "+w)
		}
	}
	var known []java.Object
	if want := shapeKey(it.Offset); j.knownKeys[want] || inForce != nil && shapeKey(inForce) == want {
		// A shape the connector writes: the partition's own history
		// cannot change that.
		known = j.known
	} else {
		known = append(WrittenShapes(j.e.Store, mine), j.known...)
	}
	for _, w := range OffsetShapeWarnings(it.Offset, inForce, known) {
		out = append(out, ch.PartitionJSON+": offset "+w)
	}
	return out
}
