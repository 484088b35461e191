package kit

import (
	"testing"

	"koff/model"
)

// The UNFLUSHED cell: unknown, a count, or at most a count when some of
// the records are in topics other connectors write too.
func TestUnflushedCell(t *testing.T) {
	for _, c := range []struct {
		r    model.FlushReport
		want string
	}{
		{model.FlushReport{Unflushed: -1}, "–"},
		{model.FlushReport{Unflushed: 0}, "0"},
		{model.FlushReport{Unflushed: 7}, "7"},
		{model.FlushReport{Unflushed: 0, Shared: 27}, "≤27"},
		{model.FlushReport{Unflushed: 3, Shared: 27}, "≤30"},
	} {
		if got := UnflushedCell(c.r); got != c.want {
			t.Errorf("unflushedCell(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}
