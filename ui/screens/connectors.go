package screens

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"koff/keymap"
	"koff/model"
	"koff/model/resume"
	"koff/model/text"
	"koff/ui/kit"
)

// activitySpan is how far back the flush sparkline looks; it is drawn in
// minActivity to maxActivity cells.
const (
	activitySpan = 2 * time.Minute
	minActivity  = 12
	maxActivity  = 24
)

// connRow is one row of the connectors table: the Store's row and, for a
// source, its flush lag judged at the screen's now.
type connRow struct {
	model.ConnectorRow
	Judged model.FlushReport
	// now is when the row was last judged: a REST state kept while REST
	// is out of reach shows its age.
	now time.Time
}

func (r connRow) IsSink() bool { return r.Type == "sink" }

// connectorsScreen is the start screen: one row per connector, sources and
// sinks together.
type ConnectorsScreen struct {
	km   *keymap.KeyMap
	st   *kit.Styles
	List kit.List[connRow]
	now  time.Time
	// interval is --flush-interval (0: estimate each connector's).
	interval time.Duration
	// topics is how many offsets topics koff reads: the topic column shows
	// only when there is more than one.
	Topics        int
	width, height int
	needs         connectorNeeds
	// rest: the Store has a REST view, so STATE and TASKS show.
	rest bool
}

// connectorNeeds are the widths the rows need, measured when the Source
// changes rather than on every key, and which kinds of rows there are.
type connectorNeeds struct {
	name, topic, parts, records, state, tasks, group int
	// resume is the widest RESUME cell with its amount, resumeWord the
	// widest without.
	resume, resumeWord int
	// resumeBad: a row's restart has a gap or a replay.
	resumeBad      bool
	sources, sinks bool
	// stale: a row's REST state is from before REST went out of reach.
	stale bool
}

func (s *ConnectorsScreen) measure() {
	n := connectorNeeds{name: len("CONNECTOR"), topic: len("OFFSETS IN"), parts: len("PARTS"), records: len("RECORDS"),
		state: len("STATE"), tasks: len("TASKS"), group: len("GROUP"), resume: len("RESUME"), resumeWord: len("RESUME")}
	for _, r := range s.List.Items {
		n.name = max(n.name, ansi.StringWidth(kit.Clean(r.ID.Name)))
		n.topic = max(n.topic, ansi.StringWidth(topicCell(r)))
		n.parts = max(n.parts, ansi.StringWidth(partitionsCell(r)))
		n.records = max(n.records, len(kit.Count(r.Records)))
		w := ansi.StringWidth(connStateCell(r)) + failedWidth(r)
		if r.RESTStale != "" && r.InREST {
			w += 2 // room for the age to grow: "9s" → "10m"
			n.stale = true
		}
		n.state = max(n.state, w)
		n.tasks = max(n.tasks, ansi.StringWidth(kit.RESTTasksCell(r.ConnectorRow, 1000)))
		if c := r.Resume; c != nil {
			n.resume = max(n.resume, kit.ResumeWidth(c.State, c.Lost, c.Replayed))
			n.resumeWord = max(n.resumeWord, ansi.StringWidth(string(c.State)))
			n.resumeBad = n.resumeBad || c.State == resume.Gap || c.State == resume.Replay
		}
		if r.IsSink() {
			n.sinks = true
			n.group = max(n.group, ansi.StringWidth(kit.GroupCell(r.Sink)))
		} else {
			n.sources = true
		}
	}
	s.needs = n
}

func NewConnectorsScreen(km *keymap.KeyMap, st *kit.Styles, interval time.Duration) *ConnectorsScreen {
	s := &ConnectorsScreen{km: km, st: st, interval: interval}
	s.List = kit.NewList(st,
		func(r connRow) string { return r.ID.Topic + "\x00" + r.ID.Name + "\x00" + r.Type },
		func(r connRow, q string) bool {
			return strings.Contains(strings.ToLower(r.ID.Name), q) ||
				(s.Topics > 1 && strings.Contains(strings.ToLower(topicCell(r)), q)) ||
				q == r.Type || q == typeCell(r, false) || // "sink", "source", "src": a kind, not a substring
				r.Resume != nil && q == string(r.Resume.State) || // "gap", "replay": a resume state
				(s.rest && strings.Contains(strings.ToLower(connStateCell(r)), q))
		},
		// Worst first is the default: at 3 a.m. the rows that need a look
		// come first, whatever the width.
		kit.SortOrder[connRow]{Name: "status, worst first", Cmp: byStatus},
		kit.SortOrder[connRow]{Name: "name", Cmp: byConnectorName},
		kit.SortOrder[connRow]{Name: "lag (biggest first)", Cmp: func(a, b connRow) int {
			return cmp.Or(cmp.Compare(lagRank(b), lagRank(a)), byConnectorName(a, b))
		}},
		kit.SortOrder[connRow]{Name: "last flush (oldest first)", Cmp: func(a, b connRow) int {
			return cmp.Or(lastFlush(a).Compare(lastFlush(b)), byConnectorName(a, b))
		}},
		kit.SortOrder[connRow]{Name: "partitions (most first)", Cmp: func(a, b connRow) int {
			return cmp.Or(cmp.Compare(b.Partitions, a.Partitions), byConnectorName(a, b))
		}},
		kit.SortOrder[connRow]{Name: "suspect (most first)", Cmp: func(a, b connRow) int {
			return cmp.Or(cmp.Compare(b.Suspect, a.Suspect), byConnectorName(a, b))
		}},
		kit.SortOrder[connRow]{Name: "resume, worst first", Cmp: func(a, b connRow) int {
			return cmp.Or(cmp.Compare(resumeRank(b), resumeRank(a)), cmp.Compare(lostRank(b), lostRank(a)), byConnectorName(a, b))
		}},
	)
	return s
}

// byStatus puts the rows that need a look first, the longest silent first
// among them; the rest stay in name order, so that rows flushing all the
// time do not swap places on every flush (a screen of them would be redrawn
// whole several times a second, and no row would stay where the eye left
// it).
func byStatus(a, b connRow) int {
	ra, rb := statusRank(a), statusRank(b)
	if c := cmp.Compare(ra, rb); c != 0 || ra >= rankSettled {
		return cmp.Or(c, byConnectorName(a, b))
	}
	return cmp.Or(lastFlush(a).Compare(lastFlush(b)), byConnectorName(a, b))
}

// rankSettled is the first statusRank of rows that need no look (unknown,
// idle, ok).
const rankSettled = 4

func byConnectorName(a, b connRow) int {
	return cmp.Or(strings.Compare(a.ID.Name, b.ID.Name), strings.Compare(a.ID.Topic, b.ID.Topic), strings.Compare(a.Type, b.Type))
}

// statusRank orders rows by how much they need a look: stalled sources,
// failed connectors or tasks and failed polls first, then growing sinks
// and connectors whose restart skips data (a resume gap), late sources
// and restarts that read data again (a replay), suspect keys, and healthy
// ones last.
func statusRank(r connRow) int {
	rank := flushRank(r)
	if r.Resume != nil {
		switch r.Resume.State {
		case resume.Gap:
			rank = min(rank, 1)
		case resume.Replay:
			rank = min(rank, 2)
		}
	}
	if r.Suspect > 0 {
		rank = min(rank, 3)
	}
	return rank
}

// flushRank is statusRank by Connect's state, a sink's lag and a
// source's flushes alone.
func flushRank(r connRow) int {
	if r.InREST && (r.REST.State == "FAILED" || kit.FailedTasks(r.REST) > 0) {
		return 0
	}
	if r.IsSink() {
		switch s := r.Sink; {
		case s == nil || s.At.IsZero() && s.Err == "":
			return 5
		case s.Err != "":
			return 0
		case s.Trend == "growing":
			return 1
		case s.Trend == "":
			return 4
		}
		return 6
	}
	switch r.Judged.Status {
	case model.FlushStalled:
		return 0
	case model.FlushLate:
		return 2
	case model.FlushUnknown:
		return 4
	case model.FlushIdle:
		return 5
	}
	return 6
}

// resumeRank orders resume states as the resume sort shows them: gap,
// replay, unknown, resumes, then rows not checked.
func resumeRank(r connRow) int {
	if r.Resume == nil {
		return -1
	}
	switch r.Resume.State {
	case resume.Gap:
		return 3
	case resume.Replay:
		return 2
	case resume.Unknown:
		return 1
	}
	return 0
}

// lostRank is how much a restart loses or reads again, in records, else
// bytes: the bigger first within a state.
func lostRank(r connRow) int64 {
	if r.Resume == nil {
		return -1
	}
	a := r.Resume.Lost
	if r.Resume.State == resume.Replay {
		a = r.Resume.Replayed
	}
	return max(a.Records, a.Bytes)
}

// lagRank is what the lag sort orders by: a sink's total lag, a source's
// unflushed records (the records either would still have to process or
// replay); -1 when unknown.
func lagRank(r connRow) int64 {
	if r.IsSink() {
		if r.Sink == nil || r.Sink.At.IsZero() {
			return -1
		}
		return r.Sink.TotalLag
	}
	if r.ID.Topic == "" {
		return -1
	}
	return r.Judged.Unflushed
}

// lastFlush is when the connector last committed offsets.
func lastFlush(r connRow) time.Time {
	if n := len(r.Flushes); n > 0 {
		return r.Flushes[n-1].End
	}
	if r.IsSink() && r.Sink != nil {
		return r.Sink.LastCommit
	}
	return r.LastUpdate
}

func (s *ConnectorsScreen) Refresh(src kit.Source, now time.Time, reload bool) {
	s.now = now
	if reload {
		s.rest = kit.RESTAvailable(src.REST())
		rows := src.Connectors()
		items := make([]connRow, len(rows))
		for i, r := range rows {
			items[i] = connRow{ConnectorRow: r, now: now}
		}
		s.List.Items = items
		s.measure()
	}
	// Flush status moves with the clock: judge again, then sort again.
	for i := range s.List.Items {
		r := &s.List.Items[i]
		r.now = now
		if !r.IsSink() {
			r.Judged = kit.JudgeFlush(r.ConnectorRow, now, s.interval)
		}
	}
	s.List.Apply()
	s.Sync()
}

func (s *ConnectorsScreen) SetSize(width, height int) {
	s.width, s.height = width, height
	s.List.SetSize(width, height-3) // title line, table header, detail line
	s.Sync()
}

func (s *ConnectorsScreen) Selected() (connRow, bool) {
	return s.List.Selected()
}

func (s *ConnectorsScreen) FilterValue() string { return s.List.Filter }
func (s *ConnectorsScreen) SetFilter(q string)  { s.List.SetFilter(q); s.Sync() }
func (s *ConnectorsScreen) CycleSort()          { s.List.CycleSort(); s.Sync() }

func (s *ConnectorsScreen) HandleKey(msg tea.KeyPressMsg) Action {
	if moveList(&s.List, s.km, msg) {
		s.Sync()
		return nil
	}
	if key.Matches(msg, s.km.Open) {
		if r, ok := s.Selected(); ok {
			if r.IsSink() {
				return OpenSink{r.ID.Name}
			}
			return OpenConnector{r.ID}
		}
	}
	return nil
}

// connectorColumns lays the columns out for the width: the name takes the
// slack, and the least important columns go first when it gets too narrow.
type connectorColumns struct {
	name, typ, topic, state, tasks, parts, suspect, status, flushLag, interval,
	unflushed, catchUp, group, perMin, records, activity, resume int
	wideType bool
}

func (s *ConnectorsScreen) columns() connectorColumns {
	n := s.needs
	c := connectorColumns{typ: len("sink"), parts: min(n.parts, 16), suspect: len("SUSPECT"),
		status: len("STATUS"), flushLag: len("FLUSH/LAG")}
	for _, r := range s.List.Items {
		c.status = max(c.status, ansi.StringWidth(s.statusText(r)))
	}
	if s.width >= 120 {
		c.typ, c.wideType = len("source"), true
	}
	if s.Topics > 1 {
		c.topic = min(n.topic, 30)
	}
	if s.rest {
		c.state = min(n.state, 14)
		if n.stale && s.width >= 80 {
			c.state = min(n.state, 20) // "● RUNNING (13s ago)": an outage shows
		}
		c.tasks = min(n.tasks, len("TASKS")+2) // "1/2 ✗1"; in words below, where there is room
	}
	c.resume = min(n.resume, 14)
	if n.sources || !n.sinks {
		c.interval, c.unflushed, c.perMin = len("INTERVAL"), len("UNFLUSHED"), len("FLUSH/MIN")
		c.activity = min(max(minActivity+(s.width-80)/4, minActivity), maxActivity)
		c.records = n.records
	} else {
		c.suspect = 0
	}
	if n.sinks {
		c.catchUp, c.group = len("CATCH-UP"), min(n.group, 24)
		for _, r := range s.List.Items {
			if r.Sink != nil {
				c.catchUp = max(c.catchUp, ansi.StringWidth(kit.CatchUpCell(r.Sink))) // "caught up" whole
			}
		}
	}
	// Cells are followed by a one-cell gap; the mark column takes two.
	all := []*int{&c.typ, &c.topic, &c.state, &c.tasks, &c.parts, &c.suspect, &c.status, &c.flushLag,
		&c.interval, &c.unflushed, &c.catchUp, &c.group, &c.perMin, &c.records, &c.activity, &c.resume}
	used := func() int {
		w := 2 + 1
		for _, n := range all {
			if *n > 0 {
				w += *n + 1
			}
		}
		return w
	}
	// Least important first. The name, the state (whether an edit can go
	// ahead), the status and the flush age or lag go last: they answer
	// "is it keeping up?". The topic tells apart connectors of the same
	// name in two offsets topics (two Connect clusters), so it stays
	// longer than most; the sparkline narrows before it goes.
	nameW := min(max(n.name, 16), 22) // room for most names, without losing a column to a long one
	// The column the rows are sorted by stays, whatever the width.
	sorted := map[string]*int{"partitions (most first)": &c.parts, "suspect (most first)": &c.suspect, "resume, worst first": &c.resume}[s.List.SortName()]
	// RESUME goes after the interval; when a restart would lose data or
	// read it again (a gap, a replay), it outlasts every column but the
	// status and the flush age or lag, Connect's state too. It gives up
	// its amounts before the word goes.
	drops := []*int{&c.records, &c.perMin, &c.parts, &c.tasks, &c.activity, &c.suspect, &c.topic,
		&c.group, &c.interval, &c.resume, &c.catchUp, &c.unflushed, &c.typ, &c.state}
	if n.resumeBad {
		drops = []*int{&c.records, &c.perMin, &c.parts, &c.tasks, &c.activity, &c.suspect, &c.topic,
			&c.group, &c.interval, &c.catchUp, &c.unflushed, &c.typ, &c.state, &c.resume}
	}
	for _, drop := range drops {
		if s.width-used() >= nameW {
			break
		}
		if drop == &c.resume || n.resumeBad && drop == &c.state {
			// Before RESUME (or, with a gap, the state) goes, the name
			// gives up a few cells (down to 16) when a row has a gap or
			// a replay (a gap is worth a shorter name), then RESUME its
			// amounts.
			floor := nameW
			if n.resumeBad {
				floor = min(nameW, 16)
			}
			if s.width-used() >= floor {
				break
			}
			c.resume = min(c.resume, n.resumeWord)
			if s.width-used() >= floor {
				break
			}
		}
		if drop == sorted {
			continue
		}
		if drop == &c.activity && c.activity > minActivity {
			c.activity = max(minActivity, c.activity-(nameW-(s.width-used())))
			if s.width-used() >= nameW {
				break
			}
		}
		*drop = 0
	}
	// RESUME gets back the amounts it gave up for a column that went.
	if c.resume > 0 {
		c.resume = min(c.resume+max(s.width-used()-nameW, 0), min(n.resume, 14))
	}
	// Slack beyond what the name needs: the sparkline, then the tasks in
	// Connect's words ("1 running, 1 failed").
	slack := func() int { return s.width - used() - (max(n.name, 18) + 2) }
	if c.activity > 0 && slack() > 0 {
		c.activity = min(c.activity+slack(), maxActivity)
	}
	if c.tasks > 0 {
		if wide := min(n.tasks, 20); slack() >= wide-c.tasks {
			c.tasks = wide
		}
	}
	// The name takes what it needs; more would only push the numbers away.
	c.name = min(max(s.width-used(), 4), max(n.name, 18)+2)
	return c
}

func partitionsCell(r connRow) string {
	if r.IsSink() {
		if r.Sink == nil || r.Sink.At.IsZero() {
			return "–"
		}
		return kit.Count(r.Sink.Partitions)
	}
	if r.ID.Topic == "" { // known from REST only
		return "–"
	}
	if r.Deleted > 0 {
		return fmt.Sprintf("%s (%s del)", kit.Count(r.Partitions), kit.Count(r.Deleted))
	}
	return kit.Count(r.Partitions)
}

// topicCell is where the row's offsets are: the offsets topic (marked
// when it is not the one the connector's tasks read), or a sink's group.
func topicCell(r connRow) string {
	switch {
	case r.IsSink() && r.Sink != nil:
		return "group " + kit.Clean(r.Sink.Group)
	case r.ID.Topic == "":
		return "–"
	case !r.Authoritative():
		return kit.Clean(r.ID.Topic) + " ◇" // STATE says "◇ secondary"
	}
	return kit.Clean(r.ID.Topic)
}

// Glyphs of the states koff adds to Connect's.
const (
	orphanedText  = "⊘ orphaned"
	secondaryText = "◇ secondary"
)

// connStateCell is the STATE cell: Connect's state, or that REST no longer
// lists the connector (orphaned), or that this row's offsets topic is not
// the one its tasks read (secondary).
func connStateCell(r connRow) string {
	switch {
	case r.Orphaned:
		return orphanedText
	case !r.Authoritative():
		return secondaryText
	}
	return kit.RESTStateCell(r.ConnectorRow, r.now)
}

func (s *ConnectorsScreen) connStateStyle(r connRow) lipgloss.Style {
	switch {
	case r.Orphaned:
		return s.st.Warn
	case !r.Authoritative():
		return s.st.Muted
	case !r.InREST, r.RESTStale != "":
		return s.st.Muted
	}
	return s.st.StateStyle(r.REST.State)
}

// failedWidth is the room " ✗N" takes after a state.
func failedWidth(r connRow) int {
	if n := kit.FailedTasks(r.REST); n > 0 && r.InREST {
		return len(fmt.Sprintf(" ✗%d", n)) - 2 // ✗ is one cell, three bytes
	}
	return 0
}

// statusText is the STATUS cell: a source's flush status, a sink's lag
// trend, each with its glyph.
func (s *ConnectorsScreen) statusText(r connRow) string {
	switch {
	case r.IsSink():
		return kit.SinkStatus(r.Sink)
	case r.ID.Topic == "": // known from REST only
		return "– no offsets"
	}
	return kit.FlushText(r.Judged.Status)
}

func typeCell(r connRow, wide bool) string {
	switch {
	case r.IsSink():
		return "sink"
	case wide:
		return "source"
	}
	return "src"
}

func (s *ConnectorsScreen) Sync() {
	c := s.columns()
	var cols []table.Column
	add := func(title string, w int, right bool) {
		if w <= 0 {
			return
		}
		if right {
			title = kit.FitRight(title, w)
		}
		cols = append(cols, table.Column{Title: title, Width: w})
	}
	add("CONNECTOR", c.name, false)
	add("TYPE", c.typ, false)
	add("OFFSETS IN", c.topic, false)
	add("STATE", c.state, false)
	add("TASKS", c.tasks, false)
	add("PARTS", c.parts, true)
	add("SUSPECT", c.suspect, true)
	add("STATUS", c.status, false)
	add("FLUSH/LAG", c.flushLag, true)
	add("RESUME", c.resume, false)
	add("INTERVAL", c.interval, true)
	add("UNFLUSHED", c.unflushed, true)
	add("CATCH-UP", c.catchUp, true)
	add("GROUP", c.group, false)
	add("FLUSH/MIN", c.perMin, true)
	add("RECORDS", c.records, true)
	add("ACTIVITY 2m", c.activity, false)
	st := s.st
	s.List.Sync(cols, func(r connRow) []string {
		var cells []string
		put := func(w int, v string) {
			if w > 0 {
				cells = append(cells, v)
			}
		}
		// style colours a cell already cut to its width.
		style := func(l lipgloss.Style, v string, w int, right bool) string {
			if right {
				return l.Render(kit.FitRight(v, w))
			}
			return l.Render(kit.Truncate(v, w))
		}
		sink, src := r.IsSink(), !r.IsSink()
		noOffsets := src && r.ID.Topic == "" // known from REST only
		// na is a cell that means nothing for this kind of row.
		na := func(v string) string {
			if v == "" {
				return "–"
			}
			return v
		}
		name := kit.Clean(r.ID.Name)
		if c.suspect == 0 && r.Suspect > 0 { // no SUSPECT column: the row says it
			name = "⚠ " + name
		}
		put(c.name, kit.Truncate(name, c.name))
		put(c.typ, typeCell(r, c.wideType))
		put(c.topic, kit.Truncate(topicCell(r), c.topic))
		state := connStateCell(r)
		if c.tasks == 0 && r.InREST && r.Authoritative() { // no TASKS column: a failed task shows here
			if failed := kit.FailedTasks(r.REST); failed > 0 {
				state += fmt.Sprintf(" ✗%d", failed)
			}
		}
		put(c.state, style(s.connStateStyle(r), state, c.state, false))
		put(c.tasks, kit.RESTTasksCell(r.ConnectorRow, c.tasks))
		put(c.parts, kit.FitRight(partitionsCell(r), c.parts))
		suspect := "–"
		if r.Suspect > 0 {
			suspect = "⚠ " + kit.Count(r.Suspect)
		}
		put(c.suspect, kit.FitRight(suspect, c.suspect))
		var status, flushLag, interval, unflushed, catchUp, group, perMin, records, activity string
		switch {
		case sink:
			status = style(st.SinkStyle(r.Sink), s.statusText(r), c.status, false)
			flushLag, catchUp, group = kit.LagCell(r.Sink), kit.CatchUpCell(r.Sink), kit.GroupCell(r.Sink)
		case noOffsets:
			status = style(st.Muted, s.statusText(r), c.status, false)
		default:
			status = style(st.FlushStyle(r.Judged.Status), s.statusText(r), c.status, false)
			flushLag = kit.Age(s.now, lastFlush(r))
			interval, unflushed = kit.IntervalCell(r.Judged), kit.UnflushedCell(kit.ShownUnflushed(r.ConnectorRow, r.Judged))
			perMin = kit.Count(model.FlushesSince(r.Flushes, s.now.Add(-time.Minute)))
			records = kit.Count(r.Records)
			activity = kit.Sparkline(model.FlushBuckets(r.Flushes, s.now, activitySpan, c.activity))
		}
		put(c.status, status)
		put(c.flushLag, kit.FitRight(na(flushLag), c.flushLag))
		put(c.resume, s.resumeCell(r, c.resume))
		put(c.interval, kit.FitRight(na(interval), c.interval))
		put(c.unflushed, kit.FitRight(na(unflushed), c.unflushed))
		put(c.catchUp, kit.FitRight(na(catchUp), c.catchUp))
		put(c.group, kit.Truncate(na(group), c.group))
		put(c.perMin, kit.FitRight(na(perMin), c.perMin))
		put(c.records, kit.FitRight(na(records), c.records))
		put(c.activity, activity)
		return cells
	})
}

func (s *ConnectorsScreen) View() string {
	var info []string
	if n := s.needs; n.sinks {
		sources, sinks := 0, 0
		for _, r := range s.List.Items {
			if r.IsSink() {
				sinks++
			} else {
				sources++
			}
		}
		info = append(info, kit.Plural(sources, "source", "sources"), kit.Plural(sinks, "sink", "sinks"))
	}
	title := titleLine(s.st, s.width, "Connectors "+kit.Count(len(s.List.Items)), info, s.List.ViewInfo())
	empty := "No source connector offsets read yet."
	if s.rest {
		empty = "No connectors: none in the offsets topic, none listed by Connect's REST API."
	}
	if s.List.Filter != "" && len(s.List.Items) > 0 {
		empty = fmt.Sprintf("No connector name contains %q.", s.List.Filter)
	}
	return title + "\n" + s.List.View(empty) + "\n" + s.detailLine()
}

// lookAlike is another connector whose name reads the same as name.
func (s *ConnectorsScreen) lookAlike(name string) (string, bool) {
	sk := text.Skeleton(name)
	for _, it := range s.List.Items {
		if it.ID.Name != name && text.Skeleton(it.ID.Name) == sk {
			return it.ID.Name, true
		}
	}
	return "", false
}

// detailLine is the selected connector's status in words under the
// table: why it is stalled or late, a sink's lag and catch-up, its
// suspect keys, which a narrow table has no room for.
func (s *ConnectorsScreen) detailLine() string {
	r, ok := s.Selected()
	if !ok {
		return ""
	}
	st := s.st
	parts := []string{st.Title.Render(kit.Clean(r.ID.Name))}
	if other, ok := s.lookAlike(r.ID.Name); ok {
		// Before the rest: a line cut at the right must keep it.
		parts = append(parts, st.Warn.Render("⚠ looks like "+kit.Clean(other)))
	}
	// A restart that loses or reads data again comes first: a line cut
	// at the right keeps it.
	bad := r.Resume != nil && (r.Resume.State == resume.Gap || r.Resume.State == resume.Replay)
	if bad {
		parts = append(parts, resumeDetail(st, r.Resume))
	}
	switch {
	case r.IsSink():
		parts = append(parts, st.SinkStyle(r.Sink).Render(kit.SinkStatus(r.Sink)), "lag "+kit.LagCell(r.Sink), "catch-up "+kit.CatchUpCell(r.Sink))
	case r.ID.Topic == "":
		parts = append(parts, st.Muted.Render("no offsets in the offsets topics"))
	default:
		status := st.FlushStyle(r.Judged.Status).Render(kit.FlushText(r.Judged.Status))
		if r.Judged.Reason != "" {
			status += ": " + r.Judged.Reason
		}
		parts = append(parts, status)
	}
	if n := kit.FailedTasks(r.REST); n > 0 && r.InREST {
		parts = append(parts, st.Bad.Render(fmt.Sprintf("✗ %s failed", kit.Plural(n, "task", "tasks"))))
	}
	if r.Suspect > 0 {
		parts = append(parts, st.Warn.Render("⚠ "+kit.Plural(r.Suspect, "suspect key", "suspect keys")))
	}
	if !bad && r.Resume != nil {
		parts = append(parts, resumeDetail(st, r.Resume))
	}
	return kit.Truncate("↳ "+strings.Join(parts, st.Muted.Render(" · ")), s.width)
}

// ShortHelp names the connector-wide edits when editing is on; the
// unparseable key gives way to them (the header names it too).
func (s *ConnectorsScreen) ShortHelp() []key.Binding {
	keys := []key.Binding{s.km.Open, s.km.Filter, s.km.Sort, backBinding(s.km, s.List.Filter, false)}
	if s.km.ResetAll.Enabled() {
		keys = append(keys, kit.Short(s.km.ResetAll, "reset"))
		// An orphan's offsets wait for a connector of its name: copying
		// them to its successor is what an operator looks for here.
		if r, ok := s.Selected(); ok && r.Orphaned && !r.IsSink() {
			keys = append(keys, kit.Short(s.km.Copy, "copy to…"))
		}
		keys = append(keys, kit.Short(s.km.Stop, "stop"), kit.Short(s.km.Resume, "resume"))
	} else {
		keys = append(keys, s.km.Unparseable)
	}
	return append(keys, s.km.Help, s.km.Quit)
}

func (s *ConnectorsScreen) FullHelp() [][]key.Binding {
	return append(tableFullHelp(s.km, s.km.Open, backBinding(s.km, s.List.Filter, false), true, true, "copy name"),
		[]key.Binding{s.km.ResetAll, kit.Short(s.km.Copy, "copy offsets to…"), kit.Short(s.km.Rename, "rename…"), kit.Short(s.km.Rekey, "rekey…"), kit.Short(s.km.Move, "move…"), kit.Short(s.km.Create, "create like this…"), s.km.RewindTime, s.km.Stop, s.km.Resume, s.km.Undo})
}

// moveList applies the movement keys to a list.
func moveList[T any](l *kit.List[T], km *keymap.KeyMap, msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, km.Up):
		l.Move(-1)
	case key.Matches(msg, km.Down):
		l.Move(1)
	case key.Matches(msg, km.PageUp):
		l.PageUp()
	case key.Matches(msg, km.PageDown):
		l.PageDown()
	case key.Matches(msg, km.Home):
		l.Home()
	case key.Matches(msg, km.End):
		l.End()
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

// tableFullHelp is the full help of a table screen, in columns. copyDesc says
// what y copies there ("" when nothing). A screen's edits make a fourth
// column, so each column is kept narrow enough for all four to fit in 80
// columns: the help bubble drops a column that does not fit.
func tableFullHelp(km *keymap.KeyMap, open, back key.Binding, sort, unparseable bool, copyDesc string) [][]key.Binding {
	s, u, y := km.Sort, km.Unparseable, km.Clipboard
	s.SetEnabled(sort)
	u.SetEnabled(unparseable)
	y.SetEnabled(copyDesc != "")
	y.SetHelp(y.Help().Key, copyDesc)
	return [][]key.Binding{
		{km.Up, km.Down, km.PageUp, km.PageDown, km.Home, km.End},
		{open, back, km.Filter, s, y, km.Context},
		{u, km.Help, km.Quit},
	}
}

// titleLine is a screen's first line: a bold title, muted details, and how
// the rows are viewed (sort, filter). When the line is too long the view
// moves to the right edge and the details are cut instead, so the sort and
// filter in force always show.
func titleLine(st *kit.Styles, width int, title string, info, view []string) string {
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
	return kit.Spread(left, right, width)
}

// clip on the connectors table is the selected connector's name.
func (s *ConnectorsScreen) Clip() (string, string, error) {
	r, ok := s.Selected()
	if !ok {
		return "", "", errors.New("no connector selected")
	}
	return r.ID.Name, "connector name " + r.ID.Name, nil
}

// resumeCell is the RESUME cell: the connector's resume state, with what
// a gap loses or a replay reads again where it fits.
func (s *ConnectorsScreen) resumeCell(r connRow, w int) string {
	if r.Resume == nil {
		return s.st.Muted.Render(kit.Truncate(kit.NotChecked, w))
	}
	return s.st.ResumeStyle(r.Resume.State).Render(kit.Truncate(kit.ConnectorResumeCell(r.Resume, w), w))
}

// resumeDetail is the detail line's word on the resume check: what a
// restart loses or reads again, on how many partitions, or why koff could
// not check; "" before a check.
func resumeDetail(st *kit.Styles, r *model.ConnectorResume) string {
	if r == nil {
		return ""
	}
	total := 0
	for _, n := range r.Counts {
		total += n
	}
	on := func(n int) string {
		if total <= 1 {
			return ""
		}
		return fmt.Sprintf(" on %d of %d partitions", n, total)
	}
	text := "resume " + string(r.State)
	switch r.State {
	case resume.Resumes:
		text = "resumes where its offsets say"
	case resume.Gap:
		if a := model.ResumeAmountText(r.Lost); a != "" {
			text += ": " + a + " lost"
		}
		text += on(r.Counts[resume.Gap])
	case resume.Replay:
		if a := model.ResumeAmountText(r.Replayed); a != "" {
			text += ": " + a + " read again"
		}
		text += on(r.Counts[resume.Replay])
	case resume.Unknown:
		if r.Reason != "" {
			text += ": " + kit.Clean(r.Reason)
		} else {
			text += on(r.Counts[resume.Unknown])
		}
	}
	return st.ResumeStyle(r.State).Render(text)
}
