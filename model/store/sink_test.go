package store

import (
	"testing"
	"time"

	"koff/model"
)

func gp(topic string, p int, committed, end int64) model.GroupPartition {
	return model.GroupPartition{TopicPartition: model.TopicPartition{Topic: topic, Partition: p}, Committed: committed, End: end}
}

func TestSinkLagTrendAndCommitAge(t *testing.T) {
	s := NewStore(StoreOptions{})
	s.SetREST(model.RESTStatus{Connectors: map[string]model.ConnectorState{
		"es":    {Name: "es", Type: "sink", State: "RUNNING", Config: map[string]string{"consumer.override.group.id": "es-v2"}},
		"s3":    {Name: "s3", Type: "sink", State: "RUNNING"},
		"jdbc":  {Name: "jdbc", Type: "source", State: "RUNNING", Config: map[string]string{"offsets.storage.topic": "crm-offsets"}},
		"fresh": {Name: "fresh", Type: "sink", State: "RUNNING"},
	}})
	if g := s.SinkGroups(); len(g) != 3 || g[0] != "connect-fresh" || g[1] != "connect-s3" || g[2] != "es-v2" {
		t.Fatalf("sink groups = %v", g)
	}
	// es falls behind by 100 records every 10s; s3 keeps up; a stray
	// connect-old group has no connector in REST.
	for i := 0; i < 4; i++ {
		at := t0.Add(time.Duration(i) * 10 * time.Second)
		s.SetGroups(at, []model.GroupPoll{
			{Group: "es-v2", State: "Stable", Members: 2, Partitions: []model.GroupPartition{
				gp("logs", 0, 1000+int64(i)*100, 1500+int64(i)*200), gp("logs", 1, 500, 600+int64(i)*100)}},
			{Group: "connect-s3", State: "Stable", Members: 1, Partitions: []model.GroupPartition{gp("orders", 0, 100*int64(i), 100*int64(i)+2)}},
			{Group: "connect-old", State: "Empty", Partitions: []model.GroupPartition{gp("orders", 0, 5, 400)}},
		})
	}
	rows := map[string]model.ConnectorRow{}
	for _, r := range s.Connectors() {
		rows[r.ID.Name] = r
	}
	es := rows["es"]
	if es.Type != "sink" || es.Sink == nil || es.Sink.Group != "es-v2" || es.Sink.Members != 2 {
		t.Fatalf("es = %+v", es)
	}
	// lag: p0 (1500+600)-(1000+300)=800, p1 (600+300)-500=400 → 1200; was 600.
	if es.Sink.TotalLag != 1200 || es.Sink.Trend != "growing" || es.Sink.Rate != 20 || es.Sink.CatchUp != 0 {
		t.Errorf("es lag %d trend %s rate %v catch-up %s", es.Sink.TotalLag, es.Sink.Trend, es.Sink.Rate, es.Sink.CatchUp)
	}
	// p1's committed offset never moved: when it was committed is unknown.
	for _, p := range s.SinkPartitions("es-v2") {
		want := t0.Add(30 * time.Second)
		if p.Partition == 1 {
			want = time.Time{}
		}
		if !p.CommittedAt.Equal(want) {
			t.Errorf("es %s committed at %v, want %v", p.TopicPartition, p.CommittedAt, want)
		}
	}
	if s3 := rows["s3"]; s3.Sink.TotalLag != 2 || s3.Sink.Trend != "steady" {
		t.Errorf("s3 = %+v", s3.Sink)
	}
	if f := rows["fresh"]; f.Sink == nil || f.Sink.Group != "connect-fresh" || f.Sink.Partitions != 0 {
		t.Errorf("a sink with no group yet = %+v", f.Sink)
	}
	if old := rows["old"]; old.Type != "sink" || !old.Orphaned || old.Sink.TotalLag != 395 {
		t.Errorf("stray connect-old group = %+v", old)
	}
	if j := rows["jdbc"]; j.OwnTopic != "crm-offsets" || j.Type != "source" {
		t.Errorf("jdbc = %+v", j)
	}

	// The lag shrinks: catch-up time follows the rate.
	s.SetGroups(t0.Add(40*time.Second), []model.GroupPoll{{Group: "es-v2", State: "Stable", Members: 2, Partitions: []model.GroupPartition{gp("logs", 0, 2100, 2200), gp("logs", 1, 900, 900)}}})
	if sum := sinkOf(s, "es"); sum.Trend != "shrinking" || sum.TotalLag != 100 || sum.CatchUp <= 0 {
		t.Errorf("shrinking es = %+v", sum)
	}
	// A deleted group (a reset) disappears.
	if s.SinkPartitions("connect-s3") != nil {
		t.Error("connect-s3 was not in the last poll and should be gone")
	}
}

func sinkOf(s *Store, name string) model.SinkSummary {
	for _, r := range s.Connectors() {
		if r.ID.Name == name && r.Sink != nil {
			return *r.Sink
		}
	}
	return model.SinkSummary{}
}

// A sink's history (commit ages, lag trend) is of one log: a new cluster
// id, or an end offset that went backwards, throws it away and says so.
func TestSinkHistoryStartsOverOnAnotherLog(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tp := model.TopicPartition{Topic: "orders", Partition: 0}
	poll := func(cluster string, committed, end int64) []model.GroupPoll {
		return []model.GroupPoll{{Group: "connect-s", ClusterID: cluster, Partitions: []model.GroupPartition{{TopicPartition: tp, Committed: committed, End: end}}}}
	}
	for _, tc := range []struct {
		name    string
		second  []model.GroupPoll
		why     string
		restart bool
	}{
		{"same log", poll("a", 90, 110), "", false},
		{"new cluster id", poll("b", 90, 110), "a different cluster answers (cluster id b, was a)", true},
		{"end went backwards", poll("a", 0, 3), "orders/0 ends at offset 3, was 100: the topic was recreated", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(StoreOptions{})
			s.SetGroups(t0, poll("a", 50, 100))
			s.SetGroups(t0.Add(time.Second), poll("a", 60, 100)) // the commit moved: dated
			s.SetGroups(t0.Add(2*time.Second), tc.second)
			g := s.groups["connect-s"].summary()
			if g.ReloadReason != tc.why {
				t.Errorf("reload reason %q, want %q", g.ReloadReason, tc.why)
			}
			if restarted := g.LastCommit.IsZero() && len(s.groups["connect-s"].lag) == 1; restarted != tc.restart {
				t.Errorf("history started over: %v, want %v (last commit %v)", restarted, tc.restart, g.LastCommit)
			}
		})
	}
}

// A sink that keeps up commits every 10 s, its lag rising between commits
// and dropping at each; polled every 2 s, its trend must not flip with
// where the window's ends fall on that saw-tooth. One falling behind
// (the same saw-tooth on a rising floor) stays growing, poll after poll.
func TestSinkLagTrendIgnoresTheCommitSawTooth(t *testing.T) {
	for _, tc := range []struct {
		name  string
		drift int64 // records per second the floor rises
		want  string
	}{{"keeps up", 0, "steady"}, {"falls behind", 3, "growing"}} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(StoreOptions{})
			s.SetREST(model.RESTStatus{Connectors: map[string]model.ConnectorState{"es": {Name: "es", Type: "sink", State: "RUNNING"}}})
			seen := map[string]int{}
			for i := 0; i <= 90; i++ {
				secs := int64(i) * 2
				lag := (secs%10)*12 + tc.drift*secs // 0..108 between commits, on the floor
				s.SetGroups(t0.Add(time.Duration(secs)*time.Second), []model.GroupPoll{{Group: "connect-es", State: "Stable", Members: 1,
					Partitions: []model.GroupPartition{gp("logs", 0, 10_000+secs*50, 10_000+secs*50+lag)}}})
				if i >= 30 { // a minute of polls in the window
					seen[sinkOf(s, "es").Trend]++
				}
			}
			if len(seen) != 1 || seen[tc.want] == 0 {
				t.Errorf("trend over the last two minutes of polls: %v, want %s at every poll", seen, tc.want)
			}
		})
	}
}
