package kit

import (
	"testing"

	"koff/model"
)

// The UNFLUSHED cell: unknown, none, or at least a count: a worker commits
// only offsets of records its producer acknowledged, so a crash can replay
// more than were written since the flush; records in topics other
// connectors write too may be anyone's and are no bound.
func TestUnflushedCell(t *testing.T) {
	for _, c := range []struct {
		r    model.FlushReport
		want string
	}{
		{model.FlushReport{Unflushed: -1}, "–"},
		{model.FlushReport{Unflushed: 0}, "0"},
		{model.FlushReport{Unflushed: 7}, "≥7"},
		{model.FlushReport{Unflushed: 1234}, "≥1,234"},
		{model.FlushReport{Unflushed: 0, Shared: 27}, "≥0"},
		{model.FlushReport{Unflushed: 3, Shared: 27}, "≥3"},
	} {
		if got := UnflushedCell(c.r); got != c.want {
			t.Errorf("unflushedCell(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}
