// Package ui is koff's terminal dashboard: a Bubble Tea root model and one
// file per screen (connectors, source partitions, sink partitions,
// partition detail, unparseable records) or dialog (offset editor, sink
// offsets form, copy prompt, confirmation, context picker), all reading a
// store.Store through the Source interface.
//
// Over SSH every changed frame costs bytes on the wire, so the output
// changes only when something visible did: the tick re-reads the Source
// only when its version moved, and no more than Options.FPS times a
// second; ages move once a second, the spinner turns only while a job
// runs, and cursors do not blink. A key's effect is drawn at once: the
// program runs at FrameRate, whose frames cost nothing when nothing
// changed (the renderer sends only changed cells).
//
// It does no I/O in Update: the Store is fed by the tailer and the REST
// poller elsewhere, the UI takes in-memory snapshots of it on a tick, and
// edits, stop and resume run through the Editor inside tea.Cmds. It never
// imports kafka/ or connect/, and it reads the clock only through
// Options.Now, but for when its work off the UI goroutine gives way to
// keys (yield.go, waitForKeyPause), which shows in nothing it draws.
package ui

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"koff/keymap"
	"koff/model"
	"koff/model/store"
	"koff/ui/dialogs"
	"koff/ui/kit"
	"koff/ui/screens"
)

var _ kit.Source = (*store.Store)(nil)

// Options configure the dashboard.
type Options struct {
	Source kit.Source
	// Bootstrap and Topics are shown in the header: where koff reads from.
	Bootstrap string
	Topics    []string
	// Now is the clock for ages and sparklines (time.Now when nil).
	Now func() time.Time
	// FlushInterval is --flush-interval: the flush interval source
	// connectors are judged against (0: estimated from their flushes).
	FlushInterval time.Duration
	// KeyMap is keymap.Default() when left zero.
	KeyMap keymap.KeyMap
	// Editor plans and applies offset edits and stops and resumes
	// connectors; nil leaves every edit key disabled, saying why.
	Editor kit.Editor
	// REST says Connect's REST API is configured (--connect-url): stop and
	// resume need it.
	REST bool
	// ReadOnly disables every edit key (a press says why) and marks the
	// header. The Editor refuses writes on its own too.
	ReadOnly bool
	// ReadOnlyReason completes "read-only: …" when an edit key is pressed
	// ("started with --read-only" when empty).
	ReadOnlyReason string
	// Insecure is --insecure-skip-verify: the header says "⚠ TLS NOT
	// VERIFIED" for as long as it is on.
	Insecure bool

	// Contexts are the names of the config file's contexts, for ":" to
	// switch between; Context is the one in use (shown in the header),
	// and Accent its colour: a name ("red", "yellow", "blue", …),
	// "#rrggbb" or "" for the default (see ParseAccent; an invalid one is
	// the default too). ContextFile is where contexts are defined, for ":"
	// to say so when there are none.
	Contexts    []string
	Context     string
	Accent      string
	ContextFile string
	// Served says the dashboard is a koff serve session: every session
	// shares the one cluster koff serve was started on, with no contexts,
	// so ":" and a move (M) say where they are done instead.
	Served bool

	// FPS is the most data-driven redraws a second (DefaultFPS when 0):
	// the UI neither looks at the Source nor animates faster than that.
	// Keys are not limited by it: the caller runs the program at
	// FrameRate (tea.WithFPS), so a key shows in the next frame.
	FPS int

	// Interrupted is the header's warning that an edit stopped part way
	// and what to do ("" when none); it is asked on every frame.
	Interrupted func() string
}

// DefaultFPS is Options.FPS when it is 0: enough for live numbers, and few
// bytes a second on an SSH link.
const DefaultFPS = 4

// FrameRate is the frame rate to run the program at: a key press shows
// within 1/120 s. It costs no bytes when nothing changed, because the
// renderer writes only changed cells and the data-driven redraws are held
// to Options.FPS.
const FrameRate = 120

// minTick is the shortest interval at which the UI looks at the Source's
// version, and at which the spinner turns: with more frames a second the
// eye would not see more.
const minTick = 250 * time.Millisecond

// frameInterval is how often the UI looks at the Source and turns the
// spinner for fps frames a second.
func frameInterval(fps int) time.Duration {
	return max(time.Second/time.Duration(max(fps, 1)), minTick)
}

type tickMsg struct{}

// Model is the root Bubble Tea model: header, the active screen, and the
// help or filter line at the bottom. Screens sit on a stack; enter pushes,
// esc pops.
type Model struct {
	opts   Options
	km     keymap.KeyMap
	styles *kit.Styles

	now     time.Time // of the last render of ages
	version uint64
	// conns are the connectors as last read, for the header's counts of
	// those that need a look; health is those counts at now.
	conns  []model.ConnectorRow
	health health
	stats  model.Stats
	rest   model.RESTStatus

	width, height int
	stack         []screens.Screen

	filter    textinput.Model
	filtering bool
	help      help.Model
	helpPage  int // of the full help, while ? shows it
	progress  progress.Model

	// At most one dialog is open: a form (offset editor, sink offsets,
	// copy prompt) or a confirmation.
	form    dialogs.FormDialog
	confirm *dialogs.ConfirmDialog
	op      *dialogs.OperationDialog // a rename's steps, its new name typed to confirm
	state   *dialogs.StateDialog     // S or R, asking first
	status  status
	// busy names the job in flight ("" when none); jobSeq is its id.
	busy    string
	jobSeq  int
	spinner spinner.Model
	// planCancel cancels the plan job in flight (nil when none is): Esc
	// and q must not wait for a Connect that does not answer.
	planCancel context.CancelFunc
	jobCancel  context.CancelFunc
	// histCancel stops the partition detail's history read in flight.
	histCancel context.CancelFunc
	// commitGen is the Tailer's Reloaded of the history whose commit the
	// open edit was made from (t), nil when none is open: a reload since
	// closes it (dropCommitEdit).
	commitGen *time.Time

	// picker is ":" while open; switchTo is the context chosen in it.
	// quit asks before ctrl+c quits over an open dialog (nil when not
	// asking); the dialog stays under it.
	quit *dialogs.QuitDialog

	picker   *dialogs.ContextPicker
	switchTo string
	// every is how often the tick looks at the Source.
	every time.Duration
	// sized is the screen last given a size, and that size.
	sized sizedScreen
	// edited is when this dashboard last applied an edit to each
	// connector: the connector screen marks it on the flush timeline, as
	// an edit and not a flush.
	edited map[string]time.Time
	// loading: a snapshot of a big Source is being read; wantLoad: one
	// should be, as soon as none is in flight.
	loading, wantLoad bool
	nextLoad          time.Time // the earliest the next read may start
	// lastKey is when the last key was pressed (Unix ns, by the machine's
	// clock): a read of a big Source waits for keys to pause (keyPause).
	lastKey *atomic.Int64
}

type sizedScreen struct {
	s    screens.Screen
	w, h int
}

// New returns the dashboard, already showing what the Source holds.
func New(opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ReadOnlyReason == "" {
		opts.ReadOnlyReason = "started with --read-only"
	}
	if opts.FPS <= 0 {
		opts.FPS = DefaultFPS
	}
	km := opts.KeyMap
	if len(km.Quit.Keys()) == 0 {
		km = keymap.Default()
	}
	m := &Model{
		opts:    opts,
		lastKey: new(atomic.Int64),
		km:      km,
		styles:  &kit.Styles{},
		width:   80,
		height:  24,
		help:    help.New(),
		filter:  textinput.New(),
		every:   frameInterval(opts.FPS),
		edited:  map[string]time.Time{},
	}
	m.buildStyles(true) // dark until the terminal says otherwise
	m.filter.Prompt = "/ "
	m.filter.Placeholder = "filter"
	m.progress = progress.New(progress.WithoutPercentage(), progress.WithFillCharacters('█', '░'))
	// The spinner turns only while a job runs, and no faster than frames
	// are drawn.
	m.spinner = spinner.New(spinner.WithSpinner(spinner.Spinner{Frames: spinner.MiniDot.Frames, FPS: m.every}))
	m.applyEditAvailability()
	m.applyStyles()
	m.stack = []screens.Screen{screens.NewConnectorsScreen(&m.km, m.styles, opts.FlushInterval)}
	m.Refresh(m.opts.Now(), true)
	m.layout()
	return m
}

// Init starts the refresh tick and asks the terminal for its background.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, m.tick())
}

// tick comes every m.every, and at once when the tailer's state changes
// (Source.TailMoved): a new state (live once caught up, disconnected)
// shows as the Store hears of it, not up to a tick later.
func (m *Model) tick() tea.Cmd {
	every, moved := m.every, m.opts.Source.TailMoved(m.opts.Source.TailState())
	return func() tea.Msg {
		t := time.NewTimer(every)
		defer t.Stop()
		select {
		case <-t.C:
		case <-moved:
		}
		return tickMsg{}
	}
}

// buildStyles makes the styles for the background, with the context's
// accent.
func (m *Model) buildStyles(isDark bool) {
	*m.styles = kit.NewStyles(isDark)
	if c, err := ParseAccent(m.opts.Accent); err == nil && c != nil {
		m.styles.SetAccent(c)
	}
}

// Update hands each message family to its handler.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case tea.BackgroundColorMsg:
		m.buildStyles(msg.IsDark())
		m.applyStyles()
		m.top().Refresh(m.opts.Source, m.now, false)
		return m, nil
	case tickMsg:
		m.handleTick()
		m.dropCommitEdit()
		return m, tea.Batch(m.tick(), m.jobsCmd(), m.refreshHistory())
	case loadedMsg:
		m.handleLoaded(msg)
		return m, m.jobsCmd()
	case kit.ViewMsg:
		if v, ok := m.top().(viewer); ok {
			v.ViewDone(msg)
		}
		return m, m.jobsCmd()
	case tea.KeyPressMsg:
		m.lastKey.Store(time.Now().UnixNano())
		cmd := m.HandleKey(msg)
		m.layout()
		return m, tea.Batch(cmd, m.jobsCmd())
	case rekeyFieldsMsg:
		if f, ok := m.form.(*dialogs.RekeyForm); ok {
			f.SetFields(msg.connector, msg.fields)
		}
		return m, nil
	case historyMsg:
		return m, m.handleHistory(msg)
	case jobMsg:
		cmd := m.handleJob(msg)
		m.layout()
		return m, cmd
	case spinner.TickMsg:
		if m.busy == "" {
			return m, nil // nothing in flight: let the spinner stop
		}
		var cmd tea.Cmd
		m.spinner, cmd = m.spinner.Update(msg)
		return m, cmd
	}
	// Pastes and cursor blinks go to the input that has focus.
	switch {
	case m.picker != nil:
		return m, m.picker.Update(msg)
	case m.form != nil:
		return m, m.form.Update(msg)
	case m.confirm != nil:
		return m, m.confirm.Update(msg)
	case m.op != nil:
		return m, m.op.Update(msg)
	}
	if m.filtering { // the input's cursor blink
		var cmd tea.Cmd
		m.filter, cmd = m.filter.Update(msg)
		return m, cmd
	}
	return m, nil
}

// applyStyles passes the styles to the bubbles that keep their own copy.
func (m *Model) applyStyles() {
	m.help.Styles = m.styles.Help
	m.filter.SetStyles(m.styles.Filter)
	m.progress.FullColor = m.styles.BarFull
	m.progress.EmptyColor = m.styles.BarEmpty
	m.spinner.Style = m.styles.Spinner
}

// handleTick re-reads the Source when its version moved, and re-renders
// ages once a second even when it did not. A big Source is read off the
// UI goroutine (jobsCmd), and what is on screen meanwhile moves with the
// clock.
func (m *Model) handleTick() {
	now := m.opts.Now()
	reload := m.opts.Source.Version() != m.version
	if reload && m.big() {
		m.wantLoad, reload = true, false
	}
	if reload || now.Unix() != m.now.Unix() {
		m.Refresh(now, reload)
		m.layout() // the header can change height with the tailer state
	}
}

// refresh reads the Source into the header and the active screen.
func (m *Model) Refresh(now time.Time, reload bool) {
	m.refreshFrom(m.opts.Source, now, reload)
}

// refreshFrom reads src (the Source or a snapshot of it) into the header
// and the active screen. The version is read first, so a change made
// during the reads shows up at the next tick rather than being lost.
func (m *Model) refreshFrom(src kit.Source, now time.Time, reload bool) {
	m.now = now
	if reload {
		m.version = src.Version()
		m.stats = src.Stats()
		m.rest = src.REST()
	}
	if c, ok := m.top().(*screens.ConnectorsScreen); ok {
		c.Topics = len(m.topics())
	}
	m.top().Refresh(src, now, reload)
	if f, ok := m.form.(*dialogs.EditForm); ok && reload {
		f.Follow(src)
	}
	m.countHealth(src, now, reload)
}

func (m *Model) top() screens.Screen { return m.stack[len(m.stack)-1] }

// push opens a screen: it reads the Source at once, or, when that is big,
// shows what it has (the clock) until a snapshot lands.
func (m *Model) push(s screens.Screen) {
	m.stack = append(m.stack, s)
	m.layout()
	if m.big() {
		s.Refresh(m.opts.Source, m.now, false)
		m.wantLoad, m.nextLoad = true, time.Time{} // a new screen waits for no one
		return
	}
	s.Refresh(m.opts.Source, m.now, true)
}

func (m *Model) pop() {
	if _, ok := m.top().(*screens.DetailScreen); ok && m.histCancel != nil {
		m.histCancel() // nobody will see the history it reads
		m.histCancel = nil
	}
	if len(m.stack) > 1 {
		m.stack = m.stack[:len(m.stack)-1]
		m.layout()
		if m.big() {
			m.Refresh(m.now, false)
			m.wantLoad, m.nextLoad = true, time.Time{}
			return
		}
		m.Refresh(m.now, true)
	}
}

func (m *Model) HandleKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case m.quit != nil:
		return m.handleQuitKey(msg)
	case m.dialogOpen() && key.Matches(msg, m.km.ForceQuit):
		m.quit = dialogs.NewQuitDialog(&m.km, m.styles, m.dialogName(), m.busy)
		m.layout()
		return nil
	case m.picker != nil:
		return m.handlePickerKey(msg)
	case m.confirm != nil:
		return m.handleConfirmKey(msg)
	case m.op != nil:
		return m.handleOperationKey(msg)
	case m.state != nil:
		return m.handleStateKey(msg)
	case m.form != nil:
		return m.handleFormKey(msg)
	case m.filtering:
		return m.handleFilterKey(msg)
	}
	if !m.status.sticky {
		m.status = status{}
	}
	if cmd, ok := m.handleEditKey(msg); ok {
		return cmd
	}
	top := m.top()
	switch {
	case key.Matches(msg, m.km.Quit):
		m.cancelPlan()
		return tea.Quit
	case key.Matches(msg, m.km.Help):
		switch pages := len(m.fullHelpPages(m.bodyHeight())); {
		case !m.help.ShowAll:
			m.help.ShowAll, m.helpPage = true, 0
		case m.helpPage+1 < pages:
			m.helpPage++
		default:
			m.help.ShowAll = false
		}
	case m.help.ShowAll && key.Matches(msg, m.km.Back):
		m.help.ShowAll = false
	case key.Matches(msg, m.km.Clipboard):
		return m.copySelected()
	case key.Matches(msg, m.km.Context):
		return m.openPicker()
	case key.Matches(msg, m.km.Unparseable):
		if _, ok := top.(*screens.UnparseableScreen); !ok {
			m.push(screens.NewUnparseableScreen(&m.km, m.styles))
		}
	case key.Matches(msg, m.km.Back) && m.cancelPlan():
		m.setStatus(statusInfo, "cancelled: the plan's requests were stopped; nothing was changed")
	case key.Matches(msg, m.km.Back):
		if f, ok := top.(screens.Filterable); ok && f.FilterValue() != "" {
			f.SetFilter("")
		} else {
			m.pop()
		}
	case key.Matches(msg, m.km.Filter):
		if f, ok := top.(screens.Filterable); ok {
			m.filtering = true
			m.filter.SetValue(f.FilterValue())
			m.filter.CursorEnd()
			return m.filter.Focus()
		}
	case key.Matches(msg, m.km.Sort):
		if s, ok := top.(screens.Sortable); ok {
			s.CycleSort()
		}
	case key.Matches(msg, m.km.NewerCommit, m.km.OlderCommit):
		ds, ok := top.(*screens.DetailScreen)
		switch {
		case !ok:
			m.setStatus(statusInfo, fmt.Sprintf("%s/%s: choose a commit of a partition's history; open a source partition first (%s)",
				m.km.NewerCommit.Help().Key, m.km.OlderCommit.Help().Key, m.km.Open.Help().Key))
		case m.historyBlocked(ds) != "":
			m.setStatus(statusInfo, m.historyBlocked(ds))
		default:
			return m.handleAction(top.HandleKey(msg))
		}
	default:
		return m.handleAction(top.HandleKey(msg))
	}
	return nil
}

// handleFilterKey edits the filter, which applies to the table as it is
// typed.
func (m *Model) handleFilterKey(msg tea.KeyPressMsg) tea.Cmd {
	f, _ := m.top().(screens.Filterable)
	switch {
	case key.Matches(msg, m.km.ForceQuit):
		return tea.Quit
	case key.Matches(msg, m.km.FilterApply):
		m.stopFilter()
	case key.Matches(msg, m.km.FilterClear):
		f.SetFilter("")
		m.stopFilter()
	case key.Matches(msg, m.km.FilterUp, m.km.FilterDown):
		m.top().HandleKey(msg)
	default:
		var cmd tea.Cmd
		m.filter, cmd = m.filter.Update(msg)
		if v := m.filter.Value(); v != f.FilterValue() {
			f.SetFilter(v)
		}
		return cmd
	}
	return nil
}

func (m *Model) stopFilter() {
	m.filtering = false
	m.filter.Blur()
}

func (m *Model) handleAction(a screens.Action) tea.Cmd {
	topics := len(m.topics())
	switch a := a.(type) {
	case screens.OpenConnector:
		ps := screens.NewPartitionsScreen(&m.km, m.styles, a.Id, topics, m.opts.FlushInterval)
		ps.Edited = m.edited
		m.push(ps)
	case screens.OpenUnparseable:
		m.push(screens.NewUnparseableDetail(&m.km, m.styles, a.U))
	case screens.OpenSink:
		m.push(screens.NewSinkScreen(&m.km, m.styles, a.Name))
	case screens.OpenPartition:
		conn := model.ConnectorID{Topic: a.Id.Topic}
		if p, ok := m.top().(*screens.PartitionsScreen); ok {
			conn = p.ID
		}
		ds := screens.NewDetailScreen(&m.km, m.styles, conn, a.Id, topics)
		m.push(ds)
		return m.readHistory(ds)
	}
	return nil
}

// layout gives every part its size: the header and footer take what they
// need, the active screen gets the rest.
func (m *Model) layout() {
	m.help.SetWidth(m.width)
	m.filter.SetWidth(max(m.width/3, 10))
	header := len(m.headerLines())
	footer := strings.Count(m.footerView(), "\n") + 1
	// A screen lays its table out again on SetSize: only when its size
	// changed, not after every key.
	if sz := (sizedScreen{m.top(), m.width, max(m.height-header-footer, 3)}); sz != m.sized {
		m.sized = sz
		sz.s.SetSize(sz.w, sz.h)
	}
	w, h := kit.DialogSize(m.width, m.height)
	if m.form != nil {
		m.form.SetSize(w, h)
	}
	if m.confirm != nil {
		m.confirm.SetSize(w, h)
	}
	if m.op != nil {
		m.op.SetSize(w, h)
	}
	if m.state != nil {
		m.state.SetSize(w, h)
	}
	if m.picker != nil {
		m.picker.SetSize(m.width, m.height)
	}
	if m.quit != nil {
		m.quit.SetSize(w, h)
	}
}

// View renders header, screen and footer, cut to the terminal so nothing
// wraps or scrolls it.
func (m *Model) View() tea.View {
	header := m.headerLines()
	footer := strings.Split(m.footerView(), "\n")
	bodyH := max(m.height-len(header)-len(footer), 0)
	screen := m.top().View()
	if m.help.ShowAll { // the help takes the screen's place
		pages := m.fullHelpPages(bodyH)
		screen = pages[min(m.helpPage, len(pages)-1)]
	}
	body := fitLines(strings.Split(screen, "\n"), bodyH)
	lines := append(append(header, body...), footer...)
	lines = fitLines(lines, m.height)
	switch {
	case m.picker != nil:
		lines = kit.Overlay(lines, m.picker.View(), m.width)
	case m.form != nil:
		lines = kit.Overlay(lines, m.form.View(m.spinner.View()), m.width)
	case m.confirm != nil:
		lines = kit.Overlay(lines, m.confirm.View(m.spinner.View()), m.width)
	case m.op != nil:
		lines = kit.Overlay(lines, m.op.View(m.spinner.View()), m.width)
	case m.state != nil:
		lines = kit.Overlay(lines, m.state.View(), m.width)
	}
	if m.quit != nil {
		lines = kit.Overlay(lines, m.quit.View(), m.width)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > m.width {
			lines[i] = ansi.Truncate(l, m.width, "")
		}
	}
	v := tea.NewView(kit.GuardFrame(strings.Join(lines, "\n")))
	v.AltScreen = true
	v.WindowTitle = "koff"
	return v
}

// bodyHeight is the room between the header and the footer.
func (m *Model) bodyHeight() int {
	return max(m.height-len(m.headerLines())-strings.Count(m.footerView(), "\n")-1, 1)
}

// fitLines pads or cuts lines to exactly n.
func fitLines(lines []string, n int) []string {
	if len(lines) > n {
		return lines[:n]
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines
}
