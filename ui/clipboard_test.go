package ui

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"koff/model"
	"koff/ui/screens"
)

// requireClipboard runs the command y returned and checks it is Bubble
// Tea's OSC 52 clipboard write of exactly want. tea.SetClipboard's command
// returns an unexported string type (setClipboardMsg); two such messages
// compare equal when their text is.
func requireClipboard(t *testing.T, cmd tea.Cmd, want string) {
	t.Helper()
	if cmd == nil {
		t.Fatal("y returned no command")
	}
	msg := cmd()
	if got := fmt.Sprintf("%T", msg); got != "tea.setClipboardMsg" {
		t.Fatalf("y's command produced a %s, want tea.SetClipboard's message", got)
	}
	if msg != tea.SetClipboard(want)() {
		t.Fatalf("clipboard gets %q, want %q", fmt.Sprint(msg), want)
	}
}

func TestCopyConnectorName(t *testing.T) {
	_, m := started(t, 80, 24)
	selectConnector(t, m, "jdbc-orders")
	requireClipboard(t, send(t, m, press("y")...), "jdbc-orders")
	requireStatus(t, m, "copied connector name jdbc-orders (11 bytes)")
	send(t, m, press("down")...)
	if m.status.text != "" {
		t.Errorf("the copy message outlived the next key: %q", m.status.text)
	}
}

func TestCopyPartitionOffsetIsTheStoresBytes(t *testing.T) {
	f, m := started(t, 80, 24)
	selectPartition(t, m, "jdbc-orders", "rders")
	var want string
	for _, r := range f.store.Partitions(model.ConnectorID{Topic: topic, Name: "jdbc-orders"}) {
		if r.Partition == `{"protocol":"1","table":"orders"}` {
			want = r.Offset
		}
	}
	if want != `{"incrementing":18446744073709551610,"timestamp":1732903002}` {
		t.Fatalf("fixture: orders offset is %q", want)
	}
	requireClipboard(t, send(t, m, press("y")...), want)
	requireStatus(t, m, fmt.Sprintf(`copied offset of {"protocol":"1","table":"orders"} (%d bytes)`, len(want)))
}

func TestCopyOnDetail(t *testing.T) {
	_, m := started(t, 80, 24)
	selectPartition(t, m, "jdbc-orders", "rders")
	send(t, m, press("enter")...)
	if _, ok := m.top().(*screens.DetailScreen); !ok {
		t.Fatal("enter did not open the detail")
	}
	requireClipboard(t, send(t, m, press("y")...), `{"incrementing":18446744073709551610,"timestamp":1732903002}`)
	requireStatus(t, m, `copied offset of {"protocol":"1","table":"orders"} (60 bytes)`)
}

func TestCopyDeletedOffsetSaysWhy(t *testing.T) {
	_, m := started(t, 80, 24)
	selectPartition(t, m, "file-source", "old.log")
	if cmd := send(t, m, press("y")...); cmd != nil {
		t.Fatalf("y on a deleted offset returned a command: %T", cmd())
	}
	requireStatus(t, m, "nothing to copy: this source partition's offset is deleted")
}

func TestCopySinkCommittedOffset(t *testing.T) {
	_, _, m := lagModel(t, 80, 24)
	s := openSinkNamed(t, m, "es-search")
	r, ok := s.Selected()
	if !ok || r.Committed < 0 {
		t.Fatalf("fixture: no committed offset selected: %+v", r)
	}
	want := fmt.Sprintf(`{"kafka_offset":%d}`, r.Committed)
	requireClipboard(t, send(t, m, press("y")...), want)
	requireStatus(t, m, fmt.Sprintf("copied committed offset of %s (%d bytes)", r.TopicPartition, len(want)))
}

func TestCopyWorksReadOnly(t *testing.T) {
	f := demoStore()
	m := New(Options{Source: f.store, Bootstrap: "localhost:9092", Topics: []string{topic},
		Now: func() time.Time { return t0 }, ReadOnly: true})
	send(t, m, size(80, 24))
	selectPartition(t, m, "jdbc-orders", "customers")
	requireClipboard(t, send(t, m, press("y")...), `{"incrementing":9002}`)
	requireStatus(t, m, "copied offset of")
}

func TestCopyOnUnparseableSaysWhy(t *testing.T) {
	_, m := started(t, 80, 24)
	send(t, m, press("U")...)
	if cmd := send(t, m, press("y")...); cmd != nil {
		t.Fatal("y on the unparseable records returned a command")
	}
	requireStatus(t, m, "nothing to copy here")
}

// While the filter has focus, y is a letter of the filter.
func TestYTypesInTheFilter(t *testing.T) {
	_, m := started(t, 80, 24)
	send(t, m, press("/", "y")...)
	if got := m.filter.Value(); got != "y" {
		t.Fatalf("filter is %q, want %q", got, "y")
	}
}
