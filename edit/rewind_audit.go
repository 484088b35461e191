package edit

import (
	"encoding/json"
	"time"

	"koff/model"
	"koff/model/java"
)

// RewindAsked is what a rewind was asked, kept with its plan and in its
// audit lines: an audit line of a rewind says to when, as the operator
// typed it and as koff read it, and what it did with partitions first
// committed after it.
type RewindAsked struct {
	// At is the time as read: RFC 3339, UTC, milliseconds.
	At string `json:"at"`
	// Given is the time as typed ("" when a dialog's time was not typed).
	Given string `json:"at_given,omitempty"`
	// IfNewer is --if-newer: leave (the default), reset or oldest.
	IfNewer string `json:"if_newer"`
	// Partitions are --partition's maps (none: every partition).
	Partitions []json.RawMessage `json:"partitions,omitempty"`

	req RewindRequest // the request, for a replan's command line
}

// AuditTimeLayout is how an audit line writes a rewind's time.
const AuditTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// AtText is the rewind's time as every koff screen shows a time
// (model.TimeText); a line koff cannot read the time of keeps its text.
func (a *RewindAsked) AtText() string {
	t, err := time.Parse(AuditTimeLayout, a.At)
	if err != nil {
		return a.At
	}
	return model.TimeText(t)
}

func rewindAsked(req RewindRequest) *RewindAsked {
	a := &RewindAsked{At: req.At.UTC().Format(AuditTimeLayout), Given: req.Given, IfNewer: string(req.IfNewer), req: req}
	if a.IfNewer == "" {
		a.IfNewer = "leave"
	}
	for _, p := range req.Partitions {
		a.Partitions = append(a.Partitions, json.RawMessage(java.AppendJackson(nil, p)))
	}
	return a
}

// What names an edit for one line: "set of NAME", "rewind of NAME to T".
func (en AuditEntry) What() string {
	s := string(en.Kind) + " of " + en.Connector
	if en.Kind == KindRewind && en.Rewind != nil {
		s += " to " + en.Rewind.AtText()
	}
	return s
}

// What names a planned edit as its audit line will.
func (p *Plan) What() string {
	return AuditEntry{Kind: p.Kind, Connector: p.Connector, Rewind: p.Request.Rewind}.What()
}

// rewindCommand is the command line of a replanned rewind: the same set
// --to-datetime.
func (c CommandLine) rewindCommand(p *Plan) string {
	if p.Request.Rewind == nil {
		return ""
	}
	return (&Rewind{RewindRequest: p.Request.Rewind.req}).Command(c)
}

// String names the koff edit that wrote a commit, as koff history marks
// it: "koff rewind ID by USER at TIME".
func (k KoffEdit) String() string {
	return "koff " + string(k.Kind) + " " + k.ID + " by " + orUnknownUser(k.User) + " at " + model.TimeText(k.Time)
}

// KindText is an edit's kind, with a rewind's time: "rewind to T".
func (en AuditEntry) KindText() string {
	if en.Kind == KindRewind && en.Rewind != nil {
		return "rewind to " + en.Rewind.AtText()
	}
	return string(en.Kind)
}
