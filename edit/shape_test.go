package edit

import (
	"strings"
	"testing"

	"koff/edit/planner"
	"koff/model/java"
)

func objects(t *testing.T, ss ...string) []java.Object {
	t.Helper()
	out := make([]java.Object, len(ss))
	for i, s := range ss {
		out[i] = mustOffset(t, s)
	}
	return out
}

// A new offset is judged against the offset in force and every shape the
// connector itself wrote, saying which fields.
func TestOffsetShapeWarnings(t *testing.T) {
	snapshot := `{"last_snapshot_record":false,"lsn":23760216,"snapshot":true,"ts_usec":1732903002000000,"txId":780}`
	streaming := `{"lsn_proc":23760400,"messageType":"UPDATE","lsn":23760400,"txId":781,"ts_usec":1732903003000000,"lsn_commit":23760400}`
	for _, tc := range []struct {
		name, current, next string
		known               []string
		want                []string // each must be in one warning
	}{
		{"no-op, any field order", `{"a":1,"b":"x"}`, `{"b":"x","a":1}`, nil, []string{"the same as the offset in force"}},
		{"JDBC timestamp+incrementing given incrementing alone",
			`{"timestamp_nanos":0,"timestamp":1732903002000,"incrementing":42}`, `{"incrementing":43}`, nil,
			[]string{"drops timestamp_nanos, timestamp", "start over"}},
		{"misspelt name", `{"incrementing":42}`, `{"incrementng":43}`, nil,
			[]string{"drops incrementing and adds incrementng (misspelt?)"}},
		{"string for a number", `{"incrementing":48408}`, `{"incrementing":"1000"}`, nil,
			[]string{"incrementing is a string, the offset in force has a number there"}},
		{"same shape, new value", `{"pos":42,"file":"bin.1"}`, `{"pos":18446744073709551615,"file":"bin.2"}`, nil, nil},
		// Debezium's snapshot ends: the streaming shape is in its history.
		{"Debezium snapshot to streaming", snapshot, streaming, []string{snapshot, streaming}, nil},
		{"Debezium streaming to snapshot", streaming, snapshot, []string{streaming, snapshot}, nil},
		// Fields that are no rename of each other are not called misspelt.
		{"Debezium streaming never seen", snapshot, streaming, nil, []string{"drops last_snapshot_record, snapshot and adds lsn_proc, messageType, lsn_commit, a shape the connector has not"}},
		{"MirrorMaker offset in a sink's shape", `{"offset":41}`, `{"kafka_offset":42}`, []string{`{"offset":7}`}, []string{"drops offset and adds kafka_offset"}},
		{"a type the connector never wrote", `{"lsn":1}`, `{"lsn":"2"}`, []string{`{"lsn":5}`}, []string{"lsn is a string, the offset in force has a number there"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := planner.OffsetShapeWarnings(mustOffset(t, tc.next), mustOffset(t, tc.current), objects(t, tc.known...))
			if len(tc.want) == 0 && len(got) > 0 {
				t.Errorf("warnings %q for a shape the connector writes", got)
			}
			all := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("warnings %q lack %q", got, w)
				}
			}
			if strings.Contains(tc.name, "Debezium") && strings.Contains(all, "misspelt") {
				t.Errorf("Debezium's own fields called misspelt: %q", got)
			}
		})
	}
}

func TestPartitionShapeWarning(t *testing.T) {
	others := objects(t, `{"protocol":"1","table":"orders"}`, `{"table":"customers","protocol":"1"}`)
	if w := planner.PartitionShapeWarning(mustOffset(t, `{"table":"payments","protocol":"1"}`), others); w != "" {
		t.Errorf("same field names in another order: %q", w)
	}
	w := planner.PartitionShapeWarning(mustOffset(t, `{"tabel":"payments","protocol":"1"}`), others)
	if !strings.Contains(w, "tabel, protocol") || !strings.Contains(w, "protocol, table") {
		t.Errorf("misspelt field: %q", w)
	}
}
