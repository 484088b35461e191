package screens

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"koff/keymap"
	"koff/model"
	"koff/model/java"
	"koff/model/text"
	"koff/ui/kit"
)

// detailScreen shows everything known about one source partition in a
// scrollable viewport.
type DetailScreen struct {
	km            *keymap.KeyMap
	st            *kit.Styles
	conn          model.ConnectorID
	id            model.PartitionID
	d             model.PartitionDetail
	found         bool
	partitions    int // of the offsets topic, 0 when unknown
	topics        int
	now           time.Time
	vp            viewport.Model
	width, height int
	hist          historyState
	// live is the copy the task reads (d itself when it is live), for the
	// history's commit in force; tail the Tailer's state, whose Reloaded
	// says when what was read is gone.
	live      model.PartitionDetail
	liveFound bool
	tail      model.TailStatus
}

func NewDetailScreen(km *keymap.KeyMap, st *kit.Styles, conn model.ConnectorID, id model.PartitionID, topics int) *DetailScreen {
	return &DetailScreen{km: km, st: st, conn: conn, id: id, topics: topics, vp: viewport.New()}
}

func (s *DetailScreen) Refresh(src kit.Source, now time.Time, reload bool) {
	s.now = now
	if reload {
		s.d, s.found = src.Partition(s.id)
		s.live, s.liveFound = s.d, s.found && s.d.Live
		if s.found && !s.d.Live && s.d.LiveCopy != nil {
			s.live, s.liveFound = src.Partition(*s.d.LiveCopy)
		}
		stats := src.Stats()
		s.partitions = stats.Topics[s.id.Topic]
		s.tail = stats.Status
		s.followStore()
	}
	s.Sync()
}

func (s *DetailScreen) Prefetch() func(kit.Source, *Snapshot) {
	id := s.id
	return func(src kit.Source, snap *Snapshot) {
		d, _ := src.Partition(id)
		snap.detail = map[model.PartitionID]model.PartitionDetail{id: d}
		if d.LiveCopy != nil && *d.LiveCopy != id {
			live, _ := src.Partition(*d.LiveCopy)
			snap.detail[*d.LiveCopy] = live
		}
	}
}

func (s *DetailScreen) SetSize(width, height int) {
	s.width, s.height = width, height
	s.vp.SetWidth(width)
	s.vp.SetHeight(max(height-1, 1))
	s.Sync()
}

// sync rebuilds the content; the viewport keeps its scroll offset.
func (s *DetailScreen) Sync() {
	s.vp.SetContentLines(s.Content())
}

func (s *DetailScreen) HandleKey(msg tea.KeyPressMsg) Action {
	switch {
	case key.Matches(msg, s.km.NewerCommit):
		s.moveCommit(-1)
	case key.Matches(msg, s.km.OlderCommit):
		s.moveCommit(1)
	default:
		kit.ScrollViewport(&s.vp, s.km, msg)
	}
	return nil
}

func (s *DetailScreen) View() string {
	name := kit.Clean(s.conn.Name)
	if s.topics > 1 {
		name += " (" + kit.Clean(s.conn.Topic) + ")"
	}
	partition := kit.CleanJSON(s.d.Partition)
	if !s.found {
		partition = kit.CleanBytes([]byte(s.id.Key), kit.CellMax)
	}
	info := []string{s.id.TopicPartition.String()}
	var scroll []string
	if total := s.vp.TotalLineCount(); total > s.vp.Height() {
		first := s.vp.YOffset() + 1
		last := min(s.vp.YOffset()+s.vp.Height(), total)
		scroll = append(scroll, fmt.Sprintf("lines %d–%d of %d", first, last, total))
	}
	title := titleLine(s.st, s.width, name+" › "+partition, info, scroll)
	return title + "\n" + s.vp.View()
}

// content renders the detail at the screen's width. Keys and values are
// shown wrapped if they must be, and in full up to detailMax bytes (y
// copies a whole offset): this is the screen an operator copies offsets
// from, and a 1 MB key must not cost a core to re-wrap every second.
func (s *DetailScreen) Content() []string {
	w := max(s.width, 20)
	if !s.found {
		return []string{"", s.st.Bad.Render("✕ This source partition is no longer in the offsets topic.")}
	}
	d := s.d
	var out []string
	section := func(title string, info ...string) {
		if len(out) > 0 {
			out = append(out, "")
		}
		line := s.st.Section.Render(title)
		if len(info) > 0 {
			line += s.st.Muted.Render("  " + strings.Join(info, " · "))
		}
		out = append(out, ansi.Truncate(line, w, "…"))
	}
	indented := func(text string) {
		for _, l := range kit.WrapLines(text, w-2) {
			out = append(out, "  "+l)
		}
	}
	prose := func(prefix, text string) {
		lines := strings.Split(ansi.Wrap(text, w-2-ansi.StringWidth(prefix), " "), "\n")
		for i, l := range lines {
			if i == 0 {
				out = append(out, "  "+prefix+l)
			} else {
				out = append(out, "  "+strings.Repeat(" ", ansi.StringWidth(prefix))+l)
			}
		}
	}

	section("Key", kit.Plural(len(d.Key), "byte", "bytes")+" as written")
	indented(kit.CleanBytes(d.Key, kit.DetailMax))

	section("Placement")
	prose("lives in   ", kit.Clean(d.ID.TopicPartition.String()))
	switch {
	case d.Expected < 0:
		prose("murmur2    ", "unknown: the number of partitions of "+kit.Clean(d.ID.Topic)+" is not known yet")
	case d.Expected == d.ID.Partition:
		prose("murmur2    ", fmt.Sprintf("✓ partition %d of %d: where a worker writes this key", d.Expected, s.partitions))
	default:
		prose("murmur2    ", fmt.Sprintf("✗ partition %d of %d: a worker writes this key there, not here", d.Expected, s.partitions))
	}
	var others []string
	for _, p := range d.Homes {
		if p != d.ID.Partition {
			others = append(others, kit.Clean(d.ID.Topic)+"/"+strconv.Itoa(p))
		}
	}
	if len(others) > 0 {
		prose("also in    ", "⚠ "+strings.Join(others, ", "))
	}

	section("Flags")
	if words, why := d.Flags.Words(), d.Flags.Explain(); len(words) > 0 {
		for i := range words {
			glyph := "⚠ " // duplicate and misplaced: a worker may read another value
			if words[i] == "non-canonical" {
				glyph = "• "
			}
			prose(glyph, words[i]+": "+why[i])
		}
	} else {
		prose("✓ ", "none: the key is canonical and stored once, in its murmur2 partition.")
	}

	section("Source partition")
	if d.PartitionMap == nil {
		indented("null")
	} else {
		indented(kit.CleanBlock(java.Pretty(d.PartitionMap, "  "), kit.DetailMax))
	}

	section("Offset", "record offset "+kit.Count(d.RecordOffset), "updated "+kit.Age(s.now, d.Updated), kit.Plural(d.Updates, "update", "updates"))
	if d.Value == nil {
		prose("✕ ", "deleted: the latest record is a tombstone, so a restarted task starts without an offset.")
	} else if o, err := model.ParseOffset(d.Value); err == nil {
		indented(kit.CleanBlock(java.Pretty(o, "  "), kit.DetailMax))
	} else {
		indented(kit.CleanBytes(d.Value, kit.DetailMax))
	}

	section("Will it resume?", resumeInfo(d.Resume, s.now)...)
	if r := d.Resume; r == nil {
		switch {
		case !d.Live && d.LiveCopy != nil:
			prose(kit.NotChecked+" ", "not this copy: the check is of the copy a restarted task reads, "+kit.Clean(d.LiveCopy.TopicPartition.String()))
		case d.TaskReads == "":
			prose(kit.NotChecked+" ", "no offset to resume from: a restarted task starts this partition as a new one")
		default:
			prose(kit.NotChecked+" ", "not checked yet: koff checks the copies tasks read, at each refresh")
		}
	} else {
		prose("state      ", s.st.ResumeStyle(r.State).Render(resumeHead(r)))
		if r.Position != "" {
			prose("position   ", kit.Clean(r.Position))
		}
		if r.ResumesAt != "" {
			prose("resumes at ", kit.Clean(r.ResumesAt))
		}
		if r.Action != "" {
			prose("on restart ", kit.Clean(kit.OneLine(r.Action)))
		}
		if r.Reason != "" {
			prose("why        ", kit.Clean(kit.OneLine(r.Reason)))
		}
	}

	// Why a copy is or is not read (the stray flag's "see why below"),
	// left out for the common case of the one copy, read as stored.
	if !d.Live || d.JavaReads != "" || d.TaskNote != "" {
		section("What a restarted task reads")
		switch {
		case d.Live && d.JavaReads != "":
			prose("✓ ", "this copy, read as "+kit.Clean(d.JavaReads)+" (Java's Long and Double)")
		case d.Live:
			prose("✓ ", "this copy")
		default:
			if d.Stray != "" {
				prose("✗ ", "not this copy: "+kit.Clean(d.Stray))
			}
			if d.LiveCopy != nil {
				prose("reads      ", kit.Clean(d.LiveCopy.TopicPartition.String())+": "+kit.Clean(d.TaskReads))
			} else if d.NoOffset != "" {
				prose("✕ ", "no offset: "+kit.Clean(d.NoOffset))
			}
		}
		if d.TaskNote != "" {
			prose("note       ", kit.Clean(d.TaskNote))
		}
	}

	if s.hist.h != nil {
		return s.historyLines(out, w) // every retained commit, which the recent updates are the tail of
	}
	section("Recent updates", "newest first", kit.Plural(len(d.History), "kept", "kept"))
	for i := len(d.History) - 1; i >= 0; i-- {
		u := d.History[i]
		head := fmt.Sprintf("%s  record offset %s  ", model.TimeText(u.Time), kit.Count(u.RecordOffset))
		head += s.st.Info.Render(updateSummary(d.History, i))
		out = append(out, "  "+ansi.Truncate(head, w-2, "…"))
		if u.Value != nil {
			out = append(out, "      "+kit.Truncate(compactJSON(u.Value), w-6))
		}
	}
	return s.historyLines(out, w)
}

// updateSummary says what update i changed relative to update i-1.
func updateSummary(h []model.Update, i int) string {
	u := h[i]
	if u.Value == nil {
		return "✕ tombstone (offset deleted)"
	}
	if i == 0 {
		return "oldest kept"
	}
	prev := h[i-1]
	if prev.Value == nil {
		return "recreated after a tombstone"
	}
	a, err1 := model.ParseOffset(prev.Value)
	b, err2 := model.ParseOffset(u.Value)
	if err1 != nil || err2 != nil {
		return ""
	}
	ch := kit.OffsetChanges(a, b)
	if len(ch) == 0 {
		return "= unchanged"
	}
	return "Δ " + strings.Join(ch, ", ")
}

// compactJSON shows a value on one line, escaped where it does not print,
// and at most cellMax bytes of it: a line shows no more.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		raw = b.Bytes()
	}
	return kit.CleanBytes(text.JSONSafe(raw), kit.CellMax)
}

func (s *DetailScreen) ShortHelp() []key.Binding {
	scroll := s.km.Down
	scroll.SetHelp("↑↓/pgdn", "scroll")
	if s.hist.h == nil { // no history read (yet): nothing to choose
		return []key.Binding{scroll, s.km.Back, kit.Short(s.km.Clipboard, "copy offset"), s.km.Unparseable, s.km.Help, s.km.Quit}
	}
	commit := s.km.OlderCommit
	commit.SetHelp("[/]", "choose commit")
	return []key.Binding{scroll, commit, kit.Short(s.km.ToCommit, "edit to commit"), s.km.Back, kit.Short(s.km.Clipboard, "copy offset"), s.km.Help, s.km.Quit}
}

func (s *DetailScreen) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{s.km.Up, s.km.Down, s.km.PageUp, s.km.PageDown, s.km.Home, s.km.End},
		{s.km.NewerCommit, s.km.OlderCommit, s.km.ToCommit},
		// The partition shown, and its connector, as on its row.
		{s.km.EditOffset, s.km.ResetOffset, s.km.ResetAll, kit.Short(s.km.Copy, "copy offsets to…"),
			s.km.RewindTime, s.km.Stop, s.km.Resume, s.km.Undo},
		{s.km.Back, kit.Short(s.km.Clipboard, "copy offset"), s.km.Context},
		{s.km.Unparseable, s.km.Help, s.km.Quit},
	}
}

// clip on the detail view is the partition's offset, as on its row.
func (s *DetailScreen) Clip() (string, string, error) {
	switch {
	case !s.found:
		return "", "", errors.New("nothing to copy: this source partition is no longer in the offsets topic")
	case s.d.Deleted || s.d.Offset == "":
		return "", "", errors.New("nothing to copy: this source partition's offset is deleted (its latest record is a tombstone)")
	}
	return s.d.Offset, "offset of " + kit.TruncateMiddle(s.d.Partition, kit.ClipWhatWidth), nil
}
