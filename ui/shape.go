package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"koff/model"
)

// The offset editor checks shape, not only syntax: a task reads its offset
// by field name and type, so a typo in a name, a string where there was
// a number, or a dropped field is valid JSON that makes it start over
// (a JDBC timestamp+incrementing connector given {"incrementing":N} loses
// its timestamp and reads the whole table again).

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
	case model.Object:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// names are an object's field names, in order.
func names(o model.Object) []string {
	out := make([]string, len(o))
	for i, f := range o {
		out[i] = f.Name
	}
	return out
}

// offsetShapeWarnings compares a new offset with the one in force: the
// same value (nothing would change), fields dropped or added, and fields
// whose type changed. Each warning says which fields.
func offsetShapeWarnings(current, next model.Object) []string {
	if current == nil || next == nil {
		return nil
	}
	if model.SortedJSON(current) == model.SortedJSON(next) {
		return []string{"the same as the offset in force: applying it changes nothing"}
	}
	var out []string
	var dropped, added []string
	for _, f := range current {
		if _, ok := next.Get(f.Name); !ok {
			dropped = append(dropped, f.Name)
		}
	}
	for _, f := range next {
		cv, ok := current.Get(f.Name)
		if !ok {
			added = append(added, f.Name)
			continue
		}
		if a, b := jsonType(cv), jsonType(f.Value); a != b {
			out = append(out, fmt.Sprintf("%s is %s, the offset in force has %s there", f.Name, b, a))
		}
	}
	switch {
	case len(dropped) > 0 && len(added) > 0:
		out = append(out, fmt.Sprintf("drops %s and adds %s (misspelt?): a task that reads %s may start over",
			quoteList(dropped), quoteList(added), pluralWord(len(dropped), "it", "them")))
	case len(dropped) > 0:
		out = append(out, fmt.Sprintf("drops %s: a task that reads %s may start over",
			quoteList(dropped), pluralWord(len(dropped), "it", "them")))
	case len(added) > 0:
		out = append(out, fmt.Sprintf("adds %s, which the offset in force does not have", quoteList(added)))
	}
	return out
}

// siblingShapeWarning says when a new source partition's field names are
// not those of any of the connector's other partitions (ignoring order):
// a task looks its partitions up by the exact map, so a misspelt or
// missing field is a partition it never reads.
func siblingShapeWarning(what string, next model.Object, others []model.Object) string {
	if next == nil || len(others) == 0 {
		return ""
	}
	key := func(o model.Object) string {
		n := names(o)
		slices.Sort(n)
		return strings.Join(n, "\x00")
	}
	want := key(next)
	seen := map[string]bool{}
	var shapes []string
	for _, o := range others {
		k := key(o)
		if k == want {
			return ""
		}
		if !seen[k] {
			seen[k] = true
			n := names(o)
			slices.Sort(n)
			shapes = append(shapes, quoteList(n))
		}
	}
	slices.Sort(shapes)
	if len(shapes) > 3 {
		shapes = append(shapes[:3], "…")
	}
	return fmt.Sprintf("its %s fields (%s) differ from the connector's other %ss' (%s)",
		what, quoteList(names(next)), what, strings.Join(shapes, "; "))
}

func quoteList(ns []string) string {
	q := make([]string, len(ns))
	for i, n := range ns {
		q[i] = clean(n)
	}
	return strings.Join(q, ", ")
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
