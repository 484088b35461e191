package ui

import (
	"strings"
	"testing"
	"time"

	"koff/edit"
	"koff/model"
)

func mustObject(t *testing.T, s string) model.Object {
	t.Helper()
	o, _, err := edit.ParseOffset(s)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// The offset editor warns about valid JSON a task would not read as
// meant, saying which fields.
func TestOffsetShapeWarnings(t *testing.T) {
	for _, tc := range []struct {
		name, current, next string
		want                []string // each must be in one warning
	}{
		{"no-op, any field order", `{"a":1,"b":"x"}`, `{"b":"x","a":1}`, []string{"the same as the offset in force"}},
		{"JDBC timestamp+incrementing given incrementing alone",
			`{"timestamp_nanos":0,"timestamp":1732903002000,"incrementing":42}`, `{"incrementing":43}`,
			[]string{"drops timestamp_nanos, timestamp", "start over"}},
		{"misspelt name", `{"incrementing":42}`, `{"incrementng":43}`,
			[]string{"drops incrementing and adds incrementng (misspelt?)"}},
		{"string for a number", `{"pos":42,"file":"bin.1"}`, `{"pos":"43","file":"bin.1"}`,
			[]string{"pos is a string, the offset in force has a number there"}},
		{"same shape, new value", `{"pos":42,"file":"bin.1"}`, `{"pos":18446744073709551615,"file":"bin.2"}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := offsetShapeWarnings(mustObject(t, tc.current), mustObject(t, tc.next))
			if len(tc.want) == 0 && len(got) > 0 {
				t.Errorf("warnings %q for an offset of the same shape", got)
			}
			all := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("warnings %q lack %q", got, w)
				}
			}
		})
	}
}

func TestSiblingShapeWarning(t *testing.T) {
	others := []model.Object{mustObject(t, `{"protocol":"1","table":"orders"}`), mustObject(t, `{"table":"customers","protocol":"1"}`)}
	if w := siblingShapeWarning("partition", mustObject(t, `{"table":"payments","protocol":"1"}`), others); w != "" {
		t.Errorf("same field names in another order: %q", w)
	}
	w := siblingShapeWarning("partition", mustObject(t, `{"tabel":"payments","protocol":"1"}`), others)
	if !strings.Contains(w, "tabel, protocol") || !strings.Contains(w, "protocol, table") {
		t.Errorf("misspelt field: %q", w)
	}
}

// The editor shows them under the field as the offset is typed, and
// still lets the edit go ahead.
func TestEditFormWarnsAboutShape(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}} {
		_, _, m := editModel(t, sz[0], sz[1], nil)
		selectPartition(t, m, "jdbc-orders", "9002") // customers
		send(t, m, press("e")...)
		setField(m, 0, `{"incrementing":9002}`)
		requireContains(t, m, "⚠ the same as the offset in force")
		setField(m, 0, `{"incrementng":9003}`)
		requireContains(t, m, "⚠ drops incrementing and adds", "incrementng")
		requireFits(t, screenText(m), sz[0], sz[1])
		if !m.form.(*editForm).valid() {
			t.Error("a shape warning made the offset invalid")
		}
		send(t, m, press("esc")...)
		// n: a new partition whose field names differ from the others'.
		send(t, m, press("n")...)
		setField(m, 0, `{"protocol":"1","tabel":"refunds"}`)
		requireContains(t, m, "⚠ its partition fields (protocol, tabel) differ")
		send(t, m, press("esc")...)
	}
}

// A running task commits while e is open: the form says the offset in
// force moved and judges what is typed against the new one, keeping it.
func TestEditFormFollowsTheOffsetInForce(t *testing.T) {
	f, _, m := editModel(t, 80, 24, nil)
	selectPartition(t, m, "jdbc-orders", "9002") // customers
	send(t, m, press("e")...)
	setField(m, 0, `{"incrementing":9002}`)
	requireContains(t, m, "⚠ the same as the offset in force")
	f.put(t0.Add(time.Second), keyCustomers, `{"incrementing":9050}`)
	send(t, m, tickMsg{})
	requireContains(t, m, "Current offset (moved while this form was open)", `{"incrementing":9050}`)
	if strings.Contains(screenText(m), "the same as the offset in force") {
		t.Errorf("the no-op warning stayed after the offset moved:\n%s", screenText(m))
	}
	if got := m.form.(*editForm).fields[0].ta.Value(); got != `{"incrementing":9002}` {
		t.Errorf("what was typed changed to %q", got)
	}
	setField(m, 0, `{"incrementing":9050}`)
	requireContains(t, m, "⚠ the same as the offset in force")
}
