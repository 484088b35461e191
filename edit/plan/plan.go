package plan

import (
	"fmt"
	"strings"
	"time"

	"koff/model"
	"koff/model/java"
)

// Path is how an edit reaches the offsets.
type Path string

const (
	// PathREST: Connect's REST API (KIP-875 PATCH/DELETE), Connect ≥ 3.6.
	PathREST Path = "rest"
	// PathTopic: records written straight to the offsets topic.
	PathTopic Path = "topic"
)

// Write is one record an edit produces, and where it goes.
type Write struct {
	model.TopicPartition
	Key []byte
	// Existing: the key bytes are a stored key's, rewritten in place.
	Existing bool
	// Before is the value stored under this key now (nil: none or deleted);
	// Apply refuses if it changed since the plan was made.
	Before []byte
	// Value is what the record will hold; nil is a tombstone. For REST
	// writes it is what the worker writes after normalising the offset.
	Value []byte
}

// Change is one source partition an edit touches.
type Change struct {
	Partition java.Object
	// PartitionJSON is the partition map as shown (compact).
	PartitionJSON string
	// Before is the offset in force now (nil: none); After the new one (nil: reset).
	Before, After []byte
	Writes        []Write
	// restore: the writes put back exact records (undo).
	Exact bool
}

// Plan is an edit ready for confirmation: what changes, how, and where.
type Plan struct {
	Request
	Changes []Change
	Path    Path
	// PathReason says why the path was chosen, for the dialog.
	PathReason string
	// State is the connector's state from REST ("" when unknown); Tasks its
	// running task count. Absent: REST answers but has no such connector
	// (an orphan, or one not created yet).
	State  string
	Tasks  int
	Absent bool
	// Target is the connector's target state in Connect's config topic
	// ConfigTopic ("" when koff reads none, or it does not hold the
	// connector).
	Target, ConfigTopic string
	// Unsure says why koff cannot tell whether the worker reads what the
	// edit writes ("" when it can): the edit is then not reported verified.
	Unsure string
	// Watch is how long koff goes on reading the written partitions after
	// the read-back for a task's commit over the edit (0: not at all,
	// Connect's REST status says STOPPED); WatchWhy says why
	// (edit/apply/watch.go).
	Watch    time.Duration
	WatchWhy string
	// WatchInterval is the flush interval the watch is judged from.
	WatchInterval time.Duration
	// Topic is the offsets topic new offsets go to: the connector's own
	// offsets.storage.topic if it has one, else the workers'.
	Topic string
	// Warnings are shown in the dialog and printed by the CLI.
	Warnings []string
	// Command is the equivalent koff command line.
	Command string
	Made    time.Time

	// Sink edits: the consumer group, its active members when planned, and
	// the change of every topic-partition (Changes shows them in Connect's
	// sink offset shape).
	Group        string
	GroupMembers int
	Sink         []SinkChange
	// sinkReq is the sink request the plan came from, for Replan and the
	// equivalent command line.
	SinkAsked *SinkRequest
	// resetPolicy is the sink's consumer.override.auto.offset.reset ("":
	// Connect's earliest).
	ResetPolicy string
	// config is the connector's configuration, from REST or the config
	// topic (nil when neither has it): its class explains its offsets.
	Config map[string]string
	// PartOf is the id of the operation this edit is a step of ("" for
	// an edit of its own): its audit lines name it, and undo reverses the
	// operation, not the step alone.
	PartOf string
}

// StateText says what koff knows of the connector's state for a plan, and
// from where: Connect's REST status, its config topic's target state, or
// nothing ("unknown").
func (p *Plan) StateText() string {
	target := ""
	if p.Target != "" {
		target = fmt.Sprintf("target state %s (config topic %s)", p.Target, p.ConfigTopic)
	}
	switch {
	case p.State != "" && target != "":
		return p.State + " (Connect REST), " + target
	case p.State != "":
		return p.State + " (Connect REST)"
	case p.Absent && p.ConfigTopic != "":
		return fmt.Sprintf("not in Connect (no config in config topic %s)", p.ConfigTopic)
	case p.Absent:
		return "not in Connect (Connect REST lists no such connector)"
	case target != "":
		return target + "; no --connect-url for its status"
	}
	return "unknown (no --connect-url, no config topic)"
}

// ShortDuration is a duration as an operator types it: 250ms, 1.5s, 9s,
// 1m, 1m30s.
func ShortDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// WatchText says, for the plan and the dialog, how long koff watches the
// edit after reading it back, and why ("" when it does not).
func (p *Plan) WatchText() string {
	if p.Watch <= 0 {
		return ""
	}
	return fmt.Sprintf("watch %s after the read-back for a task's commit over the edit: %s", ShortDuration(p.Watch), p.WatchWhy)
}

// WatchFor is Plan.Watch as the plan says it ("9s", "1.5s").
func (p *Plan) WatchFor() string { return ShortDuration(p.Watch) }

// WatchIntervalText is Plan.WatchInterval as the plan says it.
func (p *Plan) WatchIntervalText() string { return ShortDuration(p.WatchInterval) }

// What names a planned edit as its audit line will.
func (p *Plan) What() string { return What(p.Kind, p.Connector, p.Request.Rewind) }

// What names an edit of kind of connector for one line: "set of NAME",
// "rewind of NAME to T".
func What(kind Kind, connector string, rewind *RewindAsked) string {
	s := string(kind) + " of " + connector
	if kind == KindRewind && rewind != nil {
		s += " to " + rewind.AtText()
	}
	return s
}
