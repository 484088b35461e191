package store

import (
	"testing"
	"time"

	"koff/model"
	"koff/model/resume"
)

// A resume check reaches the rows of what it checked: the connector's row
// on the offsets topic its tasks read, the partition its task reads, a
// sink's topic-partitions by its group. A copy in a topic its tasks do not
// read shows none, nor does a Store reset onto another cluster.
func TestSetResumeReachesTheRowsItChecked(t *testing.T) {
	s := NewStore(StoreOptions{})
	stray := rec(0, 0, `["src",{"f":"a"}]`, `{"o":1}`, 0)
	stray.Topic = "connect-offsets"
	own := rec(0, 0, `["src",{"f":"a"}]`, `{"o":2}`, 0)
	own.Topic = "src-offsets"
	s.Ingest([]Record{stray, own})
	s.SetREST(model.RESTStatus{Connectors: map[string]model.ConnectorState{
		"src":  {Name: "src", Type: "source", State: "RUNNING", Config: map[string]string{"offsets.storage.topic": "src-offsets"}},
		"sink": {Name: "sink", Type: "sink", State: "RUNNING", Config: map[string]string{"consumer.override.group.id": "g1"}},
	}})
	if s.GroupsPolled() {
		t.Error("groups polled before any poll")
	}
	s.SetGroups(t0, []model.GroupPoll{{Group: "g1", Partitions: []model.GroupPartition{gp("orders", 0, 2, 10), gp("orders", 1, 5, 5)}}})
	if !s.GroupsPolled() {
		t.Error("a poll of the groups is not recorded")
	}
	if r := s.Connectors()[0]; r.Resume != nil {
		t.Fatalf("a row before any check: %+v", r.Resume)
	}
	lost := resume.Amount{Records: 4, Bytes: -1}
	s.SetResume([]resume.Connector{
		{Name: "sink", Type: "sink", Checked: t0, Partitions: []resume.Partition{
			{Partition: "orders/0", Position: "offset 2", State: resume.Gap, Lost: lost, Replayed: resume.None, ResumesAt: "offset 6"},
			{Partition: "orders/1", Position: "offset 5", State: resume.Resumes, Lost: resume.None, Replayed: resume.None},
		}},
		{Name: "src", Type: "source", Checked: t0, Partitions: []resume.Partition{
			{Partition: `{"f":"a"}`, Position: "offset 2", State: resume.Unknown, Lost: resume.None, Replayed: resume.None, Reason: "koff cannot check X"},
		}},
	}, t0)

	rows := map[model.ConnectorID]model.ConnectorRow{}
	for _, r := range s.Connectors() {
		rows[r.ID] = r
	}
	sink := rows[model.ConnectorID{Name: "sink"}].Resume
	if sink == nil || sink.State != resume.Gap || sink.Lost.Records != 4 || sink.Replayed.Records != -1 || sink.Counts[resume.Gap] != 1 || sink.Counts[resume.Resumes] != 1 || !sink.Checked.Equal(t0) {
		t.Errorf("the sink's row: %+v", sink)
	}
	parts := s.SinkPartitions("g1")
	if parts[0].Resume == nil || parts[0].Resume.State != resume.Gap || parts[0].Resume.ResumesAt != "offset 6" || parts[1].Resume.State != resume.Resumes {
		t.Errorf("the sink's partitions: %+v %+v", parts[0].Resume, parts[1].Resume)
	}
	ownID, strayID := model.ConnectorID{Topic: "src-offsets", Name: "src"}, model.ConnectorID{Topic: "connect-offsets", Name: "src"}
	if r := rows[ownID].Resume; r == nil || r.State != resume.Unknown {
		t.Errorf("the source's row on its own topic: %+v", r)
	}
	if r := rows[strayID].Resume; r != nil {
		t.Errorf("a copy its tasks do not read has the check: %+v", r)
	}
	if p := s.Partitions(ownID); p[0].Resume == nil || p[0].Resume.Reason != "koff cannot check X" || !p[0].Resume.Checked().Equal(t0) {
		t.Errorf("the partition its task reads: %+v", p[0].Resume)
	}
	if p := s.Partitions(strayID); p[0].Resume != nil {
		t.Errorf("a stray copy's partition has the check: %+v", p[0].Resume)
	}
	if d, _ := s.Partition(s.Partitions(ownID)[0].ID); d.Resume == nil {
		t.Error("the partition's detail lacks the check")
	}

	// A reader of what changed gets the rows again when their check
	// changed, not when it only was made again.
	check := func(st resume.State, at time.Time) {
		s.SetResume([]resume.Connector{{Name: "src", Type: "source", Checked: at, Partitions: []resume.Partition{
			{Partition: `{"f":"a"}`, Position: "offset 2", State: st, Lost: resume.None, Replayed: resume.None},
		}}}, at)
	}
	check(resume.Unknown, t0)
	stamp := s.PartitionsSince(ownID, 0).Stamp
	check(resume.Unknown, t0.Add(time.Minute))
	if ch := s.PartitionsSince(ownID, stamp); ch.Whole || len(ch.Rows) != 0 {
		t.Errorf("the same check again changed rows: %+v", ch)
	}
	check(resume.Resumes, t0.Add(2*time.Minute))
	if ch := s.PartitionsSince(ownID, stamp); len(ch.Rows) != 1 || ch.Rows[0].Resume == nil || ch.Rows[0].Resume.State != resume.Resumes {
		t.Errorf("a changed check is not read again: %+v", ch)
	}

	s.Reset()
	if !s.ResumeChecked().IsZero() || s.SinkPartitions("g1")[0].Resume != nil {
		t.Error("a Store reset onto another cluster keeps the old check")
	}
}
