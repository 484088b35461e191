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
	"github.com/charmbracelet/x/ansi"

	"koff/edit/planner"
	"koff/keymap"
	"koff/model"
	"koff/model/resume"
	"koff/ui/kit"
)

// prow is a row of the partitions screen, by pointer: a reload of 100,000
// rows of which some changed then moves pointers, not rows of some 300
// bytes.
type Prow = *model.PartitionRow

// partitionsScreen lists the source partitions of one connector, under a
// panel of its flush lag.
type PartitionsScreen struct {
	km            *keymap.KeyMap
	st            *kit.Styles
	ID            model.ConnectorID
	List          kit.List[Prow]
	now           time.Time
	topics        int
	width, height int
	needs         partitionNeeds
	// rest is what Connect's REST API says of the connector; inREST is
	// false when it does not list it, restOn when koff has no REST view.
	rest           model.ConnectorState
	inREST, restOn bool

	// The connector's row (its flushes, unflushed records, orphan mark),
	// its flush lag at now, and the partitions that stopped advancing
	// while it kept flushing (identity → how long).
	interval time.Duration
	conn     model.ConnectorRow
	hasConn  bool
	Report   model.FlushReport
	// staleCut: the live partitions updated before it stopped advancing
	// while the connector kept flushing (zero: none can be); staleN is how
	// many, and staleWide and staleNarrow the widest cell that says so
	// (FLAGS when wide, UPDATED when narrow). Counted, not collected: a
	// MirrorMaker connector can have 100,000 idle partitions.
	staleCut                       time.Time
	StaleN, StaleWide, StaleNarrow int
	rates                          RateCache
	// edited is when this dashboard applied an edit to each connector.
	Edited map[string]time.Time
	ranks  *rankCache
	// table is what the rows were read as, when read through
	// PartitionsSince (nil when they were read whole in place).
	Table *PartTable
	// loaded: the rows were read once (a big Source is read off the UI
	// goroutine, so a new screen can wait for its first snapshot).
	loaded bool
}

// partitionsPrepared is a reload of a big connector worked out off the UI
// goroutine: its rows, what the filter searches, the widths, and the
// rows of the filter and sort at the time.
type partitionsPrepared struct {
	id    model.ConnectorID
	rows  []Prow
	hay   []string
	needs partitionNeeds
	view  kit.ListView
	sort  int
	q     string
	selID string
	table *PartTable
	// rates are the progress rates at the snapshot's time, when worked
	// out with it.
	rates   RateCache
	ratesOK bool
}

func (s *PartitionsScreen) Prefetch() func(kit.Source, *Snapshot) {
	id, j, ranks, latest := s.ID, s.List.Job(), s.ranks, &s.List.Asked
	search := s.List.Search
	old, oldHay := j.Items, j.Hay
	table, rates := s.Table, s.rates
	return func(src kit.Source, snap *Snapshot) {
		if ss, ok := src.(sinceSource); ok {
			// Only what changed since the rows on screen were read, with
			// what was worked out of the others kept.
			t := ReadTable(ss, id, table, search)
			ranks.addTable(t)
			j.Items, j.Hay, j.Sorted, j.Prev, j.Yield = t.Rows, t.Hay, nil, nil, &kit.Yielder{}
			j.Sort, j.Query = latest.Get()
			p := partitionsPrepared{id: id, rows: t.Rows, hay: t.Hay, needs: t.Tally.Needs(), view: j.Run(), sort: j.Sort, q: j.Query, selID: j.SelID, table: t}
			if !snap.At.IsZero() {
				// A walk of every row and a read of histories: not on
				// the UI goroutine either.
				p.rates, p.ratesOK = rates.Next(src, t.Rows, snap.At, &kit.Yielder{}, t.Times()), true
			}
			snap.prepared = p
			return
		}
		read := src.Partitions(id)
		snap.parts = map[model.ConnectorID][]model.PartitionRow{id: read}
		rows := pointers(read)
		// What the filter searches and the partition order depend on the
		// partition maps alone: the same rows keep them.
		hay := oldHay
		if !sameRows(old, rows) || len(oldHay) != len(rows) {
			hay = kit.MakeHay(search, rows)
		}
		ranks.carry(old, rows)
		j.Items, j.Hay, j.Sorted, j.Prev, j.Yield = rows, hay, nil, nil, &kit.Yielder{}
		// The sort and filter asked for by now, not when the read began: a
		// key pressed meanwhile would otherwise find its order undone when
		// the snapshot lands, until it was worked out again.
		j.Sort, j.Query = latest.Get()
		snap.prepared = partitionsPrepared{id: id, rows: rows, hay: j.Hay, needs: MeasurePartitions(rows), view: j.Run(), sort: j.Sort, q: j.Query, selID: j.SelID}
	}
}

func (s *PartitionsScreen) ViewCmd() tea.Cmd { return s.List.ViewCmd() }
func (s *PartitionsScreen) Viewing() bool    { return s.List.Viewing() }

func (s *PartitionsScreen) ViewDone(msg kit.ViewMsg) {
	if s.List.ViewDone(msg) {
		s.Sync()
	}
}

// settled says the rows on screen are those of the filter and sort.
func (s *PartitionsScreen) Settled() bool { return s.loaded && !s.List.Stale }

// partitionNeeds are the widths the rows need and the counts in the title,
// measured once per Source change rather than on every key: a connector
// can have many thousands of source partitions. Measured over all rows, so
// the columns do not jump about while a filter is typed.
type partitionNeeds struct {
	partition, offset, tpShort, tpLong, flagsShort, flagsWide int
	// The widths of their values alone (fitJSON), for narrow screens.
	partitionValues, offsetValues int
	live, deleted, suspect        int
	// resumed counts rows with a resume check, gaps and replays those
	// whose check says so.
	resumed, gaps, replays int
}

func (s *PartitionsScreen) measure() { s.needs = MeasurePartitions(s.List.Items) }

func MeasurePartitions(rows []Prow) partitionNeeds {
	n := partitionNeeds{partition: len("SOURCE PARTITION"), offset: len("OFFSET"),
		tpShort: len("PART"), tpLong: len("TOPIC-PARTITION"), flagsShort: len("FLAGS"), flagsWide: len("FLAGS")}
	seen := map[model.Flags]bool{}
	for _, r := range rows {
		n.partition = max(n.partition, kit.CellWidth(kit.CleanJSON(r.Partition)))
		n.offset = max(n.offset, kit.CellWidth(offsetCell(*r)))
		n.partitionValues = max(n.partitionValues, kit.CompactWidth(r.Partition))
		n.offsetValues = max(n.offsetValues, kit.CompactWidth(offsetCell(*r)))
		n.tpShort = max(n.tpShort, len(tpText(*r, true)))
		n.tpLong = max(n.tpLong, len(tpText(*r, false)))
		if !seen[r.Flags] { // flags cells are few: measure each once
			seen[r.Flags] = true
			n.flagsShort = max(n.flagsShort, ansi.StringWidth(flagsCell(r.Flags, false)))
			n.flagsWide = max(n.flagsWide, ansi.StringWidth(flagsCell(r.Flags, true)))
		}
		if r.Deleted {
			n.deleted++
		} else {
			n.live++
		}
		if r.Flags.Suspect() {
			n.suspect++
		}
		if r.Resume != nil {
			n.resumed++
			switch r.Resume.State {
			case resume.Gap:
				n.gaps++
			case resume.Replay:
				n.replays++
			}
		}
	}
	return n
}

func NewPartitionsScreen(km *keymap.KeyMap, st *kit.Styles, id model.ConnectorID, topics int, interval time.Duration) *PartitionsScreen {
	s := &PartitionsScreen{
		km:       km,
		st:       st,
		ID:       id,
		topics:   topics,
		interval: interval,
		ranks:    &rankCache{},
		List: kit.NewList(st, func(r Prow) string { return partitionIdentity(*r) },
			func(r Prow, q string) bool {
				return strings.Contains(strings.ToLower(r.Partition), q) ||
					strings.Contains(strings.ToLower(r.ID.TopicPartition.String()), q)
			},
			kit.SortOrder[Prow]{Name: "partition", Cmp: func(a, b Prow) int { return ByPartition(*a, *b) }},
			kit.SortOrder[Prow]{Name: "offset", Cmp: func(a, b Prow) int {
				// Deleted partitions (no offset) go last.
				if (a.Offset == "") != (b.Offset == "") {
					return cmp.Compare(b.Offset, a.Offset)
				}
				return cmp.Or(naturalCompare(a.Offset, b.Offset), ByPartition(*a, *b))
			}},
			kit.SortOrder[Prow]{Name: "updated (newest first)", Cmp: func(a, b Prow) int {
				return cmp.Or(b.Updated.Compare(a.Updated), ByPartition(*a, *b))
			}},
			kit.SortOrder[Prow]{Name: "topic-partition", Cmp: func(a, b Prow) int {
				return cmp.Or(strings.Compare(a.ID.Topic, b.ID.Topic), cmp.Compare(a.ID.Partition, b.ID.Partition), ByPartition(*a, *b))
			}},
		),
	}
	s.List.Search = func(r Prow) []string { return []string{r.Partition, r.ID.TopicPartition.String()} }
	s.List.Keyed = s.ranks.partitionSorts
	s.List.Ordered = s.ranks.partitionOrder
	s.List.Matched = s.ranks.partitionMatches
	s.List.MatchID = isPartition
	return s
}

func (s *PartitionsScreen) Refresh(src kit.Source, now time.Time, reload bool) {
	s.now = now
	ratesOK := false
	if snap, ok := src.(*Snapshot); ok && reload {
		if p, ok := snap.prepared.(partitionsPrepared); ok && p.id == s.ID {
			if p.ratesOK {
				s.rates, ratesOK = p.rates, true
			}
			// Worked out off the UI goroutine: so are filter and sort from now.
			s.List.Async = true
			s.List.TakeItems(p.rows, p.hay, p.view, p.sort, p.q, p.selID)
			s.needs, s.Table = p.needs, p.table
		} else {
			s.reloadRows(src.Partitions(s.ID))
		}
		s.loaded = true
	} else if reload {
		s.reloadRows(src.Partitions(s.ID))
		s.loaded = true
	}
	if reload {
		r := src.REST()
		s.restOn = kit.RESTAvailable(r)
		s.rest, s.inREST = r.Connectors[s.ID.Name]
		s.conn, s.hasConn = model.ConnectorRow{}, false
		for _, c := range src.Connectors() {
			if c.ID == s.ID && c.Type != "sink" {
				s.conn, s.hasConn = c, true
				break
			}
		}
		if !ratesOK {
			s.rates.Update(src, s.List.Items, now)
		}
	}
	s.Report = kit.JudgeFlush(s.conn, now, s.interval)
	s.CountStale(now)
	s.Sync()
}

// countStale finds the partitions that stopped advancing, as
// model.StalePartitions does (older than three flush intervals of a
// connector that flushes on time), with the widths of the cells that say
// so, without making those cells.
func (s *PartitionsScreen) CountStale(now time.Time) {
	s.staleCut, s.StaleN, s.StaleWide, s.StaleNarrow = time.Time{}, 0, 0, 0
	rep := s.Report
	if rep.Status != model.FlushOK || rep.Interval == 0 {
		return
	}
	s.staleCut = now.Add(-3 * rep.Interval)
	flagsW := map[model.Flags]int{}
	// A table's update times and tombstones tell the stale rows without
	// reading the 100,000 rows (isStale).
	times := s.Table.madeTimes(s.List.Items)
	cut := UnixNano(s.staleCut)
	for i := range s.List.Items {
		if times != nil && (times.Deleted[i] || times.Updates[i] >= cut) {
			continue
		}
		r := s.List.Items[i]
		if !s.IsStale(*r) {
			continue
		}
		s.StaleN++
		d := now.Sub(r.Updated)
		w := staleTextWidth + kit.DurWidth(d)
		fw, ok := flagsW[r.Flags]
		if !ok {
			fw = ansi.StringWidth(flagsCell(r.Flags, true))
			flagsW[r.Flags] = fw
		}
		if fw > 0 {
			w += 1 + fw
		}
		s.StaleWide = max(s.StaleWide, w)
		s.StaleNarrow = max(s.StaleNarrow, 2+kit.AgeWidth(d)) // "◌ " + age
	}
}

// isStale says the partition stopped advancing (countStale).
func (s *PartitionsScreen) IsStale(r model.PartitionRow) bool {
	return !s.staleCut.IsZero() && !r.Deleted && r.Updated.Before(s.staleCut)
}

// reloadRows takes in rows read in place; the same partitions as before
// keep what the filter searches and their order.
func (s *PartitionsScreen) reloadRows(read []model.PartitionRow) {
	s.Table = nil
	rows := pointers(read)
	var hay []string
	if sameRows(s.List.Items, rows) {
		hay = s.List.Hay
		s.ranks.carry(s.List.Items, rows)
	}
	s.List.SetItemsHay(rows, hay)
	s.measure()
}

// panelLines is how many lines the flush panel takes above the table.
func (s *PartitionsScreen) panelLines() int {
	return len(s.panel())
}

// knownPartitions are the connector's stored source partitions, in
// canonical form, for the "add a source partition" form to recognise one.
func (s *PartitionsScreen) KnownPartitions() map[string]bool {
	known := make(map[string]bool, len(s.List.Items))
	for _, r := range s.List.Items {
		if r.Deleted {
			continue
		}
		if k, err := model.ParseKey([]byte(r.ID.Key)); err == nil {
			known[kit.CanonPartition(k.Partition)] = true
		}
	}
	return known
}

// siblingShapes are the connector's live partition maps (at most a few
// hundred: enough to know its shapes) and the offset shapes it wrote,
// learnt from the history of the selected row first, as the CLI's plan
// learns them.
func (s *PartitionsScreen) SiblingShapes(src kit.Source, selected model.PartitionRow) kit.SiblingShapes {
	var sib kit.SiblingShapes
	rows := make([]model.PartitionRow, 0, len(s.List.Items)+1)
	if selected.ID.Key != "" {
		rows = append(rows, selected)
	}
	for _, r := range s.List.Items {
		if r.ID != selected.ID {
			rows = append(rows, *r)
		}
		if r.Deleted || len(sib.Partitions) >= 500 {
			continue
		}
		k, err := model.ParseKey([]byte(r.ID.Key))
		if err != nil || k.Partition == nil {
			continue
		}
		sib.Partitions = append(sib.Partitions, k.Partition)
	}
	sib.Offsets = planner.WrittenShapes(src, rows)
	return sib
}

func (s *PartitionsScreen) SetSize(width, height int) {
	s.width, s.height = width, height
	s.List.SetSize(width, height-3-s.panelLines()) // title, table header, detail line
	s.Sync()
}

func (s *PartitionsScreen) FilterValue() string { return s.List.Filter }

// setFilter and cycleSort lay the table out again when the rows changed:
// a view worked out off the UI goroutine leaves the rows on screen as
// they are until it lands (viewDone), and only the title says it is
// under way.
func (s *PartitionsScreen) SetFilter(q string) { s.List.SetFilter(q); s.syncIfApplied() }
func (s *PartitionsScreen) CycleSort()         { s.List.CycleSort(); s.syncIfApplied() }

func (s *PartitionsScreen) syncIfApplied() {
	if !s.List.Stale {
		s.Sync()
	}
}

func (s *PartitionsScreen) HandleKey(msg tea.KeyPressMsg) Action {
	if moveList(&s.List, s.km, msg) {
		s.Sync()
		return nil
	}
	if key.Matches(msg, s.km.Open) {
		if r, ok := s.List.Selected(); ok {
			return OpenPartition{r.ID}
		}
	}
	return nil
}

func (s *PartitionsScreen) Sync() {
	c := s.columns()
	tpTitle := "TOPIC-PARTITION"
	if c.short {
		tpTitle = kit.FitRight("PART", c.tp)
	}
	cols := []table.Column{
		{Title: "SOURCE PARTITION", Width: c.partition},
		{Title: "OFFSET", Width: c.offset},
		{Title: tpTitle, Width: c.tp},
		{Title: kit.FitRight("UPDATED", c.updated), Width: c.updated},
	}
	if c.resume > 0 {
		cols = append(cols, table.Column{Title: "RESUME", Width: c.resume})
	}
	if c.flags > 0 {
		cols = append(cols, table.Column{Title: "FLAGS", Width: c.flags})
	}
	s.List.Sync(cols, func(r Prow) []string {
		part := kit.FitJSON(r.Partition, c.partition)
		if c.flags == 0 && r.Flags.Suspect() { // no FLAGS column: the row says it
			part = "⚠ " + kit.FitJSON(r.Partition, c.partition-2)
		}
		cells := []string{
			part,
			kit.FitJSON(offsetCell(*r), c.offset),
			tpCell(*r, c),
			kit.FitRight(s.UpdatedCell(*r, c.wide), c.updated),
		}
		if c.resume > 0 {
			cells = append(cells, partitionResumeCell(s.st, r.Resume, c.resume))
		}
		if c.flags > 0 {
			cells = append(cells, s.RowFlags(*r, c.wide))
		}
		return cells
	})
}

func (s *PartitionsScreen) View() string {
	live, deleted, suspect := s.needs.live, s.needs.deleted, s.needs.suspect
	name := kit.Clean(s.ID.Name)
	if s.topics > 1 {
		name += " (" + kit.Clean(s.ID.Topic) + ")"
	}
	if !s.loaded { // a big Source: its first snapshot is being read
		title := titleLine(s.st, s.width, "Connectors › "+name, []string{"reading its source partitions…"}, nil)
		return title + "\n" + s.st.Muted.Render(kit.Truncate("  Reading the source partitions and flushes of "+name+"…", s.width))
	}
	var info []string
	// A restart that loses or reads data again first: a narrow title
	// cuts the end.
	if n := s.needs.gaps; n > 0 {
		info = append(info, kit.Count(n)+" gap")
	}
	if n := s.needs.replays; n > 0 {
		info = append(info, kit.Count(n)+" replay")
	}
	switch {
	case s.restOn && s.inREST:
		info = append(info, kit.StateText(s.rest.State))
		w := 12 // "1/2 ✗1" where the title is short of room
		if s.width >= 120 {
			w = 30
		}
		if tasks := kit.RESTTasksCell(model.ConnectorRow{REST: s.rest, InREST: true}, w); tasks != "–" {
			info = append(info, "tasks "+tasks)
		}
	case s.restOn && s.conn.Orphaned:
		info = append(info, orphanedText)
	case s.restOn:
		info = append(info, kit.NotInREST)
	}
	// What needs a look comes before the counts: a narrow title cuts the end.
	if suspect > 0 {
		info = append(info, "⚠ "+kit.Count(suspect)+" suspect")
	}
	if n := s.StaleN; n > 0 {
		info = append(info, "◌ "+kit.Count(n)+" not advancing")
	}
	info = append(info, kit.Plural(live, "source partition", "source partitions"))
	if deleted > 0 {
		info = append(info, kit.Count(deleted)+" deleted")
	}
	title := titleLine(s.st, s.width, "Connectors › "+name, info, s.List.ViewInfo())
	empty := "No source partitions: the connector has no offsets in this topic."
	if s.List.Filter != "" && len(s.List.Items) > 0 {
		empty = fmt.Sprintf("No source partition contains %q.", s.List.Filter)
	}
	parts := []string{title}
	parts = append(parts, s.panel()...)
	return strings.Join(append(parts, s.List.View(empty), s.detailLine()), "\n")
}

// detailLine is the selected row in full under the table, where a narrow
// column cuts it: its flags in words, its offset, its source partition.
func (s *PartitionsScreen) detailLine() string {
	r, ok := s.List.Selected()
	if !ok {
		return ""
	}
	st := s.st
	var parts []string
	// A restart that loses or reads data again comes first, and so does
	// any check a narrow table has no RESUME column for.
	bad := r.Resume != nil && (r.Resume.State == resume.Gap || r.Resume.State == resume.Replay || s.columns().resume == 0)
	if bad {
		parts = append(parts, resumeWords(st, r.Resume, s.now))
	}
	if f := s.RowFlags(*r, true); f != "" {
		parts = append(parts, st.Warn.Render(strings.ReplaceAll(f, ",", ", ")))
	}
	parts = append(parts, st.Label.Render("offset ")+offsetCell(*r), st.Label.Render("partition ")+kit.CleanJSON(r.Partition))
	if !bad && r.Resume != nil {
		parts = append(parts, resumeWords(st, r.Resume, s.now))
	}
	return kit.Truncate("↳ "+strings.Join(parts, st.Muted.Render(" · ")), s.width)
}

// ShortHelp names the two common edits when editing is on; the unparseable
// key gives way to them (the header names it too).
func (s *PartitionsScreen) ShortHelp() []key.Binding {
	keys := []key.Binding{s.km.Open, backBinding(s.km, s.List.Filter, true), s.km.Filter, s.km.Sort}
	if s.km.EditOffset.Enabled() {
		keys = append(keys, kit.Short(s.km.EditOffset, "edit"), kit.Short(s.km.ResetOffset, "reset"))
		if s.conn.Orphaned { // its offsets wait for a connector of its name
			keys = append(keys, kit.Short(s.km.Copy, "copy to…"))
		}
	} else {
		keys = append(keys, s.km.Unparseable)
	}
	return append(keys, s.km.Help, s.km.Quit)
}

func (s *PartitionsScreen) FullHelp() [][]key.Binding {
	return append(tableFullHelp(s.km, s.km.Open, backBinding(s.km, s.List.Filter, true), true, true, "copy offset"),
		[]key.Binding{s.km.EditOffset, s.km.ResetOffset, s.km.NewPartition, s.km.ResetAll, kit.Short(s.km.Copy, "copy offsets to…"),
			s.km.RewindTime, s.km.Stop, s.km.Resume, s.km.Undo})
}

// pointers are the rows of read as the screen holds them.
func pointers(read []model.PartitionRow) []Prow {
	rows := make([]Prow, len(read))
	for i := range read {
		rows[i] = &read[i]
	}
	return rows
}

// selected is the selected row, a copy.
func (s *PartitionsScreen) Selected() (model.PartitionRow, bool) {
	if r, ok := s.List.Selected(); ok {
		return *r, true
	}
	return model.PartitionRow{}, false
}

// clip on the partitions table is the selected source partition's offset
// as the Store holds it: compact JSON, byte for byte what the table shows.
func (s *PartitionsScreen) Clip() (string, string, error) {
	r, ok := s.Selected()
	switch {
	case !ok:
		return "", "", errors.New("no source partition selected")
	case r.Deleted || r.Offset == "":
		return "", "", errors.New("nothing to copy: this source partition's offset is deleted (its latest record is a tombstone)")
	}
	return r.Offset, "offset of " + kit.TruncateMiddle(r.Partition, kit.ClipWhatWidth), nil
}
