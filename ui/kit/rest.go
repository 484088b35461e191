package kit

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"charm.land/lipgloss/v2"

	"koff/model"
)

// notInREST is the state cell of a connector that has offsets but that
// Connect's REST API does not list: deleted, or run by another cluster.
const NotInREST = "– not in REST"

// stateGlyph pairs each Connect state with a glyph, so the state reads
// without colour.
func stateGlyph(state string) string {
	switch state {
	case "RUNNING":
		return "●"
	case "STOPPED":
		return "■"
	case "PAUSED":
		return "‖"
	case "FAILED":
		return "✗"
	case "UNASSIGNED":
		return "○"
	case "RESTARTING":
		return "↻"
	}
	return "?"
}

// stateText is a connector state as shown: glyph and Connect's word.
func StateText(state string) string {
	if state == "" {
		return "? unknown"
	}
	return stateGlyph(state) + " " + Clean(state)
}

func (st *Styles) StateStyle(state string) lipgloss.Style {
	switch state {
	case "RUNNING":
		return st.OK
	case "PAUSED", "UNASSIGNED", "RESTARTING":
		return st.Warn
	case "FAILED":
		return st.Bad
	}
	return st.Muted
}

// restAvailable reports whether the Store holds a REST view of connectors.
func RESTAvailable(r model.RESTStatus) bool { return r.Connectors != nil }

// restStateCell is the connectors table's STATE cell; while REST is out
// of reach, the state it last gave with its age: "● RUNNING (40s ago)".
func RESTStateCell(r model.ConnectorRow, now time.Time) string {
	if !r.InREST {
		return NotInREST
	}
	if r.RESTStale != "" && !r.RESTAt.IsZero() {
		return StateText(r.REST.State) + " (" + ShortDur(max(now.Sub(r.RESTAt), time.Second)) + " ago)"
	}
	return StateText(r.REST.State)
}

// restTasksCell is the connectors table's TASKS cell in at most w cells:
// Connect's words ("1 running, 1 failed") when they fit, else running of
// all with ✗ and the number failed ("1/2 ✗1"), so a failure never goes
// unseen in a narrow column.
func RESTTasksCell(r model.ConnectorRow, w int) string {
	if !r.InREST {
		return "–"
	}
	c := r.REST
	if c.State == "STOPPED" && len(c.Tasks) == 0 {
		return "–" // a stopped connector has no tasks by definition
	}
	full := Clean(c.TaskSummary())
	if ansi.StringWidth(full) <= w || len(c.Tasks) == 0 {
		return Truncate(full, w)
	}
	running, failed := 0, 0
	for _, t := range c.Tasks {
		switch t.State {
		case "RUNNING":
			running++
		case "FAILED":
			failed++
		}
	}
	brief := fmt.Sprintf("%d/%d", running, len(c.Tasks))
	if failed > 0 {
		brief += fmt.Sprintf(" ✗%d", failed)
	}
	return Truncate(brief, w)
}

// oneLine folds an error onto one line.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
