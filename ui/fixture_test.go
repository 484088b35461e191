package ui

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"koff/edit/history"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
	"koff/ui/kit"
)

// t0 is the tests' fixed "now".
var t0 = time.Date(2025, 11, 29, 18, 10, 0, 0, time.UTC)

const topic = "connect-offsets"

// fixture feeds a real Store the way the tailer does.
type fixture struct {
	store *store.Store
	next  map[model.TopicPartition]int64
	// groups is the latest poll of each sink group, for the fake Kafka
	// side of the editor.
	groups map[string]model.GroupPoll
	// log is every record made, in order: the offsets topic's retained
	// history, which readHistory serves as the broker would.
	logMu sync.Mutex
	log   []store.Record
}

func newFixture() *fixture {
	s := store.NewStore(store.StoreOptions{})
	s.SetTopicPartitions(topic, 25)
	return &fixture{store: s, next: map[model.TopicPartition]int64{}, groups: map[string]model.GroupPoll{}}
}

// setGroups records a poll of sink groups, as the lag poller does.
func (f *fixture) setGroups(at time.Time, polls ...model.GroupPoll) {
	f.store.SetGroups(at, polls)
	f.groups = map[string]model.GroupPoll{}
	for _, p := range polls {
		f.groups[p.Group] = p
	}
}

// rec builds a record; partition -1 places the key where murmur2 puts it,
// as a worker would. A nil value is a tombstone.
func (f *fixture) rec(at time.Time, key string, value *string, partition int) store.Record {
	return f.recIn(topic, 25, at, key, value, partition)
}

// recIn is rec for another offsets topic of n partitions.
func (f *fixture) recIn(topicName string, n int, at time.Time, key string, value *string, partition int) store.Record {
	if partition < 0 {
		partition = java.PartitionFor([]byte(key), n)
	}
	tp := model.TopicPartition{Topic: topicName, Partition: partition}
	off := f.next[tp]
	f.next[tp] = off + 1
	r := store.Record{Topic: topicName, Partition: partition, Offset: off, Key: []byte(key), Time: at}
	if value != nil {
		r.Value = []byte(*value)
	}
	f.logMu.Lock()
	f.log = append(f.log, r)
	f.logMu.Unlock()
	return r
}

// readHistory is history.ReadFunc over the records the fixture made:
// nothing compacted, by topic-partition then offset.
func (f *fixture) readHistory(ctx context.Context, topicName string, keep func([]byte) bool, fn func(*history.Record) error) ([]history.RetainedLog, error) {
	return f.readHistoryFrom(ctx, topicName, nil, keep, fn)
}

// readHistoryFrom is readHistory from from[partition] on: what the log
// gained since (history.ReadFromFunc).
func (f *fixture) readHistoryFrom(ctx context.Context, topicName string, from []int64, keep func([]byte) bool, fn func(*history.Record) error) ([]history.RetainedLog, error) {
	f.logMu.Lock()
	recs := slices.Clone(f.log)
	f.logMu.Unlock()
	slices.SortStableFunc(recs, func(a, b store.Record) int {
		if a.Partition != b.Partition {
			return a.Partition - b.Partition
		}
		return int(a.Offset - b.Offset)
	})
	ends := map[model.TopicPartition]int64{}
	for _, r := range recs {
		if r.Topic != topicName {
			continue
		}
		ends[model.TopicPartition{Topic: r.Topic, Partition: r.Partition}] = r.Offset + 1
		if r.Partition < len(from) && r.Offset < from[r.Partition] {
			continue
		}
		if keep(r.Key) {
			if err := fn(&history.Record{Record: r}); err != nil {
				return nil, err
			}
		}
	}
	var logs []history.RetainedLog
	for tp, end := range ends {
		logs = append(logs, history.RetainedLog{TopicPartition: tp, End: end, FirstGap: end})
	}
	return logs, ctx.Err()
}

func (f *fixture) put(at time.Time, key, value string) {
	f.store.Ingest([]store.Record{f.rec(at, key, &value, -1)})
}

func (f *fixture) putIn(topicName string, n int, at time.Time, key, value string) {
	f.store.Ingest([]store.Record{f.recIn(topicName, n, at, key, &value, -1)})
}

func (f *fixture) putAt(at time.Time, key, value string, partition int) {
	f.store.Ingest([]store.Record{f.rec(at, key, &value, partition)})
}

func (f *fixture) tombstone(at time.Time, key string) {
	f.store.Ingest([]store.Record{f.rec(at, key, nil, -1)})
}

const (
	keyInventory = `["inventory-connector",{"server":"dbserver1"}]`
	keyOrders    = `["jdbc-orders",{"protocol":"1","table":"orders"}]`
	keyCustomers = `["jdbc-orders",{"protocol":"1","table":"customers"}]`
	// Written by hand with a space and into the wrong partition.
	keyPayments = `["jdbc-orders", {"protocol":"1","table":"payments"}]`
	keyAppLog   = `["file-source",{"filename":"/var/log/app/application-server-01.log"}]`
	keyOldLog   = `["file-source",{"filename":"/var/log/old.log"}]`
	keyMirror   = `["mm2-source",{"cluster":"east","partition":0,"topic":"orders"}]`
)

// demoStore is a small but complete picture: a busy Debezium connector, a
// JDBC connector that stopped flushing with suspect keys, a file source with
// a deleted partition, a MirrorMaker connector with an offset above 2^53,
// and a few records Connect could not read.
func demoStore() *fixture {
	f := newFixture()
	// Debezium: flushes every 5s for the last two minutes.
	for i := 0; i < 24; i++ {
		at := t0.Add(-time.Duration(120-5*i) * time.Second)
		f.put(at, keyInventory, fmt.Sprintf(`{"ts_sec":%d,"file":"mysql-bin.000003","pos":%d,"row":1,"server_id":223344,"event":2}`,
			at.Unix(), 154+1000*i))
	}
	// JDBC: last flush 3 minutes ago; offsets exceed 2^63.
	for i := 0; i < 3; i++ {
		at := t0.Add(-time.Duration(300-60*i) * time.Second)
		f.put(at, keyOrders, fmt.Sprintf(`{"incrementing":%d,"timestamp":1732903%03d}`, 18446744073709551600+uint64(i*5), i))
		f.put(at, keyCustomers, fmt.Sprintf(`{"incrementing":%d}`, 9000+i))
	}
	f.putAt(t0.Add(-10*time.Minute), keyPayments, `{"incrementing":42}`, 3)
	// File source: one live file, one deleted, and the live key duplicated
	// into a second partition.
	for i := 0; i < 6; i++ {
		at := t0.Add(-time.Duration(60-10*i) * time.Second)
		f.put(at, keyAppLog, fmt.Sprintf(`{"position":%d}`, 123456+4096*i))
	}
	f.putAt(t0.Add(-2*time.Hour), keyAppLog, `{"position":1}`, 7)
	f.put(t0.Add(-3*time.Hour), keyOldLog, `{"position":99}`)
	f.tombstone(t0.Add(-90*time.Minute), keyOldLog)
	// MirrorMaker: 2^53+1 must show exactly.
	f.put(t0.Add(-4*time.Second), keyMirror, `{"offset":9007199254740993}`)
	// Unparseable records.
	f.putAt(t0.Add(-30*time.Minute), `not json at all`, `{"x":1}`, 2)
	f.putAt(t0.Add(-20*time.Minute), `{"connector":"x"}`, `{"x":1}`, 5)
	f.putAt(t0.Add(-15*time.Minute), `["jdbc-orders",{"table":"t"},3]`, `[1,2,3]`, 9)
	f.store.SetStatus(model.TailStatus{State: model.TailLive, Since: t0.Add(-time.Hour)})
	return f
}

func newTestModel(src kit.Source) *Model {
	return New(Options{
		Source:    src,
		Bootstrap: "kafka-1.prod.internal:9092,kafka-2.prod.internal:9092",
		Topics:    []string{topic},
		Now:       func() time.Time { return t0 },
	})
}

// send runs messages through Update, as the program would.
func send(t *testing.T, m *Model, msgs ...tea.Msg) tea.Cmd {
	t.Helper()
	var cmd tea.Cmd
	for _, msg := range msgs {
		var next tea.Model
		next, cmd = m.Update(msg)
		if next != m {
			t.Fatalf("Update returned another model")
		}
	}
	return cmd
}

// screenText is what the user sees, without colours.
func screenText(m *Model) string {
	return ansi.Strip(m.View().Content)
}

func press(keys ...string) []tea.Msg {
	var msgs []tea.Msg
	for _, k := range keys {
		switch k {
		case "enter":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyEnter})
		case "esc":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyEscape})
		case "up":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyUp})
		case "down":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyDown})
		case "pgdown":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyPgDown})
		case "end":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyEnd})
		case "left":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyLeft})
		case "right":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyRight})
		case "home":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyHome})
		case "backspace":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyBackspace})
		case "ctrl+c", "ctrl+r", "ctrl+s":
			msgs = append(msgs, tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl})
		case "tab":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyTab})
		default:
			for _, r := range k {
				msgs = append(msgs, tea.KeyPressMsg{Code: r, Text: string(r)})
			}
		}
	}
	return msgs
}

func size(w, h int) tea.Msg { return tea.WindowSizeMsg{Width: w, Height: h} }
