package screens

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"koff/edit"
	"koff/model"
	"koff/model/java"
	"koff/model/text"
	"koff/ui/kit"
)

// The partition detail lists the partition's commits still in the offsets
// topics, read from Kafka through kit.Editor off the UI goroutine. What it
// keeps is bounded by HistoryMax, not by the records read.

// HistoryMax is how many of the newest commits the detail keeps and shows;
// koff history lists them all.
const HistoryMax = 500

// HistoryCommit is one commit the detail shows, its value copied out of
// the reader's buffer.
type HistoryCommit struct {
	edit.CommitRef
	Key   string // the raw key bytes: which stored copy
	Value []byte // nil: a tombstone
	Copy  string // edit.CopyLive, CopyStray or CopyGone
	Edit  *edit.KoffEdit
	Koff  bool
}

// History is what the detail read of one partition's history.
type History struct {
	Commits []HistoryCommit // newest first, at most HistoryMax
	Read    int             // commits read: more than len(Commits) when older ones were dropped
	Copies  []edit.CopyHistory
	// At is when it was read: commits made since are read in the
	// background once the partition moves on (HistoryBehind).
	At time.Time
}

// ReadHistory reads the history of one source partition (every stored copy
// of its partition map) of connector, keeping the newest HistoryMax commits.
// It does I/O: call it only inside a tea.Cmd.
func ReadHistory(ctx context.Context, ed kit.Editor, connector string, partition java.Object) (*History, error) {
	h := &History{}
	newest := func(a, b HistoryCommit) bool {
		if !a.Time.Equal(b.Time) {
			return a.Time.After(b.Time)
		}
		return a.Offset > b.Offset
	}
	trim := func() {
		sort.SliceStable(h.Commits, func(i, j int) bool { return newest(h.Commits[i], h.Commits[j]) })
		if len(h.Commits) > HistoryMax {
			h.Commits = h.Commits[:HistoryMax:HistoryMax]
		}
	}
	req := edit.HistoryRequest{Connector: connector, Partitions: []java.Object{partition}}
	got, err := ed.ReadHistory(ctx, req, func(c *edit.Commit) error {
		h.Read++
		hc := HistoryCommit{CommitRef: edit.CommitRef{TopicPartition: c.ID.TopicPartition, Offset: c.Offset, Time: c.Time, LogAppendTime: c.LogAppendTime},
			Key: c.ID.Key, Copy: c.Copy, Edit: c.Edit, Koff: c.Koff}
		if c.Value != nil {
			hc.Value = append([]byte{}, c.Value...)
		}
		h.Commits = append(h.Commits, hc)
		if len(h.Commits) >= 2*HistoryMax {
			trim()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	trim()
	h.Copies = got.Copies
	return h, nil
}

// historyState is the detail's history: loading, failed, or read.
type historyState struct {
	loading bool
	err     string
	h       *History
	sel     int // the chosen commit, an index into h.Commits
	selLine int // its first line in the content, for scrolling to it
	// refreshing: h is being read again in the background (refreshErr:
	// why the last such read failed).
	refreshing bool
	refreshErr string
	failedAt   time.Time
}

// SetHistoryLoading shows "reading history…" until SetHistory.
func (s *DetailScreen) SetHistoryLoading() {
	s.hist = historyState{loading: true}
	s.Sync()
}

// SetHistory shows what ReadHistory returned.
func (s *DetailScreen) SetHistory(h *History, err error) {
	s.hist = historyState{h: h}
	if err != nil {
		s.hist.err = err.Error()
	}
	s.Sync()
}

// historyRefresh is how soon after a read the detail reads its history
// again when the partition has moved on (HistoryBehind).
const historyRefresh = 5 * time.Second

// HistoryBehind says the history read shows an older state than the
// Store now has: a commit to this copy came after it, and the read is
// historyRefresh old. The root then reads it again in the background
// (RefreshHistory), the history shown meanwhile.
func (s *DetailScreen) HistoryBehind(now time.Time) bool {
	h := s.hist.h
	if h == nil || s.hist.loading || s.hist.refreshing || !s.found || now.Sub(h.At) < historyRefresh || now.Sub(s.hist.failedAt) < historyRefresh {
		return false
	}
	for _, c := range h.Commits {
		if c.TopicPartition == s.id.TopicPartition && c.Offset >= s.d.RecordOffset {
			return false
		}
	}
	return true
}

// RefreshingHistory notes a read of the history in the background: the
// one read before stays on screen until it ends.
func (s *DetailScreen) RefreshingHistory() { s.hist.refreshing = true }

// RefreshHistory shows a history read again, the same commit chosen if it
// is still in it.
func (s *DetailScreen) RefreshHistory(h *History, err error, now time.Time) {
	chosen, ok := s.SelectedCommit()
	if err != nil {
		// Keep what was read; say why it could not be read again.
		s.hist.refreshing, s.hist.refreshErr, s.hist.failedAt = false, err.Error(), now
		s.Sync()
		return
	}
	s.hist = historyState{h: h}
	if ok {
		for i, c := range h.Commits {
			if c.TopicPartition == chosen.TopicPartition && c.Offset == chosen.Offset {
				s.hist.sel = i
			}
		}
	}
	s.Sync()
}

// SelectedCommit is the history's chosen commit.
func (s *DetailScreen) SelectedCommit() (HistoryCommit, bool) {
	if s.hist.h == nil || len(s.hist.h.Commits) == 0 {
		return HistoryCommit{}, false
	}
	return s.hist.h.Commits[s.hist.sel], true
}

// HistoryLoading says the history is being read.
func (s *DetailScreen) HistoryLoading() bool { return s.hist.loading }

// Detail is the partition as last read from the Source.
func (s *DetailScreen) Detail() (model.PartitionDetail, bool) { return s.d, s.found }

// ID is the stored copy the screen shows; Connector its connector.
func (s *DetailScreen) ID() model.PartitionID        { return s.id }
func (s *DetailScreen) Connector() model.ConnectorID { return s.conn }

// moveCommit chooses a newer (-1) or older (+1) commit and scrolls to it.
func (s *DetailScreen) moveCommit(step int) {
	if s.hist.h == nil || len(s.hist.h.Commits) == 0 {
		return
	}
	s.hist.sel = min(max(s.hist.sel+step, 0), len(s.hist.h.Commits)-1)
	s.Sync()
	top, h := s.vp.YOffset(), s.vp.Height()
	switch {
	case s.hist.selLine < top:
		s.vp.SetYOffset(s.hist.selLine)
	case s.hist.selLine+3 > top+h: // a third down, under the commits just passed
		s.vp.SetYOffset(s.hist.selLine - h/3)
	}
}

// historyLines renders the history section at width w; out is the content
// so far, for the chosen commit's line number.
func (s *DetailScreen) historyLines(out []string, w int) []string {
	st := s.st
	hs := &s.hist
	wrap := func(indent, text string) {
		out = append(out, kit.WrapAtSpaces(text, w, indent)...)
	}
	switch {
	case hs.loading:
		out = append(out, "", st.Section.Render("History"), "  "+st.Muted.Render("reading history… (the offsets topic from its start)"))
		return out
	case hs.err != "":
		out = append(out, "", st.Section.Render("History"))
		wrap("  ", st.Bad.Render("✕ ")+kit.Clean(hs.err))
		return out
	case hs.h == nil:
		return out
	}
	h := hs.h
	tombs := 0
	for _, c := range h.Copies {
		tombs += c.Tombstones
	}
	info := []string{"newest first", kit.Plural(h.Read, "commit", "commits") + " retained", "read " + kit.Age(s.now, h.At)}
	if hs.refreshErr != "" {
		info = append(info, "not read again: "+kit.Clean(hs.refreshErr))
	}
	if tombs > 0 {
		info = append(info, kit.Plural(tombs, "tombstone", "tombstones"))
	}
	out = append(out, "")
	for i, l := range kit.WrapAtSpaces(st.Section.Render("History")+st.Muted.Render("  "+strings.Join(info, " · ")), w, "  ") {
		if i == 0 {
			l = strings.TrimPrefix(l, "  ")
		}
		out = append(out, l)
	}
	// Where each copy's retained history begins: what compaction left.
	for _, c := range h.Copies {
		begins := "its first commit"
		if !c.Complete {
			begins = "older commits were compacted or deleted away"
		}
		wrap("  ", fmt.Sprintf("%s %s: %s from %s, %s", copyWord(st, c.Copy), kit.Clean(c.ID.TopicPartition.String()),
			kit.Plural(c.Commits, "commit", "commits"), exactTime(c.First.Time), begins))
	}
	if len(h.Commits) < h.Read {
		wrap("  ", st.Muted.Render(fmt.Sprintf("the newest %s of %s shown: koff history lists them all", kit.Count(len(h.Commits)), kit.Count(h.Read))))
	}
	if len(h.Commits) == 0 {
		wrap("  ", st.Muted.Render("no commit of this partition is left in the offsets topic"))
		return out
	}
	for i, c := range h.Commits {
		mark := "  "
		if i == hs.sel {
			mark = st.FieldFocus.Render("▶ ")
			hs.selLine = len(out)
		}
		head := []string{kit.Age(s.now, c.Time), copyWord(st, c.Copy), kit.Clean(c.TopicPartition.String()) + "@" + kit.Count(c.Offset)}
		switch {
		case c.Edit != nil:
			head = append(head, st.Info.Render(fmt.Sprintf("koff %s by %s, edit %s", c.Edit.Kind, kit.Clean(orUnknown(c.Edit.User)), kit.Clean(c.Edit.ID))))
		case c.Koff:
			head = append(head, st.Info.Render("written by koff"))
		}
		lines := kit.WrapAtSpaces(strings.Join(head, " · "), w, "    ")
		lines[0] = "  " + mark + strings.TrimPrefix(lines[0], "    ")
		out = append(out, lines...)
		wrap("      ", st.Muted.Render(exactTime(c.Time)+" "+edit.TimestampType(c.LogAppendTime)))
		if c.Value == nil {
			wrap("      ", st.Bad.Render("✕ tombstone (offset deleted)"))
		} else {
			for _, l := range kit.WrapLines(kit.CleanBytes(text.JSONSafe(compactValue(c.Value)), kit.DetailMax), max(w-6, 8)) {
				out = append(out, "      "+l)
			}
		}
	}
	return out
}

// exactTime is a commit's time as koff history prints it (model.TimeText:
// UTC, to the millisecond Kafka keeps).
func exactTime(t time.Time) string { return model.TimeText(t) }

func copyWord(st *kit.Styles, copy string) string {
	switch copy {
	case edit.CopyLive:
		return st.OK.Render("live")
	case edit.CopyStray:
		return st.Warn.Render("stray")
	}
	return st.Muted.Render("gone")
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown user"
	}
	return s
}

// compactValue is a value's JSON on one line, its number text as stored
// (as stored when it is not JSON).
func compactValue(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
