package ui

import (
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"koff/model"
)

// screen is one page of the dashboard. Screens render to strings at the
// size they are given and name their own key bindings; only the root model
// returns a tea.View, reads the clock and decides where to navigate.
type screen interface {
	help.KeyMap
	SetSize(width, height int)
	View() string
	// refresh re-reads what the screen shows; reload says the Source's
	// version moved, otherwise only time passed (ages, sparklines).
	refresh(src Source, now time.Time, reload bool)
	// handleKey reacts to a key the root did not take and says what the
	// root should do next.
	handleKey(msg tea.KeyPressMsg) action
}

// filterable screens narrow their table with the filter input.
type filterable interface {
	filterValue() string
	setFilter(q string)
}

// sortable screens cycle through sort orders.
type sortable interface {
	cycleSort()
}

// action is what a screen asks the root to do after a key.
type action interface{}

type (
	openConnector   struct{ id model.ConnectorID }
	openSink        struct{ name string }
	openPartition   struct{ id model.PartitionID }
	openUnparseable struct{ u model.Unparseable }
)
