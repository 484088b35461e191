package ui

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
)

// sinkScreen shows one sink connector: its consumer group, and the
// committed offset, end offset and lag of every topic-partition it reads.
type sinkScreen struct {
	km   *keymap.KeyMap
	st   *Styles
	name string
	// row is the connector's row in the Store (its SinkSummary and REST
	// state); found is false once the Store no longer lists it.
	row           model.ConnectorRow
	found, restOn bool
	list          list[model.SinkPartitionRow]
	now           time.Time
	width, height int
	needs         sinkNeeds
}

type sinkNeeds struct{ topic, committed, end, start, lag int }

func newSinkScreen(km *keymap.KeyMap, st *Styles, name string) *sinkScreen {
	return &sinkScreen{
		km:   km,
		st:   st,
		name: name,
		list: newList(st, func(r model.SinkPartitionRow) string { return r.TopicPartition.String() },
			func(r model.SinkPartitionRow, q string) bool {
				return strings.Contains(strings.ToLower(r.TopicPartition.String()), q)
			},
			sortOrder[model.SinkPartitionRow]{"topic-partition", byTopicPartition},
			sortOrder[model.SinkPartitionRow]{"lag (biggest first)", func(a, b model.SinkPartitionRow) int {
				return cmp.Or(cmp.Compare(b.Lag, a.Lag), byTopicPartition(a, b))
			}},
			sortOrder[model.SinkPartitionRow]{"last commit (oldest first)", func(a, b model.SinkPartitionRow) int {
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
func (s *sinkScreen) group() string {
	if s.row.Sink != nil && s.row.Sink.Group != "" {
		return s.row.Sink.Group
	}
	return model.SinkGroupName(s.name, nil)
}

func (s *sinkScreen) refresh(src Source, now time.Time, reload bool) {
	s.now = now
	if reload {
		s.row, s.found = model.ConnectorRow{}, false
		for _, r := range src.Connectors() {
			if r.ID.Name == s.name && r.Type == "sink" {
				s.row, s.found = r, true
				break
			}
		}
		s.restOn = restAvailable(src.REST())
		s.list.setItems(src.SinkPartitions(s.group()))
		s.measure()
	}
	s.sync()
}

func (s *sinkScreen) measure() {
	n := sinkNeeds{topic: len("TOPIC"), committed: len("COMMITTED"), end: len("END"), start: len("LOG START"), lag: len("LAG")}
	for _, r := range s.list.items {
		n.topic = max(n.topic, len(clean(r.Topic)))
		n.committed = max(n.committed, len(committedCell(r.Committed)))
		n.end = max(n.end, len(count(r.End)))
		n.start = max(n.start, len(count(r.Start)))
		n.lag = max(n.lag, len(count(r.Lag)))
	}
	s.needs = n
}

// headerLines is how many lines the group panel takes above the table.
func (s *sinkScreen) headerLines() int { return len(s.panel()) }

func (s *sinkScreen) SetSize(width, height int) {
	s.width, s.height = width, height
	s.list.setSize(width, height-2-s.headerLines())
	s.sync()
}

func (s *sinkScreen) filterValue() string { return s.list.filter }
func (s *sinkScreen) setFilter(q string)  { s.list.setFilter(q); s.sync() }
func (s *sinkScreen) cycleSort()          { s.list.cycleSort(); s.sync() }

func (s *sinkScreen) selected() (model.SinkPartitionRow, bool) { return s.list.selected() }

func (s *sinkScreen) handleKey(msg tea.KeyPressMsg) action {
	if moveList(&s.list, s.km, msg) {
		s.sync()
	}
	return nil
}

func (s *sinkScreen) sync() {
	n := s.needs
	part, lastW := len("PART"), len("LAST COMMIT")
	committed, end, lag := n.committed, n.end, n.lag
	fixed := 2 + part + 1 + committed + 1 + end + 1 + lag + 1 + lastW + 1
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
		{Title: fitRight("PART", part), Width: part},
	}
	if start > 0 {
		cols = append(cols, table.Column{Title: fitRight("LOG START", start), Width: start})
	}
	cols = append(cols,
		table.Column{Title: fitRight("COMMITTED", committed), Width: committed},
		table.Column{Title: fitRight("END", end), Width: end},
		table.Column{Title: fitRight("LAG", lag), Width: lag},
		table.Column{Title: fitRight("LAST COMMIT", lastW), Width: lastW},
	)
	s.list.sync(cols, func(r model.SinkPartitionRow) []string {
		last := "–" // not seen to move since koff started
		if !r.CommittedAt.IsZero() {
			last = age(s.now, r.CommittedAt)
		}
		cells := []string{truncateMiddle(clean(r.Topic), topicW), fitRight(strconv.Itoa(r.Partition), part)}
		if start > 0 {
			cells = append(cells, fitRight(count(r.Start), start))
		}
		return append(cells,
			fitRight(committedCell(r.Committed), committed),
			fitRight(count(r.End), end),
			fitRight(count(r.Lag), lag),
			fitRight(last, lastW))
	})
}

// panel is the group and its lag above the table: group, state, members
// and their clients; total lag, trend, catch-up and last commit.
func (s *sinkScreen) panel() []string {
	if s.height < 8 {
		return nil
	}
	st, w, sum := s.st, s.width, s.row.Sink
	sep := st.Muted.Render(" · ")
	if sum == nil || sum.At.IsZero() && sum.Err == "" {
		return []string{
			truncate(st.Label.Render("Group ")+clean(s.group()), w),
			truncate(st.Muted.Render("– not polled yet, or the group has no committed offsets: nothing to show."), w),
		}
	}
	state := clean(sum.State)
	if state == "" {
		state = "? unknown state"
	}
	group := []string{st.Label.Render("Group ") + clean(sum.Group), state, plural(sum.Members, "member", "members")}
	line1 := strings.Join(group, sep)
	if len(sum.Clients) > 0 {
		// The client ids where there is room: which workers hold the group.
		clients := clean(strings.Join(sum.Clients, ", "))
		if with := line1 + st.Muted.Render(": "+clients); ansi.StringWidth(with) <= w {
			line1 = with
		} else if room := w - ansi.StringWidth(line1) - 2; room >= 20 {
			line1 += st.Muted.Render(": " + truncate(clients, room))
		}
	}
	trend := st.sinkStyle(sum).Render(sinkStatus(sum))
	if sum.Trend != "" {
		sign := "+"
		if sum.Rate < 0 {
			sign = "−"
		}
		trend += st.Muted.Render(" " + sign + rateText(abs(sum.Rate)))
	}
	last := "last commit –" // not seen to move since koff started
	if !sum.LastCommit.IsZero() {
		last = "last commit " + age(s.now, sum.LastCommit)
	}
	facts := []string{st.Label.Render("Lag ") + count(sum.TotalLag), trend, "catch-up " + catchUpCell(sum), last,
		plural(sum.Partitions, "partition", "partitions")}
	if sum.Err != "" {
		facts = append([]string{st.Bad.Render("✗ poll failed: " + clean(oneLine(sum.Err))), st.Muted.Render("the last numbers read")}, facts...)
	}
	if !sum.Reloaded.IsZero() && s.now.Sub(sum.Reloaded) <= reloadShown {
		facts = append([]string{st.Warn.Render("↻ history restarted " + sum.Reloaded.Local().Format("15:04:05") + ": " + clean(sum.ReloadReason))}, facts...)
	}
	return []string{truncate(line1, w), joinFit(w, sep, facts...)}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func (s *sinkScreen) View() string {
	info := []string{"sink"}
	switch {
	case s.row.Orphaned:
		info = append(info, orphanedText)
	case s.restOn && s.row.InREST:
		info = append(info, stateText(s.row.REST.State))
		if tasks := restTasksCell(s.row, 30); tasks != "–" {
			info = append(info, "tasks "+tasks)
		}
	case s.restOn:
		info = append(info, notInREST)
	}
	title := titleLine(s.st, s.width, "Connectors › "+clean(s.name), info, s.list.viewInfo())
	empty := fmt.Sprintf("No committed offsets: group %s has none yet.", clean(s.group()))
	if s.list.filter != "" && len(s.list.items) > 0 {
		empty = fmt.Sprintf("No topic-partition contains %q.", s.list.filter)
	}
	lines := append([]string{title}, s.panel()...)
	return strings.Join(append(lines, s.list.view(empty)), "\n")
}

func (s *sinkScreen) ShortHelp() []key.Binding {
	keys := []key.Binding{backBinding(s.km, s.list.filter, true), s.km.Filter, s.km.Sort}
	if s.km.EditOffset.Enabled() {
		keys = append(keys, short(s.km.EditOffset, "set offsets"), short(s.km.ResetOffset, "reset"))
	} else {
		keys = append(keys, s.km.Unparseable)
	}
	return append(keys, s.km.Help, s.km.Quit)
}

func (s *sinkScreen) FullHelp() [][]key.Binding {
	open := s.km.Open
	open.SetEnabled(false)
	return append(tableFullHelp(s.km, open, backBinding(s.km, s.list.filter, true), true, true, "copy offset"),
		[]key.Binding{short(s.km.EditOffset, "set offsets"), short(s.km.ResetOffset, "reset partition"),
			short(s.km.ResetAll, "reset whole sink"), s.km.Stop, s.km.Resume, s.km.Undo})
}

// clip on the sink table is the selected topic-partition's committed
// offset in the shape Connect's REST API takes for a sink.
func (s *sinkScreen) clip() (string, string, error) {
	r, ok := s.selected()
	switch {
	case !ok:
		return "", "", errors.New("no topic-partition selected")
	case r.Committed < 0:
		return "", "", fmt.Errorf("nothing to copy: group %s has no committed offset for %s", s.group(), r.TopicPartition)
	}
	return fmt.Sprintf(`{"kafka_offset":%d}`, r.Committed), "committed offset of " + r.TopicPartition.String(), nil
}
