package screens

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"koff/keymap"
	"koff/model"
	"koff/model/resume"
	"koff/ui/kit"
)

// sinkScreen shows one sink connector: its consumer group, and the
// committed offset, end offset and lag of every topic-partition it reads.
type SinkScreen struct {
	km   *keymap.KeyMap
	st   *kit.Styles
	Name string
	// row is the connector's row in the Store (its SinkSummary and REST
	// state); found is false once the Store no longer lists it.
	row           model.ConnectorRow
	found, restOn bool
	List          kit.List[model.SinkPartitionRow]
	now           time.Time
	width, height int
	needs         sinkNeeds
}

type sinkNeeds struct {
	topic, part, committed, end, start, lag int
	// resume is the widest RESUME cell with its amount, resumeWord the
	// widest without.
	resume, resumeWord int
}

func NewSinkScreen(km *keymap.KeyMap, st *kit.Styles, name string) *SinkScreen {
	return &SinkScreen{
		km:   km,
		st:   st,
		Name: name,
		List: kit.NewList(st, func(r model.SinkPartitionRow) string { return r.TopicPartition.String() },
			func(r model.SinkPartitionRow, q string) bool {
				return strings.Contains(strings.ToLower(r.TopicPartition.String()), q) ||
					r.Resume != nil && q == string(r.Resume.State) // "gap": a resume state
			},
			kit.SortOrder[model.SinkPartitionRow]{Name: "topic-partition", Cmp: byTopicPartition},
			kit.SortOrder[model.SinkPartitionRow]{Name: "lag (biggest first)", Cmp: func(a, b model.SinkPartitionRow) int {
				return cmp.Or(cmp.Compare(b.Lag, a.Lag), byTopicPartition(a, b))
			}},
			kit.SortOrder[model.SinkPartitionRow]{Name: "resume, worst first", Cmp: func(a, b model.SinkPartitionRow) int {
				return cmp.Or(cmp.Compare(partitionResumeRank(b.Resume), partitionResumeRank(a.Resume)), byTopicPartition(a, b))
			}},
			kit.SortOrder[model.SinkPartitionRow]{Name: "last commit (oldest first)", Cmp: func(a, b model.SinkPartitionRow) int {
				return cmp.Or(a.CommittedAt.Compare(b.CommittedAt), byTopicPartition(a, b))
			}},
		),
	}
}

func byTopicPartition(a, b model.SinkPartitionRow) int {
	return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
}

// group is the sink's consumer group: from the Store's row, which honours
// consumer.override.group.id, else Connect's default name.
func (s *SinkScreen) Group() string {
	if s.row.Sink != nil && s.row.Sink.Group != "" {
		return s.row.Sink.Group
	}
	return model.SinkGroupName(s.Name, nil)
}

func (s *SinkScreen) Refresh(src kit.Source, now time.Time, reload bool) {
	s.now = now
	if reload {
		s.row, s.found = model.ConnectorRow{}, false
		for _, r := range src.Connectors() {
			if r.ID.Name == s.Name && r.Type == "sink" {
				s.row, s.found = r, true
				break
			}
		}
		s.restOn = kit.RESTAvailable(src.REST())
		rows := src.SinkPartitions(s.Group())
		// A big group's filter and sort are worked out off the UI
		// goroutine, as a big source's partitions are (ViewCmd).
		s.List.Async = len(rows) >= BigSource
		s.List.SetItems(rows)
		s.measure()
	}
	s.Sync()
}

func (s *SinkScreen) measure() {
	n := sinkNeeds{topic: len("TOPIC"), part: len("PART"), committed: len("COMMITTED"), end: len("END"), start: len("LOG START"), lag: len("LAG")}
	// A count's cell is no narrower than a smaller count's, so the widest
	// of each column is that of its biggest number: one cell formatted
	// per column, not 100,000 (each topic's name measured once).
	var committed, end, start, lag int64
	none, topic, part := false, "", 0
	for i, r := range s.List.Items {
		if i == 0 || r.Topic != topic {
			topic = r.Topic
			n.topic = max(n.topic, len(kit.Clean(r.Topic)))
		}
		if r.Committed < 0 {
			none = true
		}
		part = max(part, r.Partition)
		committed, end = max(committed, r.Committed), max(end, r.End)
		start, lag = max(start, r.Start), max(lag, r.Lag)
		if c := r.Resume; c != nil {
			n.resumeWord = max(n.resumeWord, len("RESUME"), len(c.State))
			if c.State == resume.Gap || c.State == resume.Replay {
				n.resume = max(n.resume, kit.ResumeWidth(c.State, c.Lost, c.Replayed))
			}
		}
	}
	n.resume = max(n.resume, n.resumeWord)
	n.committed = max(n.committed, len(kit.CommittedCell(committed)))
	if none {
		n.committed = max(n.committed, len(kit.CommittedCell(-1)))
	}
	n.part = max(n.part, len(strconv.Itoa(part))) // partition 12345 is not "123…"
	n.end = max(n.end, len(kit.Count(end)))
	n.start = max(n.start, len(kit.Count(start)))
	n.lag = max(n.lag, len(kit.Count(lag)))
	s.needs = n
}

// headerLines is how many lines the group panel takes above the table.
func (s *SinkScreen) headerLines() int { return len(s.panel()) }

func (s *SinkScreen) SetSize(width, height int) {
	s.width, s.height = width, height
	s.List.SetSize(width, height-2-s.headerLines()-s.footLines())
	s.Sync()
}

func (s *SinkScreen) FilterValue() string { return s.List.Filter }
func (s *SinkScreen) SetFilter(q string)  { s.List.SetFilter(q); s.Sync() }
func (s *SinkScreen) CycleSort()          { s.List.CycleSort(); s.Sync() }

func (s *SinkScreen) Selected() (model.SinkPartitionRow, bool) { return s.List.Selected() }

func (s *SinkScreen) ViewCmd() tea.Cmd { return s.List.ViewCmd() }
func (s *SinkScreen) Viewing() bool    { return s.List.Viewing() }

func (s *SinkScreen) ViewDone(msg kit.ViewMsg) {
	if s.List.ViewDone(msg) {
		s.Sync()
	}
}

func (s *SinkScreen) HandleKey(msg tea.KeyPressMsg) Action {
	if moveList(&s.List, s.km, msg) {
		s.Sync()
	}
	return nil
}

func (s *SinkScreen) Sync() {
	n := s.needs
	part, lastW := max(n.part, len("PART")), len("LAST COMMIT")
	committed, end, lag := n.committed, n.end, n.lag
	// RESUME, once a check reached a partition, keeps its word whatever
	// the width; its amounts go when the topic would have less than 12
	// cells.
	resumeW := n.resume
	fixed := 2 + part + 1 + committed + 1 + end + 1 + lag + 1 + lastW + 1
	if resumeW > 0 {
		fixed += resumeW + 1
	}
	if s.width-fixed < 12 && resumeW > n.resumeWord {
		fixed -= resumeW - n.resumeWord
		resumeW = n.resumeWord
	}
	// LOG START stays while the topic keeps room for its name (up to 16):
	// at 80 columns it does; on narrower screens it goes first.
	start := 0
	if s.width-fixed-n.start-1 >= min(max(n.topic, 8), 16) {
		start = n.start
		fixed += start + 1
	}
	topicW := min(max(s.width-fixed, 8), max(n.topic, 8)+2)
	cols := []table.Column{
		{Title: "TOPIC", Width: topicW},
		{Title: kit.FitRight("PART", part), Width: part},
	}
	if start > 0 {
		cols = append(cols, table.Column{Title: kit.FitRight("LOG START", start), Width: start})
	}
	cols = append(cols,
		table.Column{Title: kit.FitRight("COMMITTED", committed), Width: committed},
		table.Column{Title: kit.FitRight("END", end), Width: end},
		table.Column{Title: kit.FitRight("LAG", lag), Width: lag},
	)
	if resumeW > 0 {
		cols = append(cols, table.Column{Title: "RESUME", Width: resumeW})
	}
	cols = append(cols, table.Column{Title: kit.FitRight("LAST COMMIT", lastW), Width: lastW})
	s.List.Sync(cols, func(r model.SinkPartitionRow) []string {
		last := "–" // not seen to move since koff started
		if !r.CommittedAt.IsZero() {
			last = kit.Age(s.now, r.CommittedAt)
		}
		cells := []string{kit.TruncateMiddle(kit.Clean(r.Topic), topicW), kit.FitRight(strconv.Itoa(r.Partition), part)}
		if start > 0 {
			cells = append(cells, kit.FitRight(kit.Count(r.Start), start))
		}
		cells = append(cells,
			kit.FitRight(kit.CommittedCell(r.Committed), committed),
			kit.FitRight(kit.Count(r.End), end),
			kit.FitRight(kit.Count(r.Lag), lag))
		if resumeW > 0 {
			cells = append(cells, partitionResumeCell(s.st, r.Resume, resumeW))
		}
		return append(cells, kit.FitRight(last, lastW))
	})
}

// panel is the group and its lag above the table: group, state, members
// and their clients; total lag, trend, catch-up and last commit.
func (s *SinkScreen) panel() []string {
	if s.height < 8 {
		return nil
	}
	st, w, sum := s.st, s.width, s.row.Sink
	sep := st.Muted.Render(" · ")
	if sum == nil || sum.At.IsZero() && sum.Err == "" {
		return []string{
			kit.Truncate(st.Label.Render("Group ")+kit.Clean(s.Group()), w),
			kit.Truncate(st.Muted.Render("– not polled yet, or the group has no committed offsets: nothing to show."), w),
		}
	}
	state := kit.Clean(sum.State)
	if state == "" {
		state = "? unknown state"
	}
	group := []string{st.Label.Render("Group ") + kit.Clean(sum.Group), state, kit.Plural(sum.Members, "member", "members")}
	line1 := strings.Join(group, sep)
	if len(sum.Clients) > 0 {
		// The client ids where there is room: which workers hold the group.
		clients := kit.Clean(strings.Join(sum.Clients, ", "))
		if with := line1 + st.Muted.Render(": "+clients); ansi.StringWidth(with) <= w {
			line1 = with
		} else if room := w - ansi.StringWidth(line1) - 2; room >= 20 {
			line1 += st.Muted.Render(": " + kit.Truncate(clients, room))
		}
	}
	trend := st.SinkStyle(sum).Render(kit.SinkStatus(sum))
	if sum.Trend != "" {
		sign := "+"
		if sum.Rate < 0 {
			sign = "−"
		}
		trend += st.Muted.Render(" " + sign + kit.RateText(abs(sum.Rate)))
	}
	last := "last commit –" // not seen to move since koff started
	if !sum.LastCommit.IsZero() {
		last = "last commit " + kit.Age(s.now, sum.LastCommit)
	}
	facts := []string{st.Label.Render("Lag ") + kit.Count(sum.TotalLag), trend, "catch-up " + kit.CatchUpCell(sum), last,
		kit.Plural(sum.Partitions, "partition", "partitions")}
	if r := s.row.Resume; r != nil && (r.State == resume.Gap || r.State == resume.Replay) {
		facts = append([]string{resumeDetail(st, r)}, facts...)
	}
	if sum.Err != "" {
		facts = append([]string{st.Bad.Render("✗ poll failed: " + kit.Clean(kit.OneLine(sum.Err))), st.Muted.Render("the last numbers read")}, facts...)
	}
	if !sum.Reloaded.IsZero() && s.now.Sub(sum.Reloaded) <= kit.ReloadShown {
		facts = append([]string{st.Warn.Render("↻ history restarted " + model.TimeText(sum.Reloaded) + ": " + kit.Clean(sum.ReloadReason))}, facts...)
	}
	return []string{kit.Truncate(line1, w), kit.JoinFit(w, sep, facts...)}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func (s *SinkScreen) View() string {
	info := []string{"sink"}
	switch {
	case s.row.Orphaned:
		info = append(info, orphanedText)
	case s.restOn && s.row.InREST:
		info = append(info, kit.StateText(s.row.REST.State))
		if tasks := kit.RESTTasksCell(s.row, 30); tasks != "–" {
			info = append(info, "tasks "+tasks)
		}
	case s.restOn:
		info = append(info, kit.NotInREST)
	}
	title := titleLine(s.st, s.width, "Connectors › "+kit.Clean(s.Name), info, s.List.ViewInfo())
	empty := fmt.Sprintf("No committed offsets: group %s has none yet.", kit.Clean(s.Group()))
	if s.List.Filter != "" && len(s.List.Items) > 0 {
		empty = fmt.Sprintf("No topic-partition contains %q.", s.List.Filter)
	}
	lines := append([]string{title}, s.panel()...)
	lines = append(lines, s.List.View(empty))
	lines = append(lines, s.resumeLines()...)
	return strings.Join(lines, "\n")
}

func (s *SinkScreen) ShortHelp() []key.Binding {
	keys := []key.Binding{backBinding(s.km, s.List.Filter, true), s.km.Filter, s.km.Sort}
	if s.km.EditOffset.Enabled() {
		keys = append(keys, kit.Short(s.km.EditOffset, "set offsets"), kit.Short(s.km.ResetOffset, "reset"))
	} else {
		keys = append(keys, s.km.Unparseable)
	}
	return append(keys, s.km.Help, s.km.Quit)
}

func (s *SinkScreen) FullHelp() [][]key.Binding {
	open := s.km.Open
	open.SetEnabled(false)
	return append(tableFullHelp(s.km, open, backBinding(s.km, s.List.Filter, true), true, true, "copy offset"),
		[]key.Binding{kit.Short(s.km.EditOffset, "set offsets"), kit.Short(s.km.ResetOffset, "reset partition"),
			kit.Short(s.km.ResetAll, "reset whole sink"), s.km.Stop, s.km.Resume, s.km.Undo})
}

// clip on the sink table is the selected topic-partition's committed
// offset in the shape Connect's REST API takes for a sink.
func (s *SinkScreen) Clip() (string, string, error) {
	r, ok := s.Selected()
	switch {
	case !ok:
		return "", "", errors.New("no topic-partition selected")
	case r.Committed < 0:
		return "", "", fmt.Errorf("nothing to copy: group %s has no committed offset for %s", s.Group(), r.TopicPartition)
	}
	return fmt.Sprintf(`{"kafka_offset":%d}`, r.Committed), "committed offset of " + r.TopicPartition.String(), nil
}

// footLines is how many lines the selected partition's resume check takes
// under the table: up to three on a tall screen, so that what the sink
// does there is read whole, none where the screen has no room.
func (s *SinkScreen) footLines() int {
	switch {
	case s.height < 8:
		return 0
	case s.height < 14:
		return 1
	case s.height < 18:
		return 2
	}
	return 3
}

// resumeLines are the selected partition's resume check in words, what a
// restart of the sink does there, in footLines lines: the state first, so
// that a cut keeps it.
func (s *SinkScreen) resumeLines() []string {
	n := s.footLines()
	r, ok := s.Selected()
	if n == 0 || !ok {
		return make([]string, n)
	}
	text := "↳ " + s.st.Title.Render(kit.Clean(r.TopicPartition.String())) + s.st.Muted.Render(" · ") + resumeWords(s.st, r.Resume, s.now)
	lines := kit.IndentWrap(text, max(s.width-2, 1), "", n)
	for i := 1; i < len(lines); i++ {
		lines[i] = "  " + lines[i]
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines
}
