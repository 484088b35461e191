package store

import (
	"strings"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
)

// raw is one record of the offsets topic, as bytes.
type raw struct {
	tp    int
	key   string
	value string // "\x00nil" for a tombstone
	at    time.Duration
}

const tombstone = "\x00nil"

func ingestRaw(t *testing.T, recs []raw) *Store {
	t.Helper()
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	next := map[int]int64{}
	for _, r := range recs {
		rec := Record{Topic: "connect-offsets", Partition: r.tp, Offset: next[r.tp], Key: []byte(r.key), Time: t0.Add(r.at)}
		next[r.tp]++
		if r.value != tombstone {
			rec.Value = []byte(r.value)
		}
		s.Ingest([]Record{rec})
	}
	return s
}

// taskReads returns, for the partition of connector c whose partition
// map's identity is that of p, what the task reads, the live copy (tp and
// key) and the rows.
func taskReads(t *testing.T, s *Store, c, p string) (reads, noOffset string, live *model.PartitionID, rows []model.PartitionRow) {
	t.Helper()
	k, err := model.ParseKey([]byte(`["` + c + `",` + p + `]`))
	if err != nil {
		t.Fatalf("bad test partition %s: %v", p, err)
	}
	id := java.JavaIdentity(k.Partition)
	for _, r := range s.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: c}) {
		rk, err := model.ParseKey([]byte(r.ID.Key))
		if err != nil || java.JavaIdentity(rk.Partition) != id {
			continue
		}
		rows = append(rows, r)
		reads, noOffset, live = r.TaskReads, r.NoOffset, r.LiveCopy
	}
	if len(rows) == 0 {
		t.Fatalf("no stored copy of %s", p)
	}
	for _, r := range rows {
		if r.TaskReads != reads || (r.LiveCopy == nil) != (live == nil) {
			t.Fatalf("copies of one partition disagree on what the task reads: %+v", rows)
		}
		if r.Live != (live != nil && r.ID == *live) {
			t.Fatalf("row %s Live=%v but the live copy is %v", r.ID, r.Live, live)
		}
		if !r.Live && r.Stray == "" {
			t.Fatalf("row %s is not live but has no stray reason", r.ID)
		}
	}
	return reads, noOffset, live, rows
}

type readCase struct {
	name string
	recs []raw
	// part is the partition map asked about; reads what the task reads
	// ("" for no offset); liveTP/liveKey the copy it reads; noOffset a
	// word the reason must contain; note a word the note must contain.
	part     string
	reads    string
	liveTP   int
	liveKey  string
	noOffset string
	note     string
}

func runReadCases(t *testing.T, cases []readCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ingestRaw(t, tc.recs)
			reads, noOffset, live, rows := taskReads(t, s, "c", tc.part)
			if reads != tc.reads {
				t.Errorf("task reads %q, want %q (rows %+v)", reads, tc.reads, rows)
			}
			switch {
			case tc.liveKey == "" && live != nil:
				t.Errorf("live copy %v, want none", live)
			case tc.liveKey != "" && (live == nil || live.Key != tc.liveKey || live.Partition != tc.liveTP):
				t.Errorf("live copy %v, want %s in partition %d", live, tc.liveKey, tc.liveTP)
			}
			if tc.noOffset != "" && !strings.Contains(noOffset, tc.noOffset) {
				t.Errorf("no-offset reason %q lacks %q", noOffset, tc.noOffset)
			}
			if tc.reads != "" && noOffset != "" {
				t.Errorf("an offset and a no-offset reason: %q", noOffset)
			}
			if tc.note != "" && !strings.Contains(rows[0].TaskNote, tc.note) {
				t.Errorf("note %q lacks %q", rows[0].TaskNote, tc.note)
			}
		})
	}
}

// Class 1: one partition stored under several keys. Decided by
// KafkaOffsetBackingStore's consumedCallback (one value per raw key bytes,
// across all partitions, the record read last wins) and
// OffsetStorageReaderImpl.offsets (the task looks up the bytes
// JsonConverter.fromConnectData writes for its own map).
func TestTaskReads_OffsetStorageReaderImplLooksUpTheTasksKeyBytes(t *testing.T) {
	const (
		good   = `["c",{"f":"a"}]`   // murmur2 → its home partition
		spaced = `["c", {"f": "a"}]` // hand-written with spaces
	)
	home := java.PartitionFor([]byte(good), 25)
	other := (home + 1) % 25
	// Of the two field orders of {table, database}, the one REST writes and
	// the other, which only a task building its map that way writes.
	restOrder := string(model.RESTKey("c", mustObject(`{"table":"t1","database":"db"}`)))
	taskOrder := `["c",{"table":"t1","database":"db"}]`
	if restOrder == taskOrder {
		taskOrder = `["c",{"database":"db","table":"t1"}]`
	}
	// A restarted worker reads partitions in java.util.HashMap order
	// (ReadAfter, of the two partitions with records), not by time: before
	// is read before home, after after it.
	before, after := -1, -1
	for p := range 25 {
		switch {
		case p == home:
		case model.ReadAfter("connect-offsets", home, p, 25, 2) && before < 0:
			before = p
		case model.ReadAfter("connect-offsets", p, home, 25, 2) && after < 0:
			after = p
		}
	}
	// Two partitions read before home when three hold records.
	var before3 []int
	for p := range 25 {
		if p != home && model.ReadAfter("connect-offsets", home, p, 25, 3) && len(before3) < 2 {
			before3 = append(before3, p)
		}
	}
	runReadCases(t, []readCase{
		{name: "the task's bytes win over a newer copy with spaces in the murmur2 partition",
			recs: []raw{{other, good, `{"pos":1}`, 0}, {java.PartitionFor([]byte(spaced), 25), spaced, `{"pos":2}`, time.Minute}},
			part: `{"f":"a"}`, reads: `{"pos":1}`, liveTP: other, liveKey: good},
		{name: "the same bytes in two partitions: the one read last, though older",
			recs: []raw{{after, good, `{"pos":2}`, 0}, {home, good, `{"pos":1}`, time.Minute}},
			part: `{"f":"a"}`, reads: `{"pos":2}`, liveTP: after, liveKey: good, note: "follows its consumer's partition order, not time"},
		{name: "the same bytes in two partitions: the newer one, read first, is not read",
			recs: []raw{{home, good, `{"pos":1}`, 0}, {before, good, `{"pos":2}`, time.Minute}},
			part: `{"f":"a"}`, reads: `{"pos":1}`, liveTP: home, liveKey: good, note: "a worker that was reading when the newer copy was written keeps that one"},
		{name: "the same bytes and value in two partitions",
			recs: []raw{{home, good, `{"pos":1}`, 0}, {before, good, `{"pos":1}`, time.Minute}},
			part: `{"f":"a"}`, reads: `{"pos":1}`, liveTP: home, liveKey: good, note: "with the same value"},
		{name: "the same bytes in three partitions, one with another value: told, whichever was seen first",
			recs: []raw{{home, good, `{"pos":1}`, 0}, {before3[0], good, `{"pos":1}`, time.Minute}, {before3[1], good, `{"pos":9}`, 2 * time.Minute}},
			part: `{"f":"a"}`, reads: `{"pos":1}`, liveTP: home, liveKey: good, note: "with different values"},
		{name: "only a copy with spaces: the task finds no key with its bytes",
			recs: []raw{{3, spaced, `{"pos":1}`, 0}},
			part: `{"f":"a"}`, reads: "", noOffset: `no stored key has the bytes the task looks up (["c",{"f":"a"}])`},
		{name: "number layout: 1.50 is not what Java writes for the Double 1.5",
			recs: []raw{{1, `["c",{"f":1.5}]`, `{"pos":1}`, 0}, {2, `["c",{"f":1.50}]`, `{"pos":2}`, time.Minute}},
			part: `{"f":1.5}`, reads: `{"pos":1}`, liveTP: 1, liveKey: `["c",{"f":1.5}]`},
		{name: "an integer and a double are different partitions (Long vs Double)",
			recs: []raw{{1, `["c",{"f":100}]`, `{"pos":1}`, 0}, {2, `["c",{"f":100.0}]`, `{"pos":2}`, time.Minute}},
			part: `{"f":100}`, reads: `{"pos":1}`, liveTP: 1, liveKey: `["c",{"f":100}]`},
		{name: "escaping: \\u0061 is read as a but the task writes a",
			recs: []raw{{1, `["c",{"f":"a"}]`, `{"pos":1}`, 0}, {2, `["c",{"f":"\u0061"}]`, `{"pos":2}`, time.Minute}},
			part: `{"f":"a"}`, reads: `{"pos":1}`, liveTP: 1, liveKey: `["c",{"f":"a"}]`},
		{name: "text after the key array parses (Jackson reads the first value) but is not the task's bytes",
			recs: []raw{{1, `["c",{"f":"a"}]`, `{"pos":1}`, 0}, {2, `["c",{"f":"a"}] `, `{"pos":2}`, time.Minute}},
			part: `{"f":"a"}`, reads: `{"pos":1}`, liveTP: 1, liveKey: `["c",{"f":"a"}]`},
		{name: "two field orders, nothing else to go by: the HashMap order REST writes, and say so",
			recs:   []raw{{1, `["c",{"table":"t1","database":"db"}]`, `{"pos":1}`, 0}, {2, `["c",{"database":"db","table":"t1"}]`, `{"pos":2}`, time.Minute}},
			part:   `{"table":"t1","database":"db"}`,
			reads:  restOrderValue(`{"table":"t1","database":"db"}`, `{"pos":1}`, `{"pos":2}`),
			liveTP: restOrderTP(`{"table":"t1","database":"db"}`, 1, 2), liveKey: string(model.RESTKey("c", mustObject(`{"table":"t1","database":"db"}`))),
			note: "cannot be known"},
		{name: "two field orders: the order the connector's other partitions use",
			recs: []raw{
				{1, `["c",{"table":"t1","database":"db"}]`, `{"pos":1}`, 0},
				{2, `["c",{"database":"db","table":"t1"}]`, `{"pos":2}`, time.Minute},
				{3, `["c",{"table":"t2","database":"db"}]`, `{"pos":3}`, 0},
				{4, `["c",{"table":"t3","database":"db"}]`, `{"pos":4}`, 0},
			},
			part: `{"table":"t1","database":"db"}`, reads: `{"pos":1}`, liveTP: 1, liveKey: `["c",{"table":"t1","database":"db"}]`,
			note: "other keys"},
		{name: "two field orders: the one written in one commit with another partition, not the REST order written alone",
			recs: []raw{
				{1, taskOrder, `{"pos":1}`, 0},
				{3, `["c",{"shard":3}]`, `{"pos":3}`, 0},
				{2, restOrder, `{"pos":2}`, time.Minute},
			},
			part: `{"table":"t1","database":"db"}`, reads: `{"pos":1}`, liveTP: 1, liveKey: taskOrder,
			note: "written in one flush"},
	})
}

func mustObject(s string) java.Object {
	v, err := java.ParseJSON([]byte(s))
	if err != nil {
		panic(err)
	}
	return v.(java.Object)
}

// restOrderValue picks the value of whichever of the two orders is the
// HashMap order: the first record uses p's order, the second the other.
func restOrderValue(p, first, second string) string {
	if string(model.RESTKey("c", mustObject(p))) == `["c",`+p+`]` {
		return first
	}
	return second
}

func restOrderTP(p string, first, second int) int {
	if string(model.RESTKey("c", mustObject(p))) == `["c",`+p+`]` {
		return first
	}
	return second
}

// Class 2: later records that leave the task without an offset.
// KafkaOffsetBackingStore's consumedCallback removes the key on a null
// value and otherwise stores any bytes; OffsetStorageReaderImpl.offsets
// gives null for a value JsonConverter.toConnectData reads as null (zero
// bytes: MissingNode; the literal null) and logs and skips one that the
// converter or OffsetUtils.validateFormat refuses. Never the earlier value.
func TestTaskReads_LaterUnreadableRecordsLeaveNoOffset(t *testing.T) {
	const k = `["c",{"f":"a"}]`
	tp := java.PartitionFor([]byte(k), 25)
	later := func(v string) []raw { return []raw{{tp, k, `{"pos":1}`, 0}, {tp, k, v, time.Minute}} }
	runReadCases(t, []readCase{
		{name: "tombstone: data.remove", recs: later(tombstone), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "deleted"},
		{name: "zero bytes: MissingNode, null", recs: later(""), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "reads as null"},
		{name: "whitespace: MissingNode, null", recs: later(" \n"), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "reads as null"},
		{name: "literal null: NullNode, null", recs: later("null"), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "reads as null"},
		{name: "garbage: DataException, logged and skipped", recs: later("{pos:2}"), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "unreadable"},
		{name: "invalid UTF-8 start byte", recs: later("{\"pos\":\"\xff\"}"), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "invalid UTF-8"},
		{name: "an array: validateFormat, Offsets must be specified as a Map", recs: later("[1]"), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "Map"},
		{name: "a nested map: validateFormat refuses it", recs: later(`{"pos":{"a":1}}`), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "primitive types"},
		{name: "a good value after garbage is read again", recs: append(later("garbage"), raw{tp, k, `{"pos":3}`, 2 * time.Minute}), part: `{"f":"a"}`, reads: `{"pos":3}`, liveTP: tp, liveKey: k},
		{name: "a tombstone of a stray copy changes nothing",
			recs: []raw{{tp, k, `{"pos":1}`, 0}, {3, `["c", {"f":"a"}]`, `{"pos":2}`, 0}, {3, `["c", {"f":"a"}]`, tombstone, time.Minute}},
			part: `{"f":"a"}`, reads: `{"pos":1}`, liveTP: tp, liveKey: k},
	})
}

// Class 3: JSON the worker reads leniently: JsonDeserializer enables
// JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS; ObjectMapper's
// _readTreeAndClose reads only the first value (FAIL_ON_TRAILING_TOKENS is
// off); Jackson's whitespace is space, tab, CR and LF; comments and NaN
// stay refused (Apache Kafka 4.1.1, Jackson 2.19.0).
func TestTaskReads_JsonDeserializerLeniency(t *testing.T) {
	const k = `["c",{"f":"a"}]`
	tp := java.PartitionFor([]byte(k), 25)
	one := func(v string) []raw { return []raw{{tp, k, v, 0}} }
	runReadCases(t, []readCase{
		{name: "leading zeros", recs: one(`{"pos":007,"x":-00.5}`), part: `{"f":"a"}`, reads: `{"pos":7,"x":-0.5}`, liveTP: tp, liveKey: k},
		{name: "text after the first value", recs: one(`{"pos":1} and more`), part: `{"f":"a"}`, reads: `{"pos":1}`, liveTP: tp, liveKey: k},
		{name: "a second document after the first", recs: one(`{"pos":1}{"pos":2}`), part: `{"f":"a"}`, reads: `{"pos":1}`, liveTP: tp, liveKey: k},
		{name: "whitespace", recs: one(" {\t\"pos\" :\r\n 1 } "), part: `{"f":"a"}`, reads: `{"pos":1}`, liveTP: tp, liveKey: k},
		{name: "UTF-8 BOM", recs: one("\xef\xbb\xbf{\"pos\":1}"), part: `{"f":"a"}`, reads: `{"pos":1}`, liveTP: tp, liveKey: k},
		{name: "repeated name: the last value", recs: one(`{"pos":1,"pos":2}`), part: `{"f":"a"}`, reads: `{"pos":2}`, liveTP: tp, liveKey: k},
		{name: "comments refused", recs: one(`{"pos":1 /* c */}`), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "unreadable"},
		{name: "NaN refused", recs: one(`{"pos":NaN}`), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "unreadable"},
		{name: "plus sign refused", recs: one(`{"pos":+1}`), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "unreadable"},
		{name: "trailing comma refused", recs: one(`{"pos":1,}`), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "unreadable"},
		{name: "a raw control character in a string refused", recs: one("{\"pos\":\"a\tb\"}"), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "control character"},
		{name: "more than 1000 digits refused (StreamReadConstraints)", recs: one(`{"pos":1` + strings.Repeat("0", 1000) + `}`), part: `{"f":"a"}`, liveTP: tp, liveKey: k, noOffset: "1000 digits"},
		{name: "a key with leading zeros parses to the same partition, but is a stray",
			recs: []raw{{1, `["c",{"n":7}]`, `{"pos":1}`, 0}, {2, `["c",{"n":007}]`, `{"pos":2}`, time.Minute}},
			part: `{"n":7}`, reads: `{"pos":1}`, liveTP: 1, liveKey: `["c",{"n":7}]`},
	})
}

// Class 5: numbers a Java task reads differently from how they are stored.
// JsonConverter.convertToConnect reads an integral number with
// longValue() (a BigInteger keeps its low 64 bits) and any other with
// doubleValue() of its BigDecimal (USE_BIG_DECIMAL_FOR_FLOATS): 1e400 is
// Infinity, and a BigDecimal zero has no sign, so -0.0 is 0.0.
func TestTaskReads_JsonConverterNumbers(t *testing.T) {
	cases := []struct {
		stored, javaReads string // javaReads "" when the task reads what is stored
	}{
		{`{"pos":18446744073709551621}`, `{"pos":5}`},
		{`{"pos":9223372036854775808}`, `{"pos":-9223372036854775808}`},
		{`{"pos":9223372036854775807}`, ``},
		{`{"pos":1e400}`, `{"pos":"Infinity"}`},
		{`{"pos":-1e400}`, `{"pos":"-Infinity"}`},
		{`{"pos":1e-400}`, `{"pos":0.0}`},
		{`{"pos":-0.0}`, `{"pos":0.0}`},
		{`{"pos":-0}`, ``},
		{`{"pos":9007199254740993.0}`, `{"pos":9.007199254740992E15}`},
		{`{"pos":1.50}`, ``},
		{`{"pos":1e2}`, ``},
		{`{"pos":0.1}`, ``},
		{`{"pos":9007199254740993}`, ``},
	}
	for _, tc := range cases {
		t.Run(tc.stored, func(t *testing.T) {
			s := ingestRaw(t, []raw{{1, `["c",{"f":"a"}]`, tc.stored, 0}})
			_, _, _, rows := taskReads(t, s, "c", `{"f":"a"}`)
			r := rows[0]
			if r.Offset != tc.stored {
				t.Errorf("stored text shown as %s, want it exactly: %s", r.Offset, tc.stored)
			}
			if r.JavaReads != tc.javaReads {
				t.Errorf("JavaReads = %q, want %q", r.JavaReads, tc.javaReads)
			}
			if flagged := r.Flags&model.FlagJavaNumber != 0; flagged != (tc.javaReads != "") {
				t.Errorf("java-number flag = %v, want %v", flagged, tc.javaReads != "")
			}
		})
	}
}
