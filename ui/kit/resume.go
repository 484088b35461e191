package kit

import (
	"strconv"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"koff/model"
	"koff/model/resume"
)

// NotChecked is the resume cell of a row no check has reached yet.
const NotChecked = "–"

// ResumeStyle colours a resume state: a gap is data lost, a replay data
// read again, unknown a check koff could not make.
func (st *Styles) ResumeStyle(s resume.State) lipgloss.Style {
	switch s {
	case resume.Gap:
		return st.Bad
	case resume.Replay:
		return st.Warn
	case resume.Resumes:
		return st.OK
	}
	return st.Muted
}

// ResumeCell is a resume state in w cells: the word always ("gap",
// "replay", "unknown", "resumes"), then what it loses or reads again when
// that fits ("gap 4", "replay 1.2M", "gap 3.1 MB"): a narrow column drops
// the amount, never the word.
func ResumeCell(s resume.State, lost, replayed resume.Amount, w int) string {
	word := string(s)
	if s == "" {
		return NotChecked
	}
	var amount string
	switch s {
	case resume.Gap:
		amount = ShortAmount(lost)
	case resume.Replay:
		amount = ShortAmount(replayed)
	}
	if amount != "" && ansi.StringWidth(word)+1+ansi.StringWidth(amount) <= w {
		return word + " " + amount
	}
	return word
}

// ConnectorResumeCell is a connector row's resume cell in w cells.
func ConnectorResumeCell(r *model.ConnectorResume, w int) string {
	if r == nil {
		return NotChecked
	}
	return ResumeCell(r.State, r.Lost, r.Replayed, w)
}

// PartitionResumeCell is a partition row's resume cell in w cells.
func PartitionResumeCell(r *model.PartitionResume, w int) string {
	if r == nil {
		return NotChecked
	}
	return ResumeCell(r.State, r.Lost, r.Replayed, w)
}

// ShortAmount is an amount for a cell: records as a number ("4",
// "12,345", "1.2M"), else bytes with their unit ("3.1 MB"); "" when
// nothing was counted.
func ShortAmount(a resume.Amount) string {
	switch {
	case a.Records >= 0:
		return shortCount(a.Records)
	case a.Bytes >= 0:
		return shortBytes(a.Bytes)
	}
	return ""
}

// shortCount is n in at most six cells: 12,345, then 123.4k, 1.2M.
func shortCount(n int64) string {
	switch {
	case n < 100_000:
		return Count(n)
	case n < 1_000_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	case n < 1_000_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	}
	return strconv.FormatFloat(float64(n)/1e9, 'f', 1, 64) + "G"
}

// shortBytes is n bytes in decimal units, as WAL and binlog sizes are
// usually read: "512 B", "3.1 MB".
func shortBytes(n int64) string {
	if n < 1000 {
		return strconv.FormatInt(n, 10) + " B"
	}
	f, unit := float64(n), ""
	for _, u := range []string{"kB", "MB", "GB", "TB", "PB"} {
		f, unit = f/1000, u
		if f < 1000 {
			break
		}
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + unit
}

// ResumeWidth is the widest cell a resume state takes with its amount.
func ResumeWidth(s resume.State, lost, replayed resume.Amount) int {
	return ansi.StringWidth(ResumeCell(s, lost, replayed, 1<<10))
}
