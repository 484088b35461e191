package plan

import (
	"encoding/json"
	"fmt"
	"time"

	"koff/model"
	"koff/model/java"
)

// IfNewer says what a rewind does with a partition it cannot place at the
// time: one first committed after it, or whose retained history begins
// after it.
type IfNewer string

const (
	IfNewerLeave  IfNewer = ""       // list it, leave it alone
	IfNewerReset  IfNewer = "reset"  // delete its offset: the task starts as new
	IfNewerOldest IfNewer = "oldest" // its oldest retained commit
)

// RewindRequest asks to rewind a source connector to At.
type RewindRequest struct {
	Connector string
	At        time.Time
	// Given is the time as typed, for the audit log ("" : not typed).
	Given string
	// Partitions limits it to these partition maps (nil: all).
	Partitions []java.Object
	IfNewer    IfNewer
}

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

	Request RewindRequest // the request, for a replan's command line
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

// NewRewindAsked is what a rewind request asked, as its plan and audit
// line keep it.
func NewRewindAsked(req RewindRequest) *RewindAsked {
	a := &RewindAsked{At: req.At.UTC().Format(AuditTimeLayout), Given: req.Given, IfNewer: string(req.IfNewer), Request: req}
	if a.IfNewer == "" {
		a.IfNewer = "leave"
	}
	for _, p := range req.Partitions {
		a.Partitions = append(a.Partitions, json.RawMessage(java.AppendJackson(nil, p)))
	}
	return a
}

// NewRewindRequest is the rewind koff set NAME --to-datetime AT asks for:
// partition is --partition's JSON ("" for every partition) and ifNewer
// --if-newer's word ("" leaves alone what it cannot place).
func NewRewindRequest(name string, at time.Time, partition string, ifNewer IfNewer) (RewindRequest, error) {
	req := RewindRequest{Connector: name, At: at, IfNewer: ifNewer}
	switch ifNewer {
	case IfNewerLeave, IfNewerReset, IfNewerOldest:
	default:
		return req, fmt.Errorf("--if-newer is reset or oldest, got %q", string(ifNewer))
	}
	if partition != "" {
		p, err := ParsePartition(partition)
		if err != nil {
			return req, fmt.Errorf("--partition: %v", err)
		}
		req.Partitions = []java.Object{p}
	}
	return req, nil
}

// Command is the command line of a rewind (a replan after a stop shows the
// import of the same values instead).
func (rw RewindRequest) Command(c CommandLine) string {
	args := []string{"set", rw.Connector, "--to-datetime", model.TimeArg(rw.At)}
	for _, p := range rw.Partitions {
		args = append(args, "--partition", string(java.AppendJackson(nil, p)))
	}
	if rw.IfNewer != "" {
		args = append(args, "--if-newer", string(rw.IfNewer))
	}
	return c.Args(args)
}
