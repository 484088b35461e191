package ui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"koff/edit/plan"
	"koff/model"
	"koff/ui/dialogs"
	"koff/ui/screens"
)

// rowsNamed are the connectors table's lines whose first field is name.
func rowsNamed(m *Model, name string) []string {
	var out []string
	for _, l := range strings.Split(screenText(m), "\n") {
		if f := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(l, "▶"), " ⚠")); len(f) > 0 && f[0] == name {
			out = append(out, l)
		}
	}
	return out
}

func requireRow(t *testing.T, m *Model, name string, want ...string) {
	t.Helper()
	rows := rowsNamed(m, name)
	if len(rows) != 1 {
		t.Fatalf("%d rows named %s:\n%s", len(rows), name, screenText(m))
	}
	for _, w := range want {
		if !strings.Contains(rows[0], w) {
			t.Errorf("row %s lacks %q: %q", name, w, rows[0])
		}
	}
}

func TestFlushStatusColumn(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {160, 48}} {
		_, _, m := lagModel(t, sz[0], sz[1])
		requireRow(t, m, "inventory-connector", "✓ ok", "5s ago")
		requireRow(t, m, "jdbc-orders", "✗ stalled", "3m ago")
		if sz[0] >= 80 { // the unflushed records; at 60 the detail line says them
			requireRow(t, m, "inventory-connector", "37")
			requireRow(t, m, "jdbc-orders", "1,250")
		}
		requireRow(t, m, "file-source", "◷ late", "25s ago")
		requireRow(t, m, "mm2-source", "■ STOPPED", "◌ idle", "10m ago")
		requireRow(t, m, "jdbc-old-orders", "⊘ orphaned", "◌ idle", "2h ago")
		// jdbc-crm: its own topic flushes; the old copy in the workers'
		// topic is marked secondary, and idle rather than stalled.
		crm := rowsNamed(m, "jdbc-crm")
		if len(crm) != 2 || !strings.Contains(strings.Join(crm, "\n"), "◇ secondary") {
			t.Fatalf("jdbc-crm rows: %q", crm)
		}
		for _, r := range crm {
			if strings.Contains(r, "stalled") {
				t.Errorf("a jdbc-crm row is stalled: %q", r)
			}
		}
		if sz[0] >= 160 {
			requireRow(t, m, "inventory-connector", "5s est", "source")
			requireRow(t, m, "jdbc-orders", "60s est")
			requireContains(t, m, "crm-offsets", "connect-offsets ◇", "INTERVAL", "UNFLUSHED", "ACTIVITY")
		} else if sz[0] >= 80 {
			requireRow(t, m, "inventory-connector", "src")
		}
	}
}

func TestFlushIntervalOptionIsUsed(t *testing.T) {
	f := lagStore()
	m := New(Options{Source: f.store, Bootstrap: "b:9092", Topics: []string{topic},
		Now: func() time.Time { return t0 }, FlushInterval: 2 * time.Minute})
	send(t, m, size(160, 48))
	// Judged against 2m, jdbc-orders's 220s is late, not stalled.
	requireRow(t, m, "jdbc-orders", "◷ late", "2m cfg")
	requireRow(t, m, "inventory-connector", "✓ ok", "2m cfg")
}

func TestSinkRowsShowLagTrendAndCatchUp(t *testing.T) {
	_, _, m := lagModel(t, 160, 48)
	requireRow(t, m, "es-search", "sink", "● RUNNING", "↑ growing", "2,800", "never", "Stable (2)")
	requireRow(t, m, "s3-archive", "sink", "↓ shrinking", "2,400", "~26s", "Stable (1)")
	// A steady lag has no catch-up time to jump about: it says so.
	requireRow(t, m, "old-sink", "sink", "⊘ orphaned", "→ steady", "42", "steady", "Empty (0)")
	requireContains(t, m, "Connectors 10 · 7 sources · 3 sinks")
	// At 80 columns the lag and its trend stay.
	send(t, m, size(80, 24))
	requireRow(t, m, "es-search", "sink", "↑ growing", "2,800", "never")
	requireRow(t, m, "s3-archive", "↓ shrinking", "2,400", "~26s")
}

func TestSortByStatusAndLag(t *testing.T) {
	_, _, m := lagModel(t, 80, 24)
	names := func() []string {
		var out []string
		lines := strings.Split(screenText(m), "\n")
		for i, l := range lines {
			if strings.Contains(l, "CONNECTOR") {
				for _, r := range lines[i+1:] {
					if f := strings.Fields(strings.TrimPrefix(r, "▶")); len(f) > 0 {
						out = append(out, f[0])
					}
					if len(out) == 5 {
						return out
					}
				}
			}
		}
		return out
	}
	requireContains(t, m, "sort: status, worst first") // the default
	// Stalled, a growing sink, late; healthy ones last.
	if got, want := names()[:3], []string{"jdbc-orders", "es-search", "file-source"}; !reflect.DeepEqual(got, want) {
		t.Errorf("status sort starts %q, want %q", got, want)
	}
	send(t, m, press("s", "s")...) // name, then lag
	requireContains(t, m, "sort: lag (biggest first)")
	// Sinks' lag and sources' unflushed records, biggest first.
	if got, want := names(), []string{"es-search", "s3-archive", "jdbc-orders", "old-sink", "inventory-connector"}; !reflect.DeepEqual(got, want) {
		t.Errorf("lag sort %q, want %q", got, want)
	}
}

// openSinkNamed opens a sink's screen from the connectors.
func openSinkNamed(t *testing.T, m *Model, name string) *screens.SinkScreen {
	t.Helper()
	selectConnector(t, m, name)
	send(t, m, press("enter")...)
	s, ok := m.top().(*screens.SinkScreen)
	if !ok {
		t.Fatalf("enter on %s did not open its sink screen:\n%s", name, screenText(m))
	}
	return s
}

func TestSinkScreenShowsLagPerPartition(t *testing.T) {
	f, _, m := lagModel(t, 80, 24)
	s := openSinkNamed(t, m, "es-search")
	requireContains(t, m, "Connectors › es-search · sink · ● RUNNING",
		"Group connect-es-search · Stable · 2 members",
		"Lag 2,800", "↑ growing", "catch-up never", "last commit just now",
		"COMMITTED", "END", "LAG", "LAST COMMIT")
	if len(s.List.Rows()) != 3 {
		t.Fatalf("%d rows, want 3", len(s.List.Rows()))
	}
	for _, r := range s.List.Rows() {
		if r.Lag != r.End-r.Committed {
			t.Errorf("%s: lag %d, end − committed = %d", r.TopicPartition, r.Lag, r.End-r.Committed)
		}
	}
	// orders/0: 1,600 of 2,700; orders/2 never seen to move.
	lines := strings.Split(screenText(m), "\n")
	var p0, p2 string
	for _, l := range lines {
		switch f := strings.Fields(strings.TrimPrefix(l, "▶")); {
		case len(f) > 1 && f[0] == "orders" && f[1] == "0":
			p0 = l
		case len(f) > 1 && f[0] == "orders" && f[1] == "2":
			p2 = l
		}
	}
	if !strings.Contains(p0, "1,600 2,700 1,100    just now") {
		t.Errorf("orders/0: %q", p0)
	}
	if !strings.HasSuffix(strings.TrimSpace(p2), "600           –") {
		t.Errorf("orders/2: %q", p2)
	}
	// Sorted by lag: orders/2 (600) goes last; back to topic-partition.
	send(t, m, press("s")...)
	requireContains(t, m, "sort: lag (biggest first)")
	if last := s.List.Rows()[2]; last.Partition != 2 {
		t.Errorf("lag sort ends with %s", last.TopicPartition)
	}
	// Live: a new poll shows at the next tick.
	polls := sinkPolls(3)
	f.setGroups(t0, polls...)
	send(t, m, tickMsg{})
	requireContains(t, m, "Lag 3,700")
}

func TestSinkFormValidatesAndPlansEachStrategy(t *testing.T) {
	orders0 := []model.TopicPartition{{Topic: "orders", Partition: 0}}
	tz := time.FixedZone("CET", 3600)
	for _, c := range []struct {
		name    string
		keys    []string // after e
		value   string   // typed into the input ("" leaves it)
		invalid []string // typed first: each must be refused
		want    plan.SinkRequest
		shows   []string // in the confirmation
	}{
		{name: "offset", value: "100", invalid: []string{"-5", "12a"},
			want:  plan.SinkRequest{Partitions: orders0, Strategy: plan.SinkStrategy{Kind: plan.SinkToOffset, Offset: 100}},
			shows: []string{"to offset 100 · orders/0", "1,600 → 400", "lag after 2,300", "below the log start 400: clamped to 400"}},
		{name: "earliest, all partitions", keys: []string{"down", "tab"},
			want:  plan.SinkRequest{Strategy: plan.SinkStrategy{Kind: plan.SinkToEarliest}},
			shows: []string{"to earliest · all 3 partitions", "1,600 → 400", "1,500 → 0", "1,200 → 0"}},
		{name: "latest", keys: []string{"down", "down"},
			want:  plan.SinkRequest{Partitions: orders0, Strategy: plan.SinkStrategy{Kind: plan.SinkToLatest}},
			shows: []string{"1,600 → 2,700", "lag after 0"}},
		{name: "timestamp, no zone is UTC", keys: []string{"up", "up"}, value: "2025-11-29 18:00:00",
			invalid: []string{"yesterday", "2025-13-01 00:00:00", "now+2h", "2025-11-29 19:00:00", "1969-12-31 00:00"},
			want:    plan.SinkRequest{Partitions: orders0, Strategy: plan.SinkStrategy{Kind: plan.SinkToTimestamp, Time: t0.Add(-10 * time.Minute)}},
			shows:   []string{"to timestamp 2025-11-29 18:00:00.000 UTC (10m ago)", "1,600 → 500"}},
		{name: "timestamp, RFC3339", keys: []string{"up", "up"}, value: "2025-11-29T19:00:00+01:00",
			want:  plan.SinkRequest{Partitions: orders0, Strategy: plan.SinkStrategy{Kind: plan.SinkToTimestamp, Time: time.Date(2025, 11, 29, 19, 0, 0, 0, tz)}},
			shows: []string{"to timestamp 2025-11-29 18:00:00.000 UTC"}},
		{name: "timestamp, back from now", keys: []string{"up", "up"}, value: "PT10M", invalid: []string{"+PT10M", "P1M"},
			want:  plan.SinkRequest{Partitions: orders0, Strategy: plan.SinkStrategy{Kind: plan.SinkToTimestamp, Time: t0.Add(-10 * time.Minute)}},
			shows: []string{"to timestamp 2025-11-29 18:00:00.000 UTC (10m ago)"}},
		{name: "shift", keys: []string{"up"}, value: "-500", invalid: []string{"abc", "+0", "5.5"},
			want:  plan.SinkRequest{Partitions: orders0, Strategy: plan.SinkStrategy{Kind: plan.SinkShiftBy, Shift: -500}},
			shows: []string{"shift by -500", "1,600 → 1,100", "lag after 1,600"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ed, m := lagModel(t, 100, 40)
			openSinkNamed(t, m, "es-search")
			send(t, m, press("e")...)
			f, ok := m.form.(*dialogs.SinkForm)
			if !ok {
				t.Fatalf("e opened no sink form:\n%s", screenText(m))
			}
			send(t, m, press(c.keys...)...)
			for _, bad := range append(c.invalid, c.value) {
				if bad == "" {
					continue
				}
				f.Input.SetValue("")
				send(t, m, press(bad)...)
				if bad == c.value {
					break
				}
				if f.Err == nil {
					t.Errorf("%q was accepted", bad)
				}
				requireContains(t, m, "✗ ", "fix the value to review")
				send(t, m, press("enter")...)
				if m.confirm != nil || len(ed.Calls()) > 0 {
					t.Fatalf("enter planned the invalid %q", bad)
				}
			}
			if f.Err != nil {
				t.Fatalf("%q refused: %v", c.value, f.Err)
			}
			pressSettle(t, m, "enter")
			if m.confirm == nil {
				t.Fatalf("no confirmation:\n%s\n%s", screenText(m), m.statusView())
			}
			reqs := ed.SinkRequests()
			if len(reqs) != 1 {
				t.Fatalf("%d sink plans", len(reqs))
			}
			want := c.want
			want.Connector, want.Kind = "es-search", plan.KindSet
			got := reqs[0]
			if !got.Strategy.Time.Equal(want.Strategy.Time) {
				t.Errorf("time %v, want %v", got.Strategy.Time, want.Strategy.Time)
			}
			got.Strategy.Time, want.Strategy.Time = time.Time{}, time.Time{}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("PlanSink(%+v), want %+v", got, want)
			}
			requireContains(t, m, append([]string{"Set ", "· es-search", "group connect-es-search"}, c.shows...)...)
		})
	}
}

func TestSinkFormScopeNeedsASelection(t *testing.T) {
	_, _, m := lagModel(t, 100, 40)
	openSinkNamed(t, m, "es-search")
	send(t, m, press("e")...)
	requireContains(t, m, "● orders/0 (selected)", "○ all 3 partitions")
	send(t, m, press("tab")...)
	requireContains(t, m, "○ orders/0 (selected)", "● all 3 partitions", "(each partition alike)")
	send(t, m, press("esc")...)
	if m.form != nil {
		t.Fatal("esc left the form open")
	}
	requireStatus(t, m, "cancelled: nothing was changed")
}

func TestSinkResetPartitionStopsAppliesResumes(t *testing.T) {
	_, ed, m := lagModel(t, 100, 40)
	ed.state, ed.tasks = "RUNNING", 2
	openSinkNamed(t, m, "es-search")
	send(t, m, press("down")...) // orders/1
	pressSettle(t, m, "x")
	if m.confirm == nil {
		t.Fatalf("x opened no confirmation:\n%s", screenText(m))
	}
	want := plan.SinkRequest{Connector: "es-search", Kind: plan.KindReset,
		Partitions: []model.TopicPartition{{Topic: "orders", Partition: 1}}, Strategy: plan.SinkStrategy{Kind: plan.SinkReset}}
	if got := ed.SinkRequests(); len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("PlanSink(%+v), want %+v", got, want)
	}
	requireContains(t, m, "Reset offset · es-search", "orders/1  1,500 → (deleted)", "lag after 2,600",
		"2 active members", "Kafka refuses offset changes", "ctrl+r stop → apply → resume")
	pressSettle(t, m, "ctrl+r")
	requireCalls(t, ed, "plan-sink reset es-search reset", "stop es-search", "apply reset es-search", "resume es-search")
	requireStatus(t, m, "verified: reset 1 partition of es-search via group connect-es-search · resumed es-search")
	send(t, m, tickMsg{})
	requireContains(t, m, "– none")

	// u puts the committed offset back, through the same dialog.
	pressSettle(t, m, "u")
	requireContains(t, m, "Undo the last edit · es-search", "orders/1  (none) → 1,500", "ctrl+r stop → apply → resume")
	pressSettle(t, m, "ctrl+r")
	requireStatus(t, m, "1 partition of es-search via group connect-es-search · resumed es-search")
	send(t, m, tickMsg{})
	requireLacks(t, m, "– none")
}

func TestSinkResetAllNeedsTheName(t *testing.T) {
	_, ed, m := lagModel(t, 100, 40)
	// From the connectors table and from the sink screen alike.
	selectConnector(t, m, "s3-archive")
	pressSettle(t, m, "X")
	requireContains(t, m, "Reset ALL offsets (2) · s3-archive", "Type s3-archive to reset every offset",
		"inventory.events/0", "→ (deleted)")
	send(t, m, press("esc")...)
	openSinkNamed(t, m, "s3-archive")
	pressSettle(t, m, "X")
	requireContains(t, m, "Reset ALL offsets (2) · s3-archive")
	want := plan.SinkRequest{Connector: "s3-archive", Kind: plan.KindResetAll, Strategy: plan.SinkStrategy{Kind: plan.SinkReset}}
	for _, got := range ed.SinkRequests() {
		if !reflect.DeepEqual(got, want) {
			t.Errorf("PlanSink(%+v), want %+v", got, want)
		}
	}
	requireCalls(t, ed, "plan-sink reset-all s3-archive reset", "plan-sink reset-all s3-archive reset")
}

func TestSinkKeysThatDoNotApplySayWhy(t *testing.T) {
	_, ed, m := lagModel(t, 100, 40)
	selectConnector(t, m, "es-search")
	send(t, m, press("e")...)
	requireStatus(t, m, "open it first")
	send(t, m, press("c")...)
	requireStatus(t, m, "es-search is a sink")
	openSinkNamed(t, m, "es-search")
	send(t, m, press("n")...)
	requireStatus(t, m, "es-search is a sink")
	requireCalls(t, ed)
}

func TestCopyFromAnOrphan(t *testing.T) {
	f, ed, m := lagModel(t, 100, 40)
	selectConnector(t, m, "jdbc-old-orders")
	requireContains(t, m, "c copy to…")
	send(t, m, press("c")...)
	if _, ok := m.form.(*dialogs.CopyForm); !ok {
		t.Fatalf("c opened no copy prompt:\n%s", screenText(m))
	}
	requireContains(t, m, "Copy offsets · jdbc-old-orders", "In Connect: ", "jdbc-orders")
	send(t, m, press("jdbc-old-orders")...)
	requireContains(t, m, "that is the connector the offsets come from")
	send(t, m, press("enter")...)
	requireCalls(t, ed)
	for range len("-old-orders") {
		send(t, m, press("backspace")...)
	}
	send(t, m, press("-orders-v2")...)
	requireContains(t, m, "no connector jdbc-orders-v2 yet")
	pressSettle(t, m, "enter")
	requireCalls(t, ed, "copy-request jdbc-old-orders jdbc-orders-v2", "plan copy jdbc-orders-v2")
	requireContains(t, m, "Copy offset from jdbc-old-orders · jdbc-orders-v2", `{"incrementing":780}`)
	pressSettle(t, m, "enter")
	requireStatus(t, m, "jdbc-orders-v2")
	send(t, m, tickMsg{})
	requireRow(t, m, "jdbc-orders-v2")
	_ = f
}

func TestSourcePanelShowsFlushLagAndStalePartitions(t *testing.T) {
	_, _, m := lagModel(t, 160, 48)
	openConnectorNamed(t, m, "inventory-connector")
	requireContains(t, m, "✓ ok: flushing", "last flush 5s ago", "every 5s (estimated from its flushes)",
		"≥37 unflushed (a crash replays at least these)", "11 flushes/min", "progress pos 200/s, ts_sec 1/s",
		"−10m", "records per flush", "now",
		"◌ 1 not advancing", "◌ not advancing 6m")
	send(t, m, size(80, 24))
	requireContains(t, m, "◌ 6m ago", "every 5s (estimated")
	requireFits(t, screenText(m), 80, 24)

	send(t, m, press("esc")...)
	openConnectorNamed(t, m, "jdbc-orders")
	requireContains(t, m, "✗ stalled: 1250 records written", "last flush 3m ago", "≥1,250 unflushed")
}

func TestLagScreensFitEverySize(t *testing.T) {
	for _, sz := range [][2]int{{40, 12}, {60, 20}, {80, 24}, {100, 30}, {200, 60}} {
		_, ed, m := lagModel(t, sz[0], sz[1])
		ed.state, ed.tasks = "RUNNING", 2
		check := func(step string) {
			t.Helper()
			t.Run(fmt.Sprintf("%dx%d_%s", sz[0], sz[1], step), func(t *testing.T) {
				requireFits(t, screenText(m), sz[0], sz[1])
			})
		}
		check("connectors")
		for range 3 {
			send(t, m, press("s")...)
			check("sorted")
		}
		openConnectorNamed(t, m, "jdbc-orders")
		check("source")
		send(t, m, press("esc")...)
		selectConnector(t, m, "jdbc-old-orders")
		send(t, m, press("c", "x")...)
		check("copy")
		send(t, m, press("esc")...)
		openSinkNamed(t, m, "es-search")
		check("sink")
		send(t, m, press("e", "up", "up", "x")...)
		check("sink form")
		send(t, m, press("backspace", "down")...)
		send(t, m, press("1")...)
		pressSettle(t, m, "enter")
		check("sink confirm")
		send(t, m, press("pgdown")...)
		check("sink confirm scrolled")
	}
}

// A new flush makes the unflushed count stale until the poller measures
// again: the last count stays on screen meanwhile, rather than blinking
// to "–" at every flush.
func TestUnflushedDoesNotBlinkAtAFlush(t *testing.T) {
	f, _, m := lagModel(t, 160, 48)
	requireRow(t, m, "inventory-connector", "≥37")
	f.put(t0, keyInventory, `{"ts_sec":1764439999,"file":"mysql-bin.000003","pos":99999,"row":1,"server_id":223344,"event":2}`)
	send(t, m, tickMsg{})
	requireRow(t, m, "inventory-connector", "just now", "≥37")
	f.store.SetUnflushed("inventory-connector", model.Unflushed{Records: 2, Since: t0, At: t0.Add(time.Second)})
	send(t, m, tickMsg{})
	requireRow(t, m, "inventory-connector", " ≥2 ")
	openConnectorNamed(t, m, "inventory-connector")
	requireContains(t, m, "≥2 unflushed")
}
