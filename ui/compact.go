package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"koff/model"
)

// jsonValues is a JSON object's values in their order, without field
// names or punctuation: `{"table":"orders","protocol":"1"}` reads
// "orders 1". It is how a narrow column shows a partition or an offset:
// every number whole, so 1000 and 100000 never look alike. ok is false
// for anything but a flat object.
func jsonValues(s string) (string, bool) {
	v, err := model.ParseJSON([]byte(s))
	if err != nil {
		return "", false
	}
	obj, isObj := v.(model.Object)
	if !isObj {
		return "", false
	}
	parts := make([]string, 0, len(obj))
	for _, f := range obj {
		switch x := f.Value.(type) {
		case string:
			parts = append(parts, x)
		case model.Object, []any:
			return "", false
		case nil:
			parts = append(parts, "null")
		default:
			parts = append(parts, fmt.Sprint(x)) // json.Number, bool: as written
		}
	}
	return strings.Join(parts, " "), true
}

// fitJSON shows a partition or offset map in w cells: whole when it fits,
// else its values alone, else those cut in the middle (the end of a
// number and of a table name tell rows apart).
func fitJSON(s string, w int) string {
	full := cleanJSON(s)
	if ansi.StringWidth(full) <= w {
		return full
	}
	if vals, ok := jsonValues(s); ok {
		return truncateMiddle(clean(vals), w)
	}
	return truncateMiddle(full, w)
}

// compactWidth is the width fitJSON needs to show s without cutting it.
func compactWidth(s string) int {
	if vals, ok := jsonValues(s); ok {
		return cellWidth(clean(vals))
	}
	return cellWidth(cleanJSON(s))
}
