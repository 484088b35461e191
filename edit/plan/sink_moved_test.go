package plan

import (
	"testing"

	"koff/model"
)

// What a sink edit changes is measured from where the sink can resume: a
// committed offset below the log start is gone already (koff check's
// gap), so moving it to the log start skips nothing more.
func TestSinkMovedFromBelowTheLogStart(t *testing.T) {
	tp := model.TopicPartition{Topic: "web.clicks"}
	for _, c := range []struct {
		name string
		c    SinkChange
		want string
	}{
		{"clamped to the log start", SinkChange{TopicPartition: tp, Before: 120, After: 380, Start: 380, End: 500}, "260 records below the log start 380 gone already · from there unchanged"},
		{"past the log start", SinkChange{TopicPartition: tp, Before: 120, After: 400, Start: 380, End: 500}, "260 records below the log start 380 gone already · from there skips 20 records"},
		{"deleted", SinkChange{TopicPartition: tp, Before: 120, After: -1, Start: 380, End: 500}, "260 records below the log start 380 gone already · from there unchanged"},
		{"within the log", SinkChange{TopicPartition: tp, Before: 400, After: 390, Start: 380, End: 500}, "replays 10 records"},
	} {
		if got := c.c.Moved(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
