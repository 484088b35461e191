package ui

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"koff/keymap"
	"koff/model"
)

// activitySpan is how far back the flush sparkline looks.
const activitySpan = 2 * time.Minute

// connectorsScreen is the start screen: one row per connector.
type connectorsScreen struct {
	km   *keymap.KeyMap
	st   *Styles
	list list[model.ConnectorRow]
	now  time.Time
	// topics is how many offsets topics koff reads: the topic column shows
	// only when there is more than one.
	topics        int
	width, height int
	needs         connectorNeeds
	// rest: the Store has a REST view, so STATE and TASKS show.
	rest bool
}

// connectorNeeds are the widths the rows need, measured when the Source
// changes rather than on every key.
type connectorNeeds struct {
	name, topic, parts, records, state, tasks int
}

func (s *connectorsScreen) measure() {
	n := connectorNeeds{name: 20, topic: len("OFFSETS TOPIC"), parts: len("PARTITIONS"), records: len("RECORDS"),
		state: len("STATE"), tasks: len("TASKS")}
	for _, r := range s.list.items {
		n.name = max(n.name, ansi.StringWidth(r.ID.Name))
		n.topic = max(n.topic, ansi.StringWidth(r.ID.Topic))
		n.parts = max(n.parts, ansi.StringWidth(partitionsCell(r)))
		n.records = max(n.records, len(count(r.Records)))
		n.state = max(n.state, ansi.StringWidth(restStateCell(r)))
		n.tasks = max(n.tasks, ansi.StringWidth(restTasksCell(r, 1000)))
	}
	s.needs = n
}

func newConnectorsScreen(km *keymap.KeyMap, st *Styles) *connectorsScreen {
	s := &connectorsScreen{km: km, st: st}
	s.list = newList(st,
		func(r model.ConnectorRow) string { return r.ID.Topic + "\x00" + r.ID.Name },
		func(r model.ConnectorRow, q string) bool {
			return strings.Contains(strings.ToLower(r.ID.Name), q) ||
				(s.topics > 1 && strings.Contains(strings.ToLower(r.ID.Topic), q)) ||
				(s.rest && strings.Contains(strings.ToLower(restStateCell(r)), q))
		},
		sortOrder[model.ConnectorRow]{"name", byConnectorName},
		sortOrder[model.ConnectorRow]{"last flush (oldest first)", func(a, b model.ConnectorRow) int {
			return cmp.Or(lastFlush(a).Compare(lastFlush(b)), byConnectorName(a, b))
		}},
		sortOrder[model.ConnectorRow]{"partitions (most first)", func(a, b model.ConnectorRow) int {
			return cmp.Or(cmp.Compare(b.Partitions, a.Partitions), byConnectorName(a, b))
		}},
		sortOrder[model.ConnectorRow]{"suspect (most first)", func(a, b model.ConnectorRow) int {
			return cmp.Or(cmp.Compare(b.Suspect, a.Suspect), byConnectorName(a, b))
		}},
	)
	return s
}

func byConnectorName(a, b model.ConnectorRow) int {
	return cmp.Or(strings.Compare(a.ID.Name, b.ID.Name), strings.Compare(a.ID.Topic, b.ID.Topic))
}

// lastFlush is when the connector last committed offsets.
func lastFlush(r model.ConnectorRow) time.Time {
	if n := len(r.Flushes); n > 0 {
		return r.Flushes[n-1].End
	}
	return r.LastUpdate
}

func (s *connectorsScreen) refresh(src Source, now time.Time, reload bool) {
	s.now = now
	if reload {
		s.rest = restAvailable(src.REST())
		s.list.setItems(src.Connectors())
		s.measure()
	}
	s.sync()
}

func (s *connectorsScreen) SetSize(width, height int) {
	s.width, s.height = width, height
	s.list.setSize(width, height-2) // title line and table header
	s.sync()
}

func (s *connectorsScreen) selected() (model.ConnectorID, bool) {
	r, ok := s.list.selected()
	return r.ID, ok
}

func (s *connectorsScreen) filterValue() string { return s.list.filter }
func (s *connectorsScreen) setFilter(q string)  { s.list.setFilter(q); s.sync() }
func (s *connectorsScreen) cycleSort()          { s.list.cycleSort(); s.sync() }

func (s *connectorsScreen) handleKey(msg tea.KeyPressMsg) action {
	if moveList(&s.list, s.km, msg) {
		s.sync()
		return nil
	}
	if key.Matches(msg, s.km.Open) {
		if id, ok := s.selected(); ok {
			return openConnector{id}
		}
	}
	return nil
}

// connectorColumns lays the columns out for the width: the name takes the
// slack, and the least important columns go first when it gets too narrow.
type connectorColumns struct {
	name, topic, state, tasks, parts, suspect, flush, perMin, activity, records int
}

func (s *connectorsScreen) columns() connectorColumns {
	n := s.needs
	c := connectorColumns{parts: min(n.parts, 16), suspect: len("SUSPECT"),
		flush: len("LAST FLUSH"), perMin: len("FLUSH/MIN")}
	if s.topics > 1 {
		c.topic = min(n.topic, 24)
	}
	if s.rest {
		c.state = min(n.state, 14)
		c.tasks = min(n.tasks, 20)
		if s.width < 100 { // "1/2 ✗1": the words only where there is room
			c.tasks = min(n.tasks, len("TASKS")+2)
		}
	}
	c.activity = min(max(12+(s.width-80)/4, 12), 24)
	if s.width >= 120 {
		c.records = n.records
	}
	// Cells are followed by a one-cell gap; the mark column takes two.
	used := func() int {
		w := 2 + 1
		for _, n := range []int{c.topic, c.state, c.tasks, c.parts, c.suspect, c.flush, c.perMin, c.activity, c.records} {
			if n > 0 {
				w += n + 1
			}
		}
		return w
	}
	// State outranks everything but the name: it says whether an edit
	// can go ahead.
	for _, drop := range []*int{&c.activity, &c.perMin, &c.topic, &c.suspect, &c.tasks, &c.flush} {
		if s.width-used() >= 16 {
			break
		}
		*drop = 0
	}
	// The name takes what it needs; more would only push the numbers away.
	c.name = min(max(s.width-used(), 4), n.name+2)
	return c
}

func partitionsCell(r model.ConnectorRow) string {
	if r.ID.Topic == "" { // known from REST only
		if r.REST.Type == "sink" {
			return "sink"
		}
		return "–"
	}
	if r.Deleted > 0 {
		return fmt.Sprintf("%s (%s del)", count(r.Partitions), count(r.Deleted))
	}
	return count(r.Partitions)
}

func (s *connectorsScreen) sync() {
	c := s.columns()
	var cols []table.Column
	add := func(title string, w int, right bool) {
		if w <= 0 {
			return
		}
		if right {
			title = fitRight(title, w)
		}
		cols = append(cols, table.Column{Title: title, Width: w})
	}
	add("CONNECTOR", c.name, false)
	add("OFFSETS TOPIC", c.topic, false)
	add("STATE", c.state, false)
	add("TASKS", c.tasks, false)
	add("PARTITIONS", c.parts, true)
	add("SUSPECT", c.suspect, true)
	add("LAST FLUSH", c.flush, true)
	add("FLUSH/MIN", c.perMin, true)
	add("RECORDS", c.records, true)
	add("ACTIVITY 2m", c.activity, false)
	s.list.sync(cols, func(r model.ConnectorRow) []string {
		var cells []string
		put := func(w int, v string) {
			if w > 0 {
				cells = append(cells, v)
			}
		}
		suspect := "–"
		if r.Suspect > 0 {
			suspect = "⚠ " + count(r.Suspect)
		}
		put(c.name, r.ID.Name)
		flush := age(s.now, lastFlush(r))
		if r.ID.Topic == "" { // known from REST only: no offsets to flush
			flush = "–"
		}
		put(c.topic, r.ID.Topic)
		put(c.state, truncate(restStateCell(r), c.state))
		put(c.tasks, restTasksCell(r, c.tasks))
		put(c.parts, fitRight(partitionsCell(r), c.parts))
		put(c.suspect, fitRight(suspect, c.suspect))
		put(c.flush, fitRight(flush, c.flush))
		put(c.perMin, fitRight(count(model.FlushesSince(r.Flushes, s.now.Add(-time.Minute))), c.perMin))
		put(c.records, fitRight(count(r.Records), c.records))
		put(c.activity, sparkline(model.FlushBuckets(r.Flushes, s.now, activitySpan, c.activity)))
		return cells
	})
}

func (s *connectorsScreen) View() string {
	title := titleLine(s.st, s.width, "Connectors "+count(len(s.list.items)), nil, s.list.viewInfo())
	empty := "No source connector offsets read yet."
	if s.rest {
		empty = "No connectors: none in the offsets topic, none listed by Connect's REST API."
	}
	if s.list.filter != "" && len(s.list.items) > 0 {
		empty = fmt.Sprintf("No connector name contains %q.", s.list.filter)
	}
	return title + "\n" + s.list.view(empty)
}

// ShortHelp names the connector-wide edits when editing is on; the
// unparseable key gives way to them (the header names it too).
func (s *connectorsScreen) ShortHelp() []key.Binding {
	keys := []key.Binding{s.km.Open, s.km.Filter, s.km.Sort, backBinding(s.km, s.list.filter, false)}
	if s.km.ResetAll.Enabled() {
		keys = append(keys, short(s.km.ResetAll, "reset"), short(s.km.Stop, "stop"), short(s.km.Resume, "resume"))
	} else {
		keys = append(keys, s.km.Unparseable)
	}
	return append(keys, s.km.Help, s.km.Quit)
}

func (s *connectorsScreen) FullHelp() [][]key.Binding {
	return append(tableFullHelp(s.km, s.km.Open, backBinding(s.km, s.list.filter, false), true, true),
		[]key.Binding{s.km.ResetAll, s.km.Stop, s.km.Resume, s.km.Undo})
}

// short is a binding with a shorter description, for the one-line help.
func short(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// moveList applies the movement keys to a list.
func moveList[T any](l *list[T], km *keymap.KeyMap, msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, km.Up):
		l.move(-1)
	case key.Matches(msg, km.Down):
		l.move(1)
	case key.Matches(msg, km.PageUp):
		l.pageUp()
	case key.Matches(msg, km.PageDown):
		l.pageDown()
	case key.Matches(msg, km.Home):
		l.home()
	case key.Matches(msg, km.End):
		l.end()
	default:
		return false
	}
	return true
}

// backBinding is Back as the help should show it: esc first clears an
// applied filter, then goes back; on the start screen without a filter it
// does nothing and is hidden.
func backBinding(km *keymap.KeyMap, filter string, canGoBack bool) key.Binding {
	b := km.Back
	switch {
	case filter != "":
		b.SetHelp(b.Help().Key, "clear filter")
	case !canGoBack:
		b.SetEnabled(false)
	}
	return b
}

// tableFullHelp is the full help of a table screen, in columns.
func tableFullHelp(km *keymap.KeyMap, open, back key.Binding, sort, unparseable bool) [][]key.Binding {
	s, u := km.Sort, km.Unparseable
	s.SetEnabled(sort)
	u.SetEnabled(unparseable)
	return [][]key.Binding{
		{km.Up, km.Down, km.PageUp, km.PageDown, km.Home, km.End},
		{open, back, km.Filter, s},
		{u, km.Help, km.Quit},
	}
}

// titleLine is a screen's first line: a bold title, muted details, and how
// the rows are viewed (sort, filter). When the line is too long the view
// moves to the right edge and the details are cut instead, so the sort and
// filter in force always show.
func titleLine(st *Styles, width int, title string, info, view []string) string {
	left := st.Title.Render(title)
	for _, i := range info {
		left += st.TitleInfo.Render(" · " + i)
	}
	right := strings.Join(view, " · ")
	if right == "" {
		return ansi.Truncate(left, width, "…")
	}
	if inline := left + st.TitleInfo.Render(" · "+right); ansi.StringWidth(inline) <= width {
		return inline
	}
	right = st.TitleInfo.Render(ansi.Truncate(right, width*2/3, "…"))
	return spread(left, right, width)
}
