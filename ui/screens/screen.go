package screens

import (
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"koff/model"
	"koff/ui/kit"
)

// screen is one page of the dashboard. Screens render to strings at the
// size they are given and name their own key bindings; only the root model
// returns a tea.View, reads the clock and decides where to navigate.
type Screen interface {
	help.KeyMap
	SetSize(width, height int)
	View() string
	// refresh re-reads what the screen shows; reload says the Source's
	// version moved, otherwise only time passed (ages, sparklines).
	Refresh(src kit.Source, now time.Time, reload bool)
	// handleKey reacts to a key the root did not take and says what the
	// root should do next.
	HandleKey(msg tea.KeyPressMsg) Action
}

// filterable screens narrow their table with the filter input.
type Filterable interface {
	FilterValue() string
	SetFilter(q string)
}

// sortable screens cycle through sort orders.
type Sortable interface {
	CycleSort()
}

// action is what a screen asks the root to do after a key.
type Action interface{}

type (
	OpenConnector   struct{ Id model.ConnectorID }
	OpenSink        struct{ Name string }
	OpenPartition   struct{ Id model.PartitionID }
	OpenUnparseable struct{ U model.Unparseable }
)
