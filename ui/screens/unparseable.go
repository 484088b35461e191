package screens

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"

	"koff/keymap"
	"koff/model"
	"koff/ui/kit"
)

// unparseableScreen lists the records koff (and Connect's worker) cannot
// read as offsets, newest first.
type UnparseableScreen struct {
	km            *keymap.KeyMap
	st            *kit.Styles
	list          kit.List[model.Unparseable]
	total         int64 // ever seen; the Store keeps only the most recent
	now           time.Time
	width, height int
}

func NewUnparseableScreen(km *keymap.KeyMap, st *kit.Styles) *UnparseableScreen {
	return &UnparseableScreen{
		km: km,
		st: st,
		list: kit.NewList(st,
			func(u model.Unparseable) string {
				return u.TopicPartition.String() + "@" + strconv.FormatInt(u.Offset, 10)
			},
			func(u model.Unparseable, q string) bool {
				for _, s := range []string{u.Reason, u.Key, u.Value, u.TopicPartition.String()} {
					if strings.Contains(strings.ToLower(s), q) {
						return true
					}
				}
				return false
			},
			kit.SortOrder[model.Unparseable]{Name: "newest first", Cmp: func(a, b model.Unparseable) int {
				return cmp.Or(b.Time.Compare(a.Time), strings.Compare(a.Topic, b.Topic),
					cmp.Compare(a.Partition, b.Partition), cmp.Compare(b.Offset, a.Offset))
			}},
		),
	}
}

func (s *UnparseableScreen) Refresh(src kit.Source, now time.Time, reload bool) {
	s.now = now
	if reload {
		s.total = src.Stats().Unparseable
		s.list.SetItems(src.UnparseableRecords())
	}
	s.Sync()
}

func (s *UnparseableScreen) SetSize(width, height int) {
	s.width, s.height = width, height
	s.list.SetSize(width, height-2)
	s.Sync()
}

func (s *UnparseableScreen) FilterValue() string { return s.list.Filter }
func (s *UnparseableScreen) SetFilter(q string)  { s.list.SetFilter(q); s.Sync() }

func (s *UnparseableScreen) HandleKey(msg tea.KeyPressMsg) Action {
	if moveList(&s.list, s.km, msg) {
		s.Sync()
		return nil
	}
	if key.Matches(msg, s.km.Open) {
		if u, ok := s.list.Selected(); ok {
			return OpenUnparseable{u}
		}
	}
	return nil
}

func (s *UnparseableScreen) Sync() {
	tp, off := len("TOPIC-PARTITION"), len("OFFSET")
	needReason := len("REASON")
	for _, u := range s.list.Rows() {
		tp = max(tp, len(u.TopicPartition.String()))
		off = max(off, len(strconv.FormatInt(u.Offset, 10)))
		needReason = max(needReason, len(u.Reason))
	}
	tp = min(tp, 28)
	// Times as koff shows them everywhere (model.TimeText: UTC, the zone
	// named); a narrower table cuts them from the front, to the second,
	// then to the time of day when every record is from today (UTC). The
	// whole record (enter) has the whole time.
	layout := model.TimeLayout
	switch {
	case s.width >= 120:
	case s.width >= 100:
		layout = "2006-01-02 15:04:05 MST"
	default:
		layout = "15:04:05 MST"
		today := s.now.UTC().Format("2006-01-02")
		for _, u := range s.list.Items {
			if u.Time.UTC().Format("2006-01-02") != today {
				layout = "01-02 15:04:05 MST"
				break
			}
		}
	}
	timeText := func(t time.Time) string { return t.UTC().Format(layout) }
	tw := len(timeText(time.Time{}))
	avail := max(s.width-(2+tp+1+off+1+tw+1+3), 6)
	reason := min(needReason, avail/2)
	keyW := (avail - reason) / 2
	valW := avail - reason - keyW
	cols := []table.Column{
		{Title: "TOPIC-PARTITION", Width: tp},
		{Title: kit.FitRight("OFFSET", off), Width: off},
		{Title: "TIME", Width: tw},
		{Title: "REASON", Width: reason},
		{Title: "KEY", Width: keyW},
		{Title: "VALUE", Width: valW},
	}
	s.list.Sync(cols, func(u model.Unparseable) []string {
		return []string{
			kit.Clean(u.TopicPartition.String()),
			kit.FitRight(strconv.FormatInt(u.Offset, 10), off),
			timeText(u.Time),
			kit.Truncate(kit.Clean(u.Reason), reason),
			kit.Truncate(u.Key, keyW),
			kit.Truncate(u.Value, valW),
		}
	})
}

func (s *UnparseableScreen) View() string {
	var info []string
	if s.total > int64(len(s.list.Items)) {
		info = append(info, fmt.Sprintf("the last %s of %s kept", kit.Count(len(s.list.Items)), kit.Count(s.total)))
	}
	title := titleLine(s.st, s.width, "Unparseable records "+kit.Count(s.total), info, s.list.ViewInfo())
	empty := "None: every record read so far is a valid Connect offset record."
	if s.list.Filter != "" && len(s.list.Items) > 0 {
		empty = fmt.Sprintf("No unparseable record contains %q.", s.list.Filter)
	}
	return title + "\n" + s.list.View(empty)
}

func (s *UnparseableScreen) ShortHelp() []key.Binding {
	return []key.Binding{kit.Short(s.km.Open, "whole record"), backBinding(s.km, s.list.Filter, true), s.km.Filter, s.km.Help, s.km.Quit}
}

func (s *UnparseableScreen) FullHelp() [][]key.Binding {
	open := kit.Short(s.km.Open, "open the whole record")
	return tableFullHelp(s.km, open, backBinding(s.km, s.list.Filter, true), false, false, "")
}
