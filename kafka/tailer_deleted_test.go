package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/model"
)

// An offsets topic deleted while koff reads it is never "live": with two
// offsets topics and one deleted, the Tailer says which was deleted
// (waiting for it) while it reads the other, until it is there again.
func TestTailerSaysADeletedOffsetsTopicIsGone(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "connect-offsets", 2)
	createTopic(t, addr, "crm-offsets", 1)
	produce(t, addr, "connect-offsets", 0, kv{key: key("shop", 0), value: `{"offset":1}`})
	produce(t, addr, "crm-offsets", 0, kv{key: key("crm", 0), value: `{"offset":2}`})
	tl, store := runTailer(t, addr, []string{"connect-offsets", "crm-offsets"}, TailerOptions{Rescan: 200 * time.Millisecond, MaxWait: 100 * time.Millisecond})
	waitFor(t, "live with both connectors", 10*time.Second, func() bool {
		return tl.Status().State == model.TailLive && len(store.Connectors()) == 2
	})
	if st := tl.Status(); st.Deleted != "" || st.Missing != "" {
		t.Fatalf("before the deletion: deleted %q, missing %q", st.Deleted, st.Missing)
	}

	res, err := Config{Brokers: []string{addr}}.Client().DeleteTopics(context.Background(), &kafkago.DeleteTopicsRequest{Topics: []string{"crm-offsets"}})
	if err != nil || res.Errors["crm-offsets"] != nil {
		t.Fatalf("delete topic: %v %v", err, res.Errors)
	}
	// Never blind on the way: the broker answers, without the topic.
	waitFor(t, "the deletion seen", 10*time.Second, func() bool {
		st := tl.Status()
		if since, why := st.Blind(time.Now()); !since.IsZero() {
			t.Fatalf("while the topic goes: %v %q (blind: %s)", st.State, st.Reason, why)
		}
		return st.Deleted == "crm-offsets"
	})
	// It keeps saying so, over many reports, while it reads the other.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		st := tl.Status()
		if st.State != model.TailWaitingForTopic || st.Deleted != "crm-offsets" || st.Missing != "crm-offsets" {
			t.Fatalf("after the deletion: %v %q deleted %q missing %q, want waiting for topic crm-offsets", st.State, st.Reason, st.Deleted, st.Missing)
		}
		if !strings.Contains(st.Reason, "offsets topic crm-offsets was deleted") {
			t.Fatalf("reason %q", st.Reason)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := tl.Status().Reloads; n != 1 {
		t.Errorf("%d reloads after the deletion, want 1", n)
	}
	if cs := store.Connectors(); len(cs) != 1 || cs[0].ID.Name != "shop" {
		t.Errorf("connectors after the deletion: %v, want shop alone", cs)
	}
	if _, why := tl.Status().Blind(time.Now()); why != "" {
		t.Errorf("blind (%s): the other topic is read", why)
	}

	// Created again, it is read from scratch and the Tailer is live.
	createTopic(t, addr, "crm-offsets", 1)
	produce(t, addr, "crm-offsets", 0, kv{key: key("crm", 1), value: `{"offset":3}`})
	waitFor(t, "live again with both", 10*time.Second, func() bool {
		st := tl.Status()
		return st.State == model.TailLive && st.Deleted == "" && st.Missing == "" && len(store.Connectors()) == 2
	})
}

// A topic koff never read that does not exist is missing, not deleted.
func TestTailerMissingTopicIsNotDeleted(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "connect-offsets", 1)
	tl, _ := runTailer(t, addr, []string{"connect-offsets", "nope-offsets"}, TailerOptions{Rescan: 200 * time.Millisecond, MaxWait: 100 * time.Millisecond})
	waitFor(t, "live", 10*time.Second, func() bool { return tl.Status().State == model.TailLive })
	if st := tl.Status(); st.Missing != "nope-offsets" || st.Deleted != "" {
		t.Errorf("missing %q deleted %q, want nope-offsets missing and none deleted", st.Missing, st.Deleted)
	}
}

// An offsets topic deleted and created again at once (a worker's
// producer auto-creates it) is read again from scratch, and counted:
// every offset it held is gone, whether or not koff saw it missing.
func TestTailerCountsARecreatedOffsetsTopic(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "connect-offsets", 2)
	for i := 0; i < 3; i++ {
		produce(t, addr, "connect-offsets", 0, kv{key: key("old", i), value: `{"offset":1}`})
	}
	tl, store := runTailer(t, addr, []string{"connect-offsets"}, TailerOptions{Rescan: 200 * time.Millisecond, MaxWait: 100 * time.Millisecond})
	waitFor(t, "live", 10*time.Second, func() bool { return tl.Status().State == model.TailLive && len(store.Connectors()) == 1 })
	if n := tl.Status().Reloads; n != 0 {
		t.Fatalf("%d reloads before", n)
	}
	res, err := Config{Brokers: []string{addr}}.Client().DeleteTopics(context.Background(), &kafkago.DeleteTopicsRequest{Topics: []string{"connect-offsets"}})
	if err != nil || res.Errors["connect-offsets"] != nil {
		t.Fatalf("delete topic: %v %v", err, res.Errors)
	}
	createTopic(t, addr, "connect-offsets", 1)
	produce(t, addr, "connect-offsets", 0, kv{key: key("new", 0), value: `{"offset":2}`})
	waitFor(t, "the new topic's offsets alone", 20*time.Second, func() bool {
		cs := store.Connectors()
		st := tl.Status()
		return st.State == model.TailLive && st.Deleted == "" && len(cs) == 1 && cs[0].ID.Name == "new"
	})
	if n := tl.Status().Reloads; n < 1 {
		t.Errorf("%d reloads after the topic was recreated, want at least 1", n)
	}
}
