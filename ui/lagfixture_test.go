package ui

import (
	"fmt"
	"testing"
	"time"

	"koff/model"
)

const (
	keyInventory2 = `["inventory-connector",{"server":"dbserver2"}]`
	keyOldOrders  = `["jdbc-old-orders",{"protocol":"1","table":"orders"}]`
	keyCRM        = `["jdbc-crm",{"protocol":"1","table":"accounts"}]`
	crmTopic      = "crm-offsets"
)

// lagStore is a Connect cluster with every flush status and sink trend,
// judged at t0 against REST (lagREST):
//
//   - inventory-connector flushes every 5s (ok); its dbserver2 partition
//     stopped advancing 6 minutes ago, and 37 records are unflushed;
//   - jdbc-orders flushed every minute until 220s ago while RUNNING, and
//     1,250 records were written since (stalled);
//   - file-source flushes every 10s, the last 25s ago (late);
//   - mm2-source is STOPPED, last flush 10 minutes ago (idle);
//   - jdbc-old-orders is no longer in Connect (orphaned);
//   - jdbc-crm keeps its offsets in its own topic crm-offsets, with an old
//     copy in connect-offsets (secondary);
//   - es-search is a sink falling behind (growing), s3-archive one
//     catching up (shrinking), and connect-old-sink a group whose
//     connector is gone (orphaned).
func lagStore() *fixture {
	f := newFixture()
	f.store.SetTopicPartitions(crmTopic, 5)
	f.put(t0.Add(-6*time.Minute), keyInventory2, `{"ts_sec":1764439440,"file":"mysql-bin.000001","pos":7,"row":1,"server_id":5,"event":1}`)
	for i := 0; i < 24; i++ {
		at := t0.Add(-time.Duration(120-5*i) * time.Second)
		f.put(at, keyInventory, fmt.Sprintf(`{"ts_sec":%d,"file":"mysql-bin.000003","pos":%d,"row":1,"server_id":223344,"event":2}`,
			at.Unix(), 154+1000*i))
	}
	for i := 0; i < 4; i++ {
		at := t0.Add(-time.Duration(400-60*i) * time.Second)
		f.put(at, keyOrders, fmt.Sprintf(`{"incrementing":%d}`, 5000+100*i))
		f.put(at, keyCustomers, fmt.Sprintf(`{"incrementing":%d}`, 9000+i))
	}
	for i := 0; i < 7; i++ {
		at := t0.Add(-time.Duration(85-10*i) * time.Second)
		f.put(at, keyAppLog, fmt.Sprintf(`{"position":%d}`, 123456+4096*i))
	}
	for i := 0; i < 3; i++ {
		f.put(t0.Add(-time.Duration(12-i)*time.Minute), keyMirror, fmt.Sprintf(`{"offset":%d}`, 9007199254740993+i))
	}
	f.put(t0.Add(-2*time.Hour-time.Minute), keyOldOrders, `{"incrementing":777}`)
	f.put(t0.Add(-2*time.Hour), keyOldOrders, `{"incrementing":780}`)
	f.put(t0.Add(-26*time.Hour), keyCRM, `{"incrementing":10}`) // before it got its own topic
	for i := 0; i < 6; i++ {
		f.putIn(crmTopic, 5, t0.Add(-time.Duration(30-5*i)*time.Second), keyCRM, fmt.Sprintf(`{"incrementing":%d}`, 400+i))
	}
	f.store.SetConnectorTopics("inventory-connector", []string{"dbserver1.inventory.orders"})
	f.store.SetConnectorTopics("jdbc-orders", []string{"jdbc-orders"})
	f.store.SetUnflushed("inventory-connector", model.Unflushed{Records: 37, Since: t0.Add(-5 * time.Second), At: t0})
	f.store.SetUnflushed("jdbc-orders", model.Unflushed{Records: 1250, Since: t0.Add(-220 * time.Second), At: t0})
	f.store.SetStatus(model.TailStatus{State: model.TailLive, Since: t0.Add(-time.Hour)})
	lagREST(f)
	// Three polls of the sink groups, 30s apart.
	for i := 0; i < 3; i++ {
		f.setGroups(t0.Add(-time.Duration(60-30*i)*time.Second), sinkPolls(i)...)
	}
	return f
}

func lagREST(f *fixture) {
	running := []model.TaskState{{ID: 0, State: "RUNNING", WorkerID: "connect-1:8083"}}
	f.store.SetREST(model.RESTStatus{
		URL: "http://connect-1.prod.internal:8083", Version: "3.7.1", At: t0,
		Connectors: map[string]model.ConnectorState{
			"inventory-connector": {Name: "inventory-connector", Type: "source", State: "RUNNING", Tasks: running},
			"jdbc-orders":         {Name: "jdbc-orders", Type: "source", State: "RUNNING", Tasks: running},
			"file-source":         {Name: "file-source", Type: "source", State: "RUNNING", Tasks: running},
			"mm2-source":          {Name: "mm2-source", Type: "source", State: "STOPPED"},
			"jdbc-crm": {Name: "jdbc-crm", Type: "source", State: "RUNNING", Tasks: running,
				Config: map[string]string{"offsets.storage.topic": crmTopic}},
			"es-search":  {Name: "es-search", Type: "sink", State: "RUNNING", Tasks: append(running, model.TaskState{ID: 1, State: "RUNNING"})},
			"s3-archive": {Name: "s3-archive", Type: "sink", State: "RUNNING", Tasks: running},
		},
	})
}

// sinkPolls is poll i of the sink groups: es-search's lag grows by 300 a
// partition and poll (its orders/2 never moves), s3-archive's shrinks.
func sinkPolls(i int) []model.GroupPoll {
	n := int64(i)
	tp := func(topic string, p int) model.TopicPartition {
		return model.TopicPartition{Topic: topic, Partition: p}
	}
	return []model.GroupPoll{
		{Group: "connect-es-search", State: "Stable", Members: 2,
			Clients: []string{"connector-consumer-es-search-0@/10.0.0.7", "connector-consumer-es-search-1@/10.0.0.8"},
			Partitions: []model.GroupPartition{
				{TopicPartition: tp("orders", 0), Committed: 1000 + 300*n, Start: 400, End: 1500 + 600*n},
				{TopicPartition: tp("orders", 1), Committed: 900 + 300*n, Start: 0, End: 1400 + 600*n},
				{TopicPartition: tp("orders", 2), Committed: 1200, Start: 0, End: 1200 + 300*n},
			}},
		{Group: "connect-s3-archive", State: "Stable", Members: 1,
			Clients: []string{"connector-consumer-s3-archive-0@/10.0.0.9"},
			Partitions: []model.GroupPartition{
				{TopicPartition: tp("inventory.events", 0), Committed: 6000 + 1600*n, Start: 0, End: 10000 + 200*n},
				{TopicPartition: tp("inventory.events", 1), Committed: 5000 + 1600*n, Start: 0, End: 9000 + 200*n},
			}},
		{Group: "connect-old-sink", State: "Empty", Members: 0,
			Partitions: []model.GroupPartition{{TopicPartition: tp("legacy", 0), Committed: 58, Start: 0, End: 100}}},
	}
}

// lagModel is the dashboard on lagStore with a fake editor.
func lagModel(t *testing.T, w, h int) (*fixture, *fakeEditor, *Model) {
	f := lagStore()
	ed := newFakeEditor(t, f)
	m := New(Options{Source: f.store, Bootstrap: "kafka-1.prod.internal:9092", Topics: []string{topic},
		Now: func() time.Time { return t0 }, Editor: ed, REST: true})
	send(t, m, size(w, h))
	return f, ed, m
}
