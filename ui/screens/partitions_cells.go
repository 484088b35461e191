package screens

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"koff/model"
	"koff/ui/kit"
)

// wideFlags is the width from which flags are spelled out in full.
const wideFlags = 140

// flagsCell names a partition's flags: in full on wide terminals, in short
// words on narrow ones, with ⚠ when the stored offset may not be the one a
// worker reads.
func flagsCell(f model.Flags, wide bool) string {
	words := f.Words()
	if len(words) == 0 {
		return ""
	}
	if !wide {
		short := map[string]string{"duplicate": "dup", "non-canonical": "noncanon"}
		for i, w := range words {
			if s, ok := short[w]; ok {
				words[i] = s
			}
		}
		// The words that say the task reads another value go first: a
		// narrow cell cuts its end.
		first := map[string]int{"stray": 0, "unreadable": 1}
		sort.SliceStable(words, func(i, j int) bool {
			a, okA := first[words[i]]
			b, okB := first[words[j]]
			return okA && (!okB || a < b)
		})
	}
	s := strings.Join(words, ",")
	if f.Suspect() {
		s = "⚠ " + s
	}
	return s
}

// tpText is where the record lives: "connect-offsets/11", or "11" when short.
func tpText(r model.PartitionRow, short bool) string {
	if short {
		return strconv.Itoa(r.ID.Partition)
	}
	return r.ID.TopicPartition.String()
}

// staleText marks a source partition that stopped advancing while its
// connector kept flushing.
func staleText(d time.Duration) string { return "◌ not advancing " + kit.ShortDur(d) }

// staleTextWidth is the width of staleText before the duration.
var staleTextWidth = ansi.StringWidth("◌ not advancing ")

// rowFlags is the FLAGS cell. Wide, it starts with "◌ not advancing";
// narrow, the UPDATED cell carries the ◌ instead (updatedCell), so the
// JSON keeps its room.
func (s *PartitionsScreen) RowFlags(r model.PartitionRow, wide bool) string {
	f := flagsCell(r.Flags, wide)
	stale := s.IsStale(r)
	d := s.now.Sub(r.Updated)
	switch {
	case !stale || !wide:
		return f
	case f == "":
		return staleText(d)
	}
	return staleText(d) + " " + f
}

// updatedCell is how long ago the partition's offset last changed, with ◌
// on a narrow screen when it stopped advancing while its connector flushes.
func (s *PartitionsScreen) UpdatedCell(r model.PartitionRow, wide bool) string {
	if s.IsStale(r) && !wide {
		return "◌ " + kit.Age(s.now, r.Updated)
	}
	return kit.Age(s.now, r.Updated)
}

func tpCell(r model.PartitionRow, c partitionColumns) string {
	if c.short { // a bare number: align it as one
		return kit.FitRight(tpText(r, true), c.tp)
	}
	return tpText(r, false)
}

func offsetCell(r model.PartitionRow) string {
	if r.Deleted {
		return "✕ deleted"
	}
	return kit.CleanJSON(r.Offset)
}

type partitionColumns struct {
	partition, offset, tp, updated, flags int
	// resume is the RESUME column, shown once a check reached a row.
	resume int
	wide   bool
	// short shows only the partition number of the offsets topic: with
	// one topic (named in the header) the topic name on every row would
	// take the room the JSON needs at 80 columns.
	short bool
}

// columns gives the JSON columns the slack, split by how much each needs.
func (s *PartitionsScreen) columns() partitionColumns {
	n := s.needs
	c := partitionColumns{tp: min(n.tpLong, 28), updated: len("just now"), flags: min(n.flagsShort, 14),
		wide: s.width >= wideFlags, short: s.topics <= 1 && s.width < 120}
	if c.short {
		c.tp = n.tpShort
	}
	if c.wide {
		c.flags = min(n.flagsWide, 40)
	}
	if s.StaleN > 0 {
		if c.wide {
			c.flags = max(c.flags, min(s.StaleWide, 40))
		} else {
			c.updated = max(c.updated, s.StaleNarrow)
		}
	}
	// RESUME once a check reached a row; under 80 columns only when a
	// partition has a gap or a replay (the detail line says the rest).
	if n.resumed > 0 && (s.width >= 80 || n.gaps+n.replays > 0) {
		c.resume = len("unknown") // every word whole; "gap 260" where it fits
	}
	needP, needO := n.partition, n.offset
	avail := s.width - (2 + c.tp + 1 + c.updated + 1 + c.flags + 1 + 2)
	if c.resume > 0 {
		avail -= c.resume + 1
	}
	if avail < 20 || s.width < 80 { // narrow: the flags go to the detail line, a ⚠ on the row
		avail += c.flags + 1
		c.flags = 0
	}
	avail = max(avail, 2)
	// The offset is what an operator acts on: it gets the room to show
	// every number whole (its values alone if need be) before the
	// partition map gets more than its values' room.
	if needP+needO <= avail {
		c.partition, c.offset = needP, needO
		// Room to spare: the flags get all of it they need, rather than
		// ending in "…" beside empty columns.
		if c.flags > 0 {
			need := n.flagsShort
			if c.wide {
				need = n.flagsWide
			}
			c.flags += max(min(need-c.flags, avail-needP-needO), 0)
		}
	} else {
		o := min(needO, avail-min(needP, max(n.partitionValues, 8)))
		o = max(o, min(n.offsetValues, avail-6))
		c.offset = max(min(o, avail-1), 1)
		c.partition = max(avail-c.offset, 1)
	}
	return c
}
