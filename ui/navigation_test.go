package ui

import (
	"fmt"
	"image/color"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"koff/model"
	"koff/model/java"
	"koff/model/store"
	"koff/ui/screens"
)

func started(t *testing.T, w, h int) (*fixture, *Model) {
	t.Helper()
	f := demoStore()
	m := newTestModel(f.store)
	send(t, m, size(w, h))
	return f, m
}

func requireContains(t *testing.T, m *Model, want ...string) {
	t.Helper()
	out := screenText(m)
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Fatalf("screen lacks %q:\n%s", w, out)
		}
	}
}

func requireLacks(t *testing.T, m *Model, unwanted ...string) {
	t.Helper()
	out := screenText(m)
	for _, w := range unwanted {
		if strings.Contains(out, w) {
			t.Fatalf("screen shows %q:\n%s", w, out)
		}
	}
}

// isQuit reports whether cmd is tea.Quit, without running it: other
// commands (the filter's cursor blink) would block on their timers.
func isQuit(cmd tea.Cmd) bool {
	return cmd != nil && reflect.ValueOf(cmd).Pointer() == reflect.ValueOf(tea.Quit).Pointer()
}

func TestEnterDrillsInAndEscGoesBack(t *testing.T) {
	_, m := started(t, 80, 24)
	requireContains(t, m, "Connectors 4")

	openConnectorNamed(t, m, "jdbc-orders")
	requireContains(t, m, "Connectors › jdbc-orders", "3 source partitions")

	send(t, m, press("enter")...)
	if _, ok := m.top().(*screens.DetailScreen); !ok {
		t.Fatalf("enter on a partition did not open its detail:\n%s", screenText(m))
	}
	requireContains(t, m, "bytes as written", `["jdbc-orders",{"protocol":"1","table":"customers"}]`, `"table": "customers"`)

	send(t, m, press("esc")...)
	requireContains(t, m, "Connectors › jdbc-orders")
	if !selectedLine(m, "customers") {
		t.Errorf("back on the partitions, the selection moved off the partition just viewed:\n%s", screenText(m))
	}
	send(t, m, press("esc")...)
	requireContains(t, m, "Connectors 4")
	if !selectedLine(m, "jdbc-orders") {
		t.Errorf("back on the connectors, the selection moved off jdbc-orders:\n%s", screenText(m))
	}
	send(t, m, press("esc")...) // nothing further back
	requireContains(t, m, "Connectors 4")
}

func TestQuitKeys(t *testing.T) {
	_, m := started(t, 80, 24)
	if !isQuit(send(t, m, press("q")...)) {
		t.Error("q did not quit")
	}
	if !isQuit(send(t, m, press("ctrl+c")...)) {
		t.Error("ctrl+c did not quit")
	}
	// In the filter, q is a letter; ctrl+c still quits.
	send(t, m, press("/")...)
	if isQuit(send(t, m, press("q")...)) {
		t.Error("q typed into the filter quit")
	}
	requireContains(t, m, `filter: "q"`)
	if !isQuit(send(t, m, press("ctrl+c")...)) {
		t.Error("ctrl+c in the filter did not quit")
	}
}

func TestSelectionFollowsConnectorAcrossLiveUpdates(t *testing.T) {
	f, m := started(t, 80, 24)
	selectConnector(t, m, "jdbc-orders")

	// New connectors sort ahead of it.
	f.put(t0.Add(-time.Second), `["aaa-first",{"db":"a"}]`, `{"pos":1}`)
	f.put(t0.Add(-time.Second), `["abc-second",{"db":"b"}]`, `{"pos":1}`)
	send(t, m, tickMsg{})

	requireContains(t, m, "Connectors 6", "aaa-first")
	if !selectedLine(m, "jdbc-orders") {
		t.Fatalf("selection left jdbc-orders when rows were added above it:\n%s", screenText(m))
	}
	send(t, m, press("enter")...)
	requireContains(t, m, "Connectors › jdbc-orders")
}

func TestSelectionFollowsPartitionAcrossUpdatesAndSort(t *testing.T) {
	f, m := started(t, 80, 24)
	openConnectorNamed(t, m, "jdbc-orders")
	send(t, m, press("s", "s")...) // updated, newest first
	requireContains(t, m, "sort: updated (newest first)")
	send(t, m, press("end")...)
	if !selectedLine(m, "payments") {
		t.Fatalf("expected payments (oldest update) last:\n%s", screenText(m))
	}

	// payments gets a fresh offset and moves to the top.
	f.putAt(t0.Add(-time.Second), keyPayments, `{"incrementing":43}`, 3)
	send(t, m, tickMsg{})
	if !selectedLine(m, "payments") {
		t.Fatalf("selection left payments when it moved:\n%s", screenText(m))
	}
	requireContains(t, m, `{"incrementing":43}`)
	send(t, m, press("enter")...)
	requireContains(t, m, `"table": "payments"`)
	send(t, m, press("end")...)
	requireContains(t, m, `Δ incrementing +1`)
}

// markedRow is the screen line of the ▶ mark.
func markedRow(m *Model) int {
	for i, l := range strings.Split(screenText(m), "\n") {
		if strings.HasPrefix(l, "▶") {
			return i
		}
	}
	return -1
}

func TestScrollPositionKeptAcrossLiveUpdates(t *testing.T) {
	f := newFixture()
	for i := range 60 { // the later the name, the older the flush
		f.put(t0.Add(-time.Duration(i)*time.Minute), fmt.Sprintf(`["conn-%02d",{"db":"x"}]`, i*2), `{"pos":1}`)
	}
	m := newTestModel(f.store)
	send(t, m, size(80, 24))
	send(t, m, press("pgdown", "pgdown", "up", "up")...)
	if !selectedLine(m, "conn-") {
		t.Fatal("no selection")
	}
	line := markedRow(m)
	name := selectedName(m)

	// Rows arrive above and below the selection.
	f.put(t0, `["conn-01",{"db":"x"}]`, `{"pos":1}`)
	f.put(t0, `["conn-03",{"db":"x"}]`, `{"pos":1}`)
	f.put(t0, `["conn-99",{"db":"x"}]`, `{"pos":1}`)
	send(t, m, tickMsg{})
	if got := selectedName(m); got != name {
		t.Fatalf("selection moved from %s to %s", name, got)
	}
	if got := markedRow(m); got != line {
		t.Errorf("selected row moved on screen from line %d to %d", line, got)
	}
	// Re-sorting (by name, from status worst first) keeps it too.
	send(t, m, press("s")...)
	requireContains(t, m, "sort: name")
	if got := selectedName(m); got != name {
		t.Fatalf("sort moved the selection from %s to %s", name, got)
	}
	if got := markedRow(m); got != line {
		t.Errorf("sort moved the selected row on screen from line %d to %d", line, got)
	}
	if first := firstRowName(m); first == "conn-00" {
		t.Errorf("the sort did not reorder the rows")
	}
}

func selectedName(m *Model) string {
	for _, l := range strings.Split(screenText(m), "\n") {
		if strings.HasPrefix(l, "▶") {
			return strings.Fields(l)[1]
		}
	}
	return ""
}

func TestFilterNarrowsLiveAndEscClears(t *testing.T) {
	_, m := started(t, 80, 24)
	send(t, m, press("/", "j", "d")...)
	requireContains(t, m, `filter: "jd" (1 of 4)`, "jdbc-orders", "enter apply")
	requireLacks(t, m, "file-source", "mm2-source")

	send(t, m, press("backspace", "backspace", "m", "m")...)
	requireContains(t, m, "mm2-source")
	requireLacks(t, m, "jdbc-orders")

	// enter keeps the filter and gives the keys back to the table.
	send(t, m, press("enter")...)
	requireContains(t, m, `filter: "mm" (1 of 4)`, "esc clear filter")
	send(t, m, press("enter")...)
	requireContains(t, m, "Connectors › mm2-source")
	send(t, m, press("esc")...)
	requireContains(t, m, `filter: "mm"`) // kept when coming back

	// esc clears an applied filter first, and does not leave the screen.
	send(t, m, press("esc")...)
	requireContains(t, m, "Connectors 4", "sort: status, worst first", "file-source", "jdbc-orders")
	requireLacks(t, m, "filter:")

	// esc in the input clears it too.
	send(t, m, press("/", "z", "z", "z")...)
	requireContains(t, m, "No connector name contains \"zzz\".")
	send(t, m, press("esc")...)
	requireContains(t, m, "file-source", "enter open")
}

func TestFilterPartitionsByPartitionText(t *testing.T) {
	_, m := started(t, 80, 24)
	openConnectorNamed(t, m, "jdbc-orders")
	send(t, m, press("/", "p", "a", "y", "enter")...)
	requireContains(t, m, `filter: "pay" (1 of 3)`, "payments")
	requireLacks(t, m, "customers")
}

func TestSortCyclesConnectorOrders(t *testing.T) {
	_, m := started(t, 80, 24)
	// Worst first is the default.
	requireContains(t, m, "sort: status, worst first")
	if got := firstRowName(m); got != "jdbc-orders" { // late and suspect: the only one not ok
		t.Errorf("default sort: first row %s, want jdbc-orders", got)
	}
	for _, want := range []struct{ sort, first string }{
		{"name", "file-source"},
		{"lag (biggest first)", "file-source"}, // no sinks, no unflushed counts: by name
		{"last flush (oldest first)", "jdbc-orders"},
		{"partitions (most first)", "jdbc-orders"},
		{"suspect (most first)", "jdbc-orders"}, // a stray key and a number beyond 64 bits
		{"resume, worst first", "file-source"},  // none checked: by name
		{"status, worst first", "jdbc-orders"},
	} {
		send(t, m, press("s")...)
		requireContains(t, m, "sort: "+want.sort)
		if got := firstRowName(m); got != want.first {
			t.Errorf("sort %s: first row %s, want %s", want.sort, got, want.first)
		}
	}
}

func firstRowName(m *Model) string {
	lines := strings.Split(screenText(m), "\n")
	for i, l := range lines {
		if strings.Contains(l, "CONNECTOR") && i+1 < len(lines) {
			return strings.Fields(strings.TrimPrefix(strings.TrimPrefix(lines[i+1], "▶"), " ⚠"))[0]
		}
	}
	return ""
}

func TestPartitionSortsByOffsetNumerically(t *testing.T) {
	f := newFixture()
	for _, pos := range []int{9, 100, 10} {
		f.put(t0, fmt.Sprintf(`["c",{"file":"f%d"}]`, pos), fmt.Sprintf(`{"pos":%d}`, pos))
	}
	m := newTestModel(f.store)
	send(t, m, size(80, 24))
	send(t, m, press("enter", "s")...)
	requireContains(t, m, "sort: offset")
	out := screenText(m)
	i9, i10, i100 := strings.Index(out, `{"pos":9}`), strings.Index(out, `{"pos":10}`), strings.Index(out, `{"pos":100}`)
	if !(i9 < i10 && i10 < i100) {
		t.Errorf("offsets not in numeric order:\n%s", out)
	}
}

// countingSource counts reads, to show the tick leaves an unchanged
// Source alone.
type countingSource struct {
	*store.Store
	reads atomic.Int64
}

func (c *countingSource) Connectors() []model.ConnectorRow {
	c.reads.Add(1)
	return c.Store.Connectors()
}

func TestTickRereadsOnlyOnChangeButAgesMoveEverySecond(t *testing.T) {
	f := demoStore()
	src := &countingSource{Store: f.store}
	now := t0
	m := New(Options{Source: src, Bootstrap: "localhost:9092", Topics: []string{topic},
		Now: func() time.Time { return now }})
	send(t, m, size(80, 24))
	requireContains(t, m, "5s ago")
	reads := src.reads.Load()

	now = now.Add(300 * time.Millisecond)
	send(t, m, tickMsg{})
	if src.reads.Load() != reads {
		t.Error("the tick re-read an unchanged Source")
	}

	now = t0.Add(2 * time.Second)
	send(t, m, tickMsg{})
	requireContains(t, m, "7s ago") // inventory-connector's age moved on
	if src.reads.Load() != reads {
		t.Error("redrawing ages re-read an unchanged Source")
	}

	f.put(now, keyMirror, `{"offset":9007199254740999}`)
	send(t, m, tickMsg{})
	if src.reads.Load() == reads {
		t.Error("a new record did not cause a re-read")
	}
	requireContains(t, m, "mm2-source")
}

func TestTickKeepsTicking(t *testing.T) {
	_, m := started(t, 80, 24)
	if send(t, m, tickMsg{}) == nil {
		t.Fatal("the tick did not schedule the next one: the screen would stop updating")
	}
	if m.Init() == nil {
		t.Fatal("Init starts nothing: the screen would never update")
	}
}

func TestUnparseableFromAnywhereAndBack(t *testing.T) {
	_, m := started(t, 80, 24)
	openConnectorNamed(t, m, "jdbc-orders")
	send(t, m, press("enter", "U")...)
	requireContains(t, m, "Unparseable records 3", "key is not JSON", "not json")
	send(t, m, press("U")...) // already there: stays
	send(t, m, press("esc")...)
	if _, ok := m.top().(*screens.DetailScreen); !ok {
		t.Fatalf("esc from unparseable did not return to the detail:\n%s", screenText(m))
	}
}

func TestDetailShowsPlacementDuplicatesAndExactNumbers(t *testing.T) {
	_, m := started(t, 160, 60)
	openConnectorNamed(t, m, "jdbc-orders")
	send(t, m, press("end", "enter")...)
	requireContains(t, m,
		`["jdbc-orders", {"protocol":"1","table":"payments"}]`,
		"lives in   connect-offsets/3",
		"✗ partition 17 of 25",
		"⚠ misplaced:", "• non-canonical:")

	send(t, m, press("esc", "esc")...)
	openConnectorNamed(t, m, "file-source")
	requireContains(t, m, "⚠ dup")
	send(t, m, press("enter")...)
	requireContains(t, m, "also in    ⚠ connect-offsets/", "⚠ duplicate:")

	send(t, m, press("esc", "esc")...)
	openConnectorNamed(t, m, "mm2-source")
	send(t, m, press("enter")...)
	requireContains(t, m, `"offset": 9007199254740993`) // 2^53+1, not ...992
}

func TestDeletedPartitionShown(t *testing.T) {
	_, m := started(t, 120, 24)
	openConnectorNamed(t, m, "file-source")
	requireContains(t, m, "✕ deleted", "1 deleted")
	send(t, m, press("end", "enter")...)
	requireContains(t, m, "✕ deleted: the latest record is a tombstone")
	send(t, m, press("end")...)
	requireContains(t, m, "✕ tombstone (offset deleted)")
}

func TestDetailScrolls(t *testing.T) {
	_, m := started(t, 80, 24)
	openConnectorNamed(t, m, "inventory-connector")
	send(t, m, press("enter")...)
	requireContains(t, m, "lines 1–")
	requireLacks(t, m, "Recent updates")
	send(t, m, press("end")...)
	requireContains(t, m, "oldest kept")
	send(t, m, press("home")...)
	requireContains(t, m, "Key  46 bytes")
}

func TestHelpToggles(t *testing.T) {
	_, m := started(t, 80, 24)
	requireLacks(t, m, "page down")
	send(t, m, press("?")...)
	requireContains(t, m, "page down", "close help", "unparseable")
	send(t, m, press("?")...)
	requireLacks(t, m, "page down")
}

func TestHeaderStates(t *testing.T) {
	f, m := started(t, 80, 24)
	requireContains(t, m, "● live", "⚠ 3 unparseable (U)", "connect-offsets · 25 partitions")

	f.store.SetStatus(model.TailStatus{State: model.TailWaitingForTopic, Reason: "topic connect-offsets does not exist"})
	send(t, m, tickMsg{})
	requireContains(t, m, "○ waiting for topic: topic connect-offsets does not exist", "⚠ 3 unparseable (U)")

	f.store.SetStatus(model.TailStatus{State: model.TailConnecting})
	send(t, m, tickMsg{})
	requireContains(t, m, "◌ connecting")

	f.store.SetStatus(model.TailStatus{State: model.TailCatchingUp, Read: 50, Total: 200})
	send(t, m, tickMsg{})
	requireContains(t, m, "◐ catching up", "25%", "50/200")
}

func TestReadOnlyShownInHeader(t *testing.T) {
	f := demoStore()
	m := New(Options{Source: f.store, Bootstrap: "localhost:9092", Topics: []string{topic},
		Now: func() time.Time { return t0 }, ReadOnly: true})
	send(t, m, size(80, 24))
	requireContains(t, m, "read-only")
}

func TestNothingOverflowsAtAnySize(t *testing.T) {
	for _, sz := range [][2]int{{40, 12}, {60, 20}, {80, 24}, {100, 30}, {200, 60}} {
		f, m := started(t, sz[0], sz[1])
		f.store.SetStatus(model.TailStatus{State: model.TailDisconnected,
			Reason: strings.Repeat("a very long reason ", 20)})
		steps := [][]tea.Msg{
			{tickMsg{}},
			press("?"),
			press("?", "down", "down", "enter"),
			press("enter"),
			press("end"),
			press("U"),
			press("/", "k", "e", "y"),
		}
		for i, s := range steps {
			send(t, m, s...)
			t.Run(fmt.Sprintf("%dx%d_step%d", sz[0], sz[1], i), func(t *testing.T) {
				requireFits(t, screenText(m), sz[0], sz[1])
			})
		}
	}
}

func TestResizeRelaysOut(t *testing.T) {
	_, m := started(t, 160, 48)
	requireContains(t, m, "RECORDS")
	send(t, m, size(80, 24))
	requireLacks(t, m, "RECORDS")
	requireFits(t, screenText(m), 80, 24)
}

func TestLightBackgroundRestyles(t *testing.T) {
	_, m := started(t, 80, 24)
	dark := m.View().Content
	send(t, m, tea.BackgroundColorMsg{Color: color.White})
	light := m.View().Content
	if dark == light {
		t.Error("a light terminal background did not change the colours")
	}
	if ansiStripEqual := screenText(m); !strings.Contains(ansiStripEqual, "● live") {
		t.Error("restyling lost the state")
	}
}

func TestViewIsAltScreen(t *testing.T) {
	_, m := started(t, 80, 24)
	if !m.View().AltScreen {
		t.Error("the dashboard does not use the alternate screen")
	}
}

func TestEmptyStore(t *testing.T) {
	s := store.NewStore(store.StoreOptions{})
	s.SetStatus(model.TailStatus{State: model.TailConnecting})
	m := newTestModel(s)
	send(t, m, size(80, 24))
	requireContains(t, m, "◌ connecting", "No source connector offsets read yet.")
	send(t, m, press("enter", "U")...)
	requireContains(t, m, "None: every record read so far")
}

func TestMultipleOffsetsTopicsShowTheTopic(t *testing.T) {
	f := demoStore()
	f.store.SetTopicPartitions("mm2-offsets", 5)
	key := `["jdbc-orders",{"protocol":"1","table":"orders"}]` // same name, another Connect cluster
	f.store.Ingest([]store.Record{{Topic: "mm2-offsets", Partition: java.PartitionFor([]byte(key), 5),
		Key: []byte(key), Value: []byte(`{"incrementing":1}`), Time: t0}})
	m := New(Options{Source: f.store, Bootstrap: "localhost:9092", Topics: []string{topic, "mm2-offsets"},
		Now: func() time.Time { return t0 }})
	send(t, m, size(100, 30))
	requireContains(t, m, "connect-offsets (25) · mm2-offsets (5)", "OFFSETS IN", "Connectors 5")
	send(t, m, press("/", "m", "m", "2", "-", "o", "enter")...) // the filter matches topics too
	requireContains(t, m, "jdbc-orders", "mm2-offsets")
	send(t, m, press("enter")...)
	requireContains(t, m, "Connectors › jdbc-orders (mm2-offsets)", "TOPIC-PARTITION", "mm2-offsets/")
}

func TestRESTStateColumnsHeaderAndTitle(t *testing.T) {
	f, m := started(t, 80, 24)
	requireLacks(t, m, "STATE", "Connect ")
	setREST(f)
	send(t, m, tickMsg{})
	requireContains(t, m, "Connect ● http://connect-1.prod.internal:8083 · version 3.7.1",
		"STATE", "■ STOPPED", "‖ PAUSED", "⊘ orphaned", "● RUNNING ✗1", "Connectors 6", "sink", "– no group")
	// Too narrow for a TASKS column: a failed task shows in the state.
	requireLacks(t, m, "TASKS")

	// Wide, the tasks are in Connect's words.
	send(t, m, size(200, 48))
	requireContains(t, m, "1 running, 1 failed", "4/4 running", "2 paused")

	// The filter matches states too.
	send(t, m, press("/", "p", "a", "u", "s", "enter")...)
	requireContains(t, m, "jdbc-shop", `filter: "paus" (1 of 6)`)
	send(t, m, press("esc")...)

	openConnectorNamed(t, m, "jdbc-orders")
	requireContains(t, m, "Connectors › jdbc-orders · ● RUNNING · tasks 1 running, 1 failed")

	// A failed poll says why in one line and keeps the last states.
	f.store.SetREST(model.RESTStatus{URL: "http://connect-1.prod.internal:8083",
		Err: "Get \"http://connect-1.prod.internal:8083/connectors\":\n dial tcp: connection refused"})
	send(t, m, tickMsg{})
	requireContains(t, m, `Connect ✗ Get "http://connect-1.prod.internal:8083/connectors": dial tcp: connection refused · showing the last states read`,
		"● RUNNING")

	for _, sz := range [][2]int{{40, 12}, {60, 20}, {80, 24}, {100, 30}} {
		send(t, m, size(sz[0], sz[1]))
		requireFits(t, screenText(m), sz[0], sz[1])
		send(t, m, press("esc")...)
		requireFits(t, screenText(m), sz[0], sz[1])
		send(t, m, press("enter")...)
	}
}

// Records from another day show their date; enter shows one whole, its
// key and value escaped: no control byte reaches the terminal.
func TestUnparseableDatesAndWholeRecord(t *testing.T) {
	f := demoStore()
	long := strings.Repeat("k", 300) + "\x1b[31m\x00end"
	f.putAt(t0.Add(-26*time.Hour), long, "\xff\xfe not utf-8", 3)
	m := newTestModel(f.store)
	send(t, m, size(80, 24))
	send(t, m, press("U")...)
	requireContains(t, m, "11-28 16:10:00") // a day before t0 (2025-11-29 18:10 UTC)
	send(t, m, press("end", "enter")...)    // the oldest
	requireContains(t, m, "Unparseable records › connect-offsets/3", "Key · 309 bytes", `\x1b[31m\x00`, `Value · 12 bytes`, `\xff\xfe not utf-8`)
	if out := m.View().Content; strings.Contains(out, "\x1b[31m") || strings.Contains(out, "\x00") {
		t.Error("the record's control bytes reached the frame")
	}
	send(t, m, press("esc")...)
	requireContains(t, m, "Unparseable records 4")
}
