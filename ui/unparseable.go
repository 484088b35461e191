package ui

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
)

// unparseableScreen lists the records koff (and Connect's worker) cannot
// read as offsets, newest first.
type unparseableScreen struct {
	km            *keymap.KeyMap
	st            *Styles
	list          list[model.Unparseable]
	total         int64 // ever seen; the Store keeps only the most recent
	now           time.Time
	width, height int
}

func newUnparseableScreen(km *keymap.KeyMap, st *Styles) *unparseableScreen {
	return &unparseableScreen{
		km: km,
		st: st,
		list: newList(st,
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
			sortOrder[model.Unparseable]{"newest first", func(a, b model.Unparseable) int {
				return cmp.Or(b.Time.Compare(a.Time), strings.Compare(a.Topic, b.Topic),
					cmp.Compare(a.Partition, b.Partition), cmp.Compare(b.Offset, a.Offset))
			}},
		),
	}
}

func (s *unparseableScreen) refresh(src Source, now time.Time, reload bool) {
	s.now = now
	if reload {
		s.total = src.Stats().Unparseable
		s.list.setItems(src.UnparseableRecords())
	}
	s.sync()
}

func (s *unparseableScreen) SetSize(width, height int) {
	s.width, s.height = width, height
	s.list.setSize(width, height-2)
	s.sync()
}

func (s *unparseableScreen) filterValue() string { return s.list.filter }
func (s *unparseableScreen) setFilter(q string)  { s.list.setFilter(q); s.sync() }

func (s *unparseableScreen) handleKey(msg tea.KeyPressMsg) action {
	if moveList(&s.list, s.km, msg) {
		s.sync()
		return nil
	}
	if key.Matches(msg, s.km.Open) {
		if u, ok := s.list.selected(); ok {
			return openUnparseable{u}
		}
	}
	return nil
}

func (s *unparseableScreen) sync() {
	tp, off := len("TOPIC-PARTITION"), len("OFFSET")
	needReason := len("REASON")
	for _, u := range s.list.rows() {
		tp = max(tp, len(u.TopicPartition.String()))
		off = max(off, len(strconv.FormatInt(u.Offset, 10)))
		needReason = max(needReason, len(u.Reason))
	}
	tp = min(tp, 28)
	// The time of day alone only when every record is from today: records
	// that span days show their date.
	loc := s.now.Location()
	timeFmt := "15:04:05"
	today := s.now.In(loc).Format("2006-01-02")
	for _, u := range s.list.items {
		if u.Time.In(loc).Format("2006-01-02") != today {
			timeFmt = "01-02 15:04:05"
			break
		}
	}
	if s.width >= 120 {
		timeFmt = "2006-01-02 15:04:05"
	}
	tw := len(timeFmt)
	avail := max(s.width-(2+tp+1+off+1+tw+1+3), 6)
	reason := min(needReason, avail/2)
	keyW := (avail - reason) / 2
	valW := avail - reason - keyW
	cols := []table.Column{
		{Title: "TOPIC-PARTITION", Width: tp},
		{Title: fitRight("OFFSET", off), Width: off},
		{Title: "TIME", Width: tw},
		{Title: "REASON", Width: reason},
		{Title: "KEY", Width: keyW},
		{Title: "VALUE", Width: valW},
	}
	s.list.sync(cols, func(u model.Unparseable) []string {
		return []string{
			clean(u.TopicPartition.String()),
			fitRight(strconv.FormatInt(u.Offset, 10), off),
			u.Time.In(loc).Format(timeFmt),
			truncate(clean(u.Reason), reason),
			truncate(u.Key, keyW),
			truncate(u.Value, valW),
		}
	})
}

func (s *unparseableScreen) View() string {
	var info []string
	if s.total > int64(len(s.list.items)) {
		info = append(info, fmt.Sprintf("the last %s of %s kept", count(len(s.list.items)), count(s.total)))
	}
	title := titleLine(s.st, s.width, "Unparseable records "+count(s.total), info, s.list.viewInfo())
	empty := "None: every record read so far is a valid Connect offset record."
	if s.list.filter != "" && len(s.list.items) > 0 {
		empty = fmt.Sprintf("No unparseable record contains %q.", s.list.filter)
	}
	return title + "\n" + s.list.view(empty)
}

func (s *unparseableScreen) ShortHelp() []key.Binding {
	return []key.Binding{short(s.km.Open, "whole record"), backBinding(s.km, s.list.filter, true), s.km.Filter, s.km.Help, s.km.Quit}
}

func (s *unparseableScreen) FullHelp() [][]key.Binding {
	open := short(s.km.Open, "open the whole record")
	return tableFullHelp(s.km, open, backBinding(s.km, s.list.filter, true), false, false, "")
}
