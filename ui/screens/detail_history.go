package screens

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"koff/edit/history"
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
	history.CommitRef
	Key   string // the raw key bytes: which stored copy
	Value []byte // nil: a tombstone
	Copy  string // history.CopyLive, CopyStray or CopyGone
	Edit  *history.KoffEdit
	Koff  bool
	// Tailed: the Tailer read it into the Store after the history was
	// read; the next read of the history says more of it (its timestamp
	// type, whether koff wrote it).
	Tailed bool
}

// History is what the detail read of one partition's history.
type History struct {
	Commits []HistoryCommit // newest first, at most HistoryMax
	Read    int             // commits read: more than len(Commits) when older ones were dropped
	Copies  []history.CopyHistory
	// At is when it was read: commits made since are read in the
	// background once the partition moves on (HistoryBehind).
	At time.Time
	// Partial is why the read stopped before the end (a broker gone, the
	// time up): Commits are those read until then, not every one.
	Partial string
}

// ReadHistory reads the history of one source partition (every stored copy
// of its partition map) of connector, keeping the newest HistoryMax commits.
// It does I/O: call it only inside a tea.Cmd.
func ReadHistory(ctx context.Context, ed kit.Editor, connector string, partition java.Object) (*History, error) {
	if ph, ok := ed.(kit.PartitionHistories); ok {
		return sharedHistory(ctx, ph, connector, partition)
	}
	h := &History{}
	trim := func() {
		sort.SliceStable(h.Commits, func(i, j int) bool { return newestFirst(h.Commits[i], h.Commits[j]) })
		if len(h.Commits) > HistoryMax {
			h.Commits = h.Commits[:HistoryMax:HistoryMax]
		}
	}
	req := history.Request{Connector: connector, Partitions: []java.Object{partition}}
	got, err := ed.ReadHistory(ctx, req, func(c *history.Commit) error {
		h.Read++
		hc := HistoryCommit{CommitRef: history.CommitRef{TopicPartition: c.ID.TopicPartition, Offset: c.Offset, Time: c.Time, LogAppendTime: c.LogAppendTime},
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
	if err != nil && (len(h.Commits) == 0 || ctx.Err() == context.Canceled) {
		return nil, err
	}
	trim()
	if err != nil {
		h.Partial = err.Error() // what was read is shown, and said to be part
	}
	if got != nil {
		h.Copies = got.Copies
	}
	return h, nil
}

// sharedHistory is the partition's history as the cluster's dashboards
// share it (kit.PartitionHistories): read once, followed since.
func sharedHistory(ctx context.Context, ph kit.PartitionHistories, connector string, partition java.Object) (*History, error) {
	got, err := ph.PartitionHistory(ctx, connector, partition, HistoryMax)
	if err != nil {
		return nil, err
	}
	h := &History{Read: got.Read, Copies: got.Copies, Partial: got.Partial, Commits: make([]HistoryCommit, len(got.Commits))}
	for i, c := range got.Commits {
		// The values are shared by every viewer, and never written to.
		h.Commits[i] = HistoryCommit{CommitRef: history.CommitRef{TopicPartition: c.ID.TopicPartition, Offset: c.Offset, Time: c.Time, LogAppendTime: c.LogAppendTime},
			Key: c.ID.Key, Value: c.Value, Copy: c.Copy, Edit: c.Edit, Koff: c.Koff}
	}
	return h, nil
}

// newestFirst orders commits by time, then by offset (then by where they
// are, as history.NewerCommit does).
func newestFirst(a, b HistoryCommit) bool {
	if !a.Time.Equal(b.Time) {
		return a.Time.After(b.Time)
	}
	if a.Offset != b.Offset {
		return a.Offset > b.Offset
	}
	if a.Topic != b.Topic {
		return a.Topic < b.Topic
	}
	if a.Partition != b.Partition {
		return a.Partition < b.Partition
	}
	return a.Key < b.Key
}

// historyState is the detail's history: loading, failed, or read.
type historyState struct {
	loading bool
	err     string
	h       *History
	sel     int // the chosen commit, an index into h.Commits
	// chose: [ or ] chose sel; until then the newest commit is chosen,
	// whatever commits come.
	chose   bool
	selLine int // its first line in the content, for scrolling to it
	// refreshing: h is being read again in the background (refreshErr:
	// why the last such read failed).
	refreshing bool
	refreshErr string
	failedAt   time.Time
	// gen is the Tailer's Reloaded when the read began: once the Tailer
	// reads from scratch (another cluster, a recreated topic) the commits
	// read before are of a log that is gone (HistoryStale). again says
	// why a read is a new one after such a reload.
	gen   time.Time
	again string
}

// SetHistoryLoading shows "reading history…" until SetHistory; again is
// why the history is read again from scratch ("" for the first read).
func (s *DetailScreen) SetHistoryLoading(again string) {
	s.hist = historyState{loading: true, gen: s.tail.Reloaded, again: again}
	s.Sync()
}

// SetHistory shows what ReadHistory returned.
func (s *DetailScreen) SetHistory(h *History, err error) {
	s.hist = historyState{h: h, gen: s.hist.gen}
	if err != nil {
		s.hist.err = err.Error()
	}
	s.followStore()
	s.Sync()
}

// HistoryGen is the Tailer's Reloaded when the history shown (or being
// read) began to be read.
func (s *DetailScreen) HistoryGen() time.Time { return s.hist.gen }

// HistoryStale says the Tailer read the offsets topics again from scratch
// since the history was read: its commits may be of a log that is gone,
// and none may be chosen until it is read again. why is the Tailer's
// reason.
func (s *DetailScreen) HistoryStale() (why string, stale bool) {
	hs := &s.hist
	if hs.h == nil && !hs.loading && !hs.refreshing && hs.err == "" || !s.tail.Reloaded.After(hs.gen) {
		return "", false
	}
	return s.tail.ReloadReason, true
}

// NoteTail takes the Tailer's state as the Source has it now, before a
// read of the history begins: the read is of the log since its Reloaded.
func (s *DetailScreen) NoteTail(st model.TailStatus) {
	if st.Reloaded.After(s.tail.Reloaded) || st.Reloaded.Equal(s.tail.Reloaded) {
		s.tail = st
	}
}

// HistoryAgain is why the history is being read again from scratch, ""
// when it is not.
func (s *DetailScreen) HistoryAgain() string {
	if s.hist.loading {
		return s.hist.again
	}
	return ""
}

// followStore puts the commits the Tailer read since the history was read
// at its top, from the Store's recent updates of this copy and of the
// copy the task reads: the commit in force is on screen at once, not at
// the next read of the history. The commit chosen stays chosen.
func (s *DetailScreen) followStore() {
	h := s.hist.h
	if h == nil || !s.hist.gen.Equal(s.tail.Reloaded) {
		return
	}
	chosen, hasChosen := s.SelectedCommit()
	added := false
	add := func(d model.PartitionDetail, found bool) {
		if !found {
			return
		}
		read := int64(-1)
		for _, c := range h.Commits {
			if c.TopicPartition == d.ID.TopicPartition && c.Key == d.ID.Key {
				read = max(read, c.Offset)
			}
		}
		copyWord := history.CopyStray
		if d.Live {
			copyWord = history.CopyLive
		}
		for _, u := range d.History {
			if u.RecordOffset <= read {
				continue
			}
			hc := HistoryCommit{CommitRef: history.CommitRef{TopicPartition: d.ID.TopicPartition, Offset: u.RecordOffset, Time: u.Time},
				Key: d.ID.Key, Copy: copyWord, Tailed: true}
			if u.Value != nil {
				hc.Value = append([]byte{}, u.Value...)
			}
			h.Commits = append(h.Commits, hc)
			read, added = u.RecordOffset, true
		}
	}
	add(s.d, s.found)
	if s.liveFound && s.live.ID != s.d.ID {
		add(s.live, true)
	}
	if !added {
		return
	}
	sort.SliceStable(h.Commits, func(i, j int) bool { return newestFirst(h.Commits[i], h.Commits[j]) })
	if len(h.Commits) > HistoryMax {
		h.Commits = h.Commits[:HistoryMax:HistoryMax]
	}
	s.hist.sel = 0
	if hasChosen && s.hist.chose {
		for i, c := range h.Commits {
			if c.TopicPartition == chosen.TopicPartition && c.Offset == chosen.Offset {
				s.hist.sel = i
			}
		}
	}
}

// inForce is the commit the task reads now: the latest record of the
// live copy, as the Store holds it.
func (s *DetailScreen) inForce(c HistoryCommit) bool {
	return s.liveFound && s.live.Live && c.TopicPartition == s.live.ID.TopicPartition && c.Key == s.live.ID.Key && c.Offset == s.live.RecordOffset
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
		if c.Tailed {
			return true // shown from the Store: read for what it says of them
		}
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
	if err == nil && h.Partial != "" {
		err = errors.New(h.Partial) // a part of it is no better than what is shown
	}
	if err != nil {
		// Keep what was read; say why it could not be read again.
		s.hist.refreshing, s.hist.refreshErr, s.hist.failedAt = false, err.Error(), now
		s.Sync()
		return
	}
	chose := s.hist.chose
	s.hist = historyState{h: h, gen: s.hist.gen, chose: chose}
	s.followStore()
	if ok && chose {
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
	s.hist.chose = true
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
	case hs.loading && hs.again != "":
		out = append(out, "", st.Section.Render("History"))
		wrap("  ", st.Warn.Render("⟳ ")+"history is being read again: "+kit.Clean(hs.again)+"; the commits read before are of a log that is gone")
		return out
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
	tailed := 0
	for _, c := range h.Commits {
		if c.Tailed {
			tailed++
		}
	}
	info := []string{"newest first", kit.Plural(h.Read, "commit", "commits") + " retained", "read " + kit.Age(s.now, h.At)}
	if tailed > 0 {
		info = append(info, kit.Plural(tailed, "commit", "commits")+" since, seen by the tailer")
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
	if len(h.Commits) < h.Read+tailed {
		wrap("  ", st.Muted.Render(fmt.Sprintf("the newest %s of %s shown: koff history lists them all", kit.Count(len(h.Commits)), kit.Count(h.Read+tailed))))
	}
	// A read that did not end is said where the commits are.
	if h.Partial != "" {
		wrap("  ", st.Bad.Render("✕ ")+"the read stopped before the end: "+kit.Clean(h.Partial)+"; only the commits read until then are listed, and newer ones may be missing")
	}
	if hs.refreshErr != "" {
		wrap("  ", st.Bad.Render("✕ ")+"not read again: "+kit.Clean(hs.refreshErr)+"; the commits below are as read "+kit.Age(s.now, h.At)+", and those since only as the tailer saw them")
	}
	if len(h.Commits) == 0 {
		wrap("  ", st.Muted.Render("no commit of this partition is left in the offsets topic"))
		return out
	}
	if lines, ok := s.commitLines(h.Commits, w); ok {
		for i, l := range lines {
			if i == hs.sel {
				hs.selLine = len(out)
			}
			out = append(out, l)
		}
		return out
	}
	for i, c := range h.Commits {
		mark := "  "
		if i == hs.sel {
			mark = st.FieldFocus.Render("▶ ")
			hs.selLine = len(out)
		}
		head := []string{kit.Age(s.now, c.Time), copyWord(st, c.Copy), kit.Clean(c.TopicPartition.String()) + "@" + kit.Count(c.Offset)}
		if s.inForce(c) {
			head = append(head, st.OK.Render("in force"))
		}
		if m := s.commitMark(c); m != "" {
			head = append(head, m)
		}
		lines := kit.WrapAtSpaces(strings.Join(head, " · "), w, "    ")
		lines[0] = "  " + mark + strings.TrimPrefix(lines[0], "    ")
		out = append(out, lines...)
		when := exactTime(c.Time) + " " + history.TimestampType(c.LogAppendTime)
		if c.Tailed {
			when = exactTime(c.Time) + " (read by the tailer since)"
		}
		wrap("      ", st.Muted.Render(when))
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

// commitMark says who wrote a commit, when koff did.
func (s *DetailScreen) commitMark(c HistoryCommit) string {
	switch {
	case c.Edit != nil:
		return s.st.Info.Render(fmt.Sprintf("koff %s by %s, edit %s", c.Edit.Kind, kit.Clean(orUnknown(c.Edit.User)), kit.Clean(c.Edit.ID)))
	case c.Koff:
		return s.st.Info.Render("written by koff")
	}
	return ""
}

// commitLines lays the commits out one a line, in columns (time, age,
// copy, place, in force, value, who wrote it), when every one fits the
// width w; ok is false when one does not, and they are wrapped instead.
func (s *DetailScreen) commitLines(commits []HistoryCommit, w int) (lines []string, ok bool) {
	st := s.st
	ageW, placeW, forceW := 0, 0, 0
	for _, c := range commits {
		ageW = max(ageW, ansi.StringWidth(kit.Age(s.now, c.Time)))
		placeW = max(placeW, ansi.StringWidth(kit.Clean(c.TopicPartition.String())+"@"+kit.Count(c.Offset)))
		if s.inForce(c) {
			forceW = len("in force")
		}
	}
	pad := func(text string, n int) string { return text + strings.Repeat(" ", max(n-ansi.StringWidth(text), 0)) }
	for i, c := range commits {
		mark := "  "
		if i == s.hist.sel {
			mark = st.FieldFocus.Render("▶ ")
		}
		when := exactTime(c.Time)
		if c.LogAppendTime {
			when += " LogAppendTime"
		}
		cols := []string{"  " + mark + when, pad(kit.Age(s.now, c.Time), ageW), pad(copyWord(st, c.Copy), 5),
			pad(kit.Clean(c.TopicPartition.String())+"@"+kit.Count(c.Offset), placeW)}
		if forceW > 0 {
			force := ""
			if s.inForce(c) {
				force = st.OK.Render("in force")
			}
			cols = append(cols, pad(force, forceW))
		}
		value := st.Bad.Render("✕ tombstone (offset deleted)")
		if c.Value != nil {
			value = kit.CleanBytes(text.JSONSafe(compactValue(c.Value)), kit.DetailMax)
		}
		cols = append(cols, value)
		if m := s.commitMark(c); m != "" {
			cols = append(cols, m)
		}
		l := strings.Join(cols, "  ")
		if ansi.StringWidth(l) > w {
			return nil, false
		}
		lines = append(lines, l)
	}
	return lines, true
}

// exactTime is a commit's time as koff history prints it (model.TimeText:
// UTC, to the millisecond Kafka keeps).
func exactTime(t time.Time) string { return model.TimeText(t) }

func copyWord(st *kit.Styles, copy string) string {
	switch copy {
	case history.CopyLive:
		return st.OK.Render("live")
	case history.CopyStray:
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
