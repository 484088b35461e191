package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"koff/model"
	"koff/model/resume"
)

// printCheckTable prints one line per connector, then one per partition
// that does not resume (every partition with all), then what each of
// those connectors and partitions does, in words.
func printCheckTable(env Env, results []resume.Connector, all bool) error {
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	rs := sortResults(results)
	tw := newAlignedTable(7)
	tw.row("CONNECTOR", "CLASS", "TYPE", "RESUME", "PARTITIONS", "LOST", "REPLAYED")
	for _, c := range rs {
		lost, replayed := c.Totals()
		tw.row(field(c.Name), field(shortClass(c.Class)), c.Type, string(c.State()), stateCounts(c), amountText(lost), amountText(replayed))
	}
	if err := tw.writeTo(out); err != nil {
		return err
	}
	pt := newAlignedTable(7)
	pt.row("CONNECTOR", "PARTITION", "POSITION", "RESUME", "LOST", "REPLAYED", "RESUMES AT")
	var notes []string
	shown := 0
	for _, c := range rs {
		name := field(c.Name)
		switch {
		case c.Reason != "":
			notes = append(notes, fmt.Sprintf("  %s: %s", name, noteField(c.Reason)))
		case c.Note != "":
			notes = append(notes, fmt.Sprintf("  %s: %s", name, noteField(c.Note)))
		}
		shared, n := sharedReason(c)
		if shared != "" {
			notes = append(notes, fmt.Sprintf("  %s: %d partitions: %s", name, n, noteField(shared)))
		}
		for _, p := range c.Partitions {
			if !all && (p.State == resume.Resumes || shared != "") {
				continue
			}
			shown++
			at := p.ResumesAt
			if at == "" {
				at = "-"
			}
			pt.row(name, field(p.Partition), field(p.Position), string(p.State), amountText(p.Lost), amountText(p.Replayed), field(at))
			if p.State != resume.Resumes && shared == "" {
				why := p.Action
				if p.Reason != "" {
					why = p.Reason
				}
				notes = append(notes, fmt.Sprintf("  %s %s: %s", name, field(p.Partition), noteField(why)))
			}
		}
	}
	if shown > 0 {
		fmt.Fprintln(out)
		if err := pt.writeTo(out); err != nil {
			return err
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(out, "What a restart does:")
		for _, n := range notes {
			fmt.Fprintln(out, n)
		}
	}
	return out.Flush()
}

// sharedReason is the reason every partition that does not resume is
// unknown for, when they are several and it is one (a source cluster out
// of reach): said once, not once per partition.
func sharedReason(c resume.Connector) (string, int) {
	why, n := "", 0
	for _, p := range c.Partitions {
		switch {
		case p.State == resume.Resumes:
			continue
		case p.State != resume.Unknown || why != "" && p.Reason != why:
			return "", 0
		}
		why = p.Reason
		n++
	}
	if n < 2 {
		return "", 0
	}
	return why, n
}

// shortClass is a class's simple name: the column is a reminder, the
// JSON and the notes name it in full.
func shortClass(c string) string {
	if c == "" {
		return "-"
	}
	return c[strings.LastIndexByte(c, '.')+1:]
}

// stateCounts is "gap 1, resumes 2": the partitions in each state, the
// ones that need a look first.
func stateCounts(c resume.Connector) string {
	if len(c.Partitions) == 0 {
		return "-"
	}
	n := c.Counts()
	var parts []string
	for _, s := range []resume.State{resume.Gap, resume.Replay, resume.Unknown, resume.Resumes} {
		if n[s] > 0 {
			parts = append(parts, string(s)+" "+strconv.Itoa(n[s]))
		}
	}
	return strings.Join(parts, ", ")
}

// amountText is "60 records", "100 bytes (3 records)", "-".
func amountText(a resume.Amount) string {
	if t := model.ResumeAmountText(a); t != "" {
		return t
	}
	return "-"
}

type checkJSON struct {
	Checked    string          `json:"checked"`
	State      resume.State    `json:"state"`
	Connectors []checkConnJSON `json:"connectors"`
}

type checkConnJSON struct {
	Name       string               `json:"name"`
	Class      string               `json:"class"`
	Type       string               `json:"type"`
	State      resume.State         `json:"state"`
	Reason     string               `json:"reason,omitempty"`
	Note       string               `json:"note,omitempty"`
	Checked    string               `json:"checked"`
	Counts     map[resume.State]int `json:"counts"`
	Lost       *amountJSON          `json:"lost"`
	Replayed   *amountJSON          `json:"replayed"`
	Partitions []checkPartJSON      `json:"partitions"`
}

type checkPartJSON struct {
	Partition string       `json:"partition"`
	Position  string       `json:"position"`
	State     resume.State `json:"state"`
	Lost      *amountJSON  `json:"lost"`
	Replayed  *amountJSON  `json:"replayed"`
	ResumesAt string       `json:"resumes_at,omitempty"`
	Action    string       `json:"action,omitempty"`
	Reason    string       `json:"reason,omitempty"`
}

// amountJSON is an Amount; a count koff could not make is null, and an
// Amount with nothing counted is null as a whole.
type amountJSON struct {
	Records *int64  `json:"records"`
	Bytes   *int64  `json:"bytes"`
	Since   *string `json:"since"`
}

func amountOf(a resume.Amount) *amountJSON {
	if a.Records < 0 && a.Bytes < 0 && a.Since.IsZero() {
		return nil
	}
	var out amountJSON
	if a.Records >= 0 {
		out.Records = &a.Records
	}
	if a.Bytes >= 0 {
		out.Bytes = &a.Bytes
	}
	if !a.Since.IsZero() {
		s := model.TimeArg(a.Since)
		out.Since = &s
	}
	return &out
}

func printCheckJSON(env Env, results []resume.Connector) error {
	doc := checkJSON{State: resume.Resumes, Connectors: []checkConnJSON{}}
	var first time.Time
	for _, c := range sortResults(results) {
		if s := c.State(); s.Worse(doc.State) {
			doc.State = s
		}
		if first.IsZero() || c.Checked.Before(first) {
			first = c.Checked
		}
		lost, replayed := c.Totals()
		cj := checkConnJSON{Name: c.Name, Class: c.Class, Type: c.Type, State: c.State(), Reason: c.Reason, Note: c.Note,
			Checked: model.TimeArg(c.Checked), Counts: c.Counts(), Lost: amountOf(lost), Replayed: amountOf(replayed), Partitions: []checkPartJSON{}}
		for _, p := range c.Partitions {
			cj.Partitions = append(cj.Partitions, checkPartJSON{Partition: p.Partition, Position: p.Position, State: p.State,
				Lost: amountOf(p.Lost), Replayed: amountOf(p.Replayed), ResumesAt: p.ResumesAt, Action: p.Action, Reason: p.Reason})
		}
		doc.Connectors = append(doc.Connectors, cj)
	}
	if first.IsZero() {
		first = time.Now()
	}
	doc.Checked = model.TimeArg(first)
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
