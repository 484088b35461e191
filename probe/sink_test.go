package probe

import (
	"reflect"
	"testing"
	"time"

	"koff/model"
	"koff/model/resume"
)

// A partition whose committed epoch is the leader's current one is judged,
// unasked, as it is with any answer the broker could give (its log end
// offset, at or past the high watermark), under every reset policy; one
// not current, unasked, is judged without validation, as before.
func TestAnEpochNotAskedIsJudgedAsAnyAnswerTheBrokerCouldGive(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	for _, reset := range []string{"earliest", "latest", "none"} {
		cfg := map[string]string{"consumer.override.auto.offset.reset": reset}
		for _, gp := range []model.GroupPartition{
			{TopicPartition: model.TopicPartition{Topic: "t", Partition: 0}, Committed: 5, LeaderEpoch: 3, LeaderEpochNow: 3, Start: 0, End: 9},
			{TopicPartition: model.TopicPartition{Topic: "t", Partition: 0}, Committed: 9, LeaderEpoch: 3, LeaderEpochNow: 3, Start: 0, End: 9},
			{TopicPartition: model.TopicPartition{Topic: "t", Partition: 0}, Committed: 2, LeaderEpoch: 3, LeaderEpochNow: 3, Start: 4, End: 9},
		} {
			if !gp.EpochIsCurrent() {
				t.Fatalf("%+v is not current", gp)
			}
			unasked := resume.Sink("s", "", cfg, "g", []resume.SinkPartition{SinkPartitionOf(gp, -1, false, "")}, "", at)
			for _, answer := range []int64{gp.Committed, gp.End, gp.End + 100} {
				asked := resume.Sink("s", "", cfg, "g", []resume.SinkPartition{SinkPartitionOf(gp, answer, true, "")}, "", at)
				if !reflect.DeepEqual(unasked, asked) {
					t.Errorf("reset %s, %+v: unasked %+v, the broker answering %d %+v", reset, gp, unasked.Partitions, answer, asked.Partitions)
				}
			}
		}
		// Past the log end, or in another epoch: validated only when asked.
		for _, gp := range []model.GroupPartition{
			{TopicPartition: model.TopicPartition{Topic: "t"}, Committed: 12, LeaderEpoch: 3, LeaderEpochNow: 3, End: 9},
			{TopicPartition: model.TopicPartition{Topic: "t"}, Committed: 5, LeaderEpoch: 2, LeaderEpochNow: 3, End: 9},
		} {
			if sp := SinkPartitionOf(gp, -1, false, ""); gp.EpochIsCurrent() || sp.EpochAsked {
				t.Errorf("%+v: current %v, asked %v", gp, gp.EpochIsCurrent(), sp.EpochAsked)
			}
		}
	}
}
