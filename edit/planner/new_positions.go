package planner

import (
	"context"
	"fmt"
	"strings"

	"koff/edit/plan"
	"koff/model/resume"
)

// Resume is the resume check (in cli, probe.Checker with the context's
// MirrorMaker 2 source clusters and --db-pass-file's databases) asked of
// the offsets a plan writes instead of the stored ones: whether the new
// position still exists where the connector reads, judged by model/resume
// as koff check judges the stored one. It is read-only and bounded in
// time; a system it cannot reach is Unknown with the reason.
type Resume interface {
	CheckOffsets(ctx context.Context, c ResumeSource) resume.Connector
}

// ResumeSource is a source connector with the offsets a plan would write.
type ResumeSource struct {
	Name, Class string
	Config      map[string]string
	// Offsets are the new offsets, partition map and offset as JSON.
	Offsets []ResumeOffset
}

// ResumeOffset is one partition's new offset.
type ResumeOffset struct {
	Partition, Offset string
}

// checkedClasses are the source classes whose positions the resume check
// looks up, and how a plan's warning names them.
var checkedClasses = map[string]string{
	resume.ClassMirrorSource:                         "MirrorMaker",
	resume.ClassFileStreamSource:                     "FileStream",
	classPostgres:                                    "Debezium PostgreSQL",
	"io.debezium.connector.mysql.MySqlConnector":     "Debezium MySQL",
	"io.debezium.connector.mariadb.MariaDbConnector": "Debezium MariaDB",
}

// newPositionWarnings say, before confirm, which new offsets of the plan
// point at data that no longer exists (or lies beyond what exists), and
// what the connector really does there; and, where koff could not look,
// that it could not and what it would need. Resets (no new offset) are
// not asked: the connector starts afresh by its own rules (classNotes).
func (e *Planner) newPositionWarnings(ctx context.Context, p *plan.Plan) []string {
	return e.positionWarnings(ctx, p, true)
}

// positionWarnings are newPositionWarnings, those koff could not check
// only when sayUnknown (a copy of positions as they are says only what is
// gone: where koff cannot look, it could not for the stored ones either).
func (e *Planner) positionWarnings(ctx context.Context, p *plan.Plan, sayUnknown bool) []string {
	class := strings.TrimSpace(p.Config["connector.class"])
	label, ok := checkedClasses[class]
	if e.Resume == nil || !ok {
		return nil
	}
	src := ResumeSource{Name: p.Connector, Class: class, Config: p.Config}
	for _, ch := range p.Changes {
		if ch.After != nil {
			src.Offsets = append(src.Offsets, ResumeOffset{Partition: ch.PartitionJSON, Offset: string(ch.After)})
		}
	}
	if len(src.Offsets) == 0 {
		return nil
	}
	r := e.Resume.CheckOffsets(ctx, src)
	var out, unknown []string
	reasons := map[string]int{}
	for _, pt := range r.Partitions {
		switch pt.State {
		case resume.Gap, resume.Replay:
			out = append(out, fmt.Sprintf("%s: the new offset of %s does not exist (%s): %s.", label, pt.Partition, pt.State, strings.TrimSuffix(pt.Action, ".")))
		case resume.Unknown:
			if reasons[pt.Reason] == 0 {
				unknown = append(unknown, pt.Reason)
			}
			reasons[pt.Reason]++
		}
	}
	if len(out) > maxClassNotes {
		out = append(out[:maxClassNotes], fmt.Sprintf("%s: and %d more new offsets that do not exist (koff check %s after the edit lists them).", label, len(out)-maxClassNotes, p.Connector))
	}
	if !sayUnknown {
		return out
	}
	if len(r.Partitions) == 0 && r.Reason != "" {
		unknown, reasons[r.Reason] = []string{r.Reason}, len(src.Offsets)
	}
	for _, why := range unknown {
		what := "the new offset exists"
		if n := reasons[why]; n > 1 {
			what = fmt.Sprintf("the %d new offsets exist", n)
		}
		out = append(out, fmt.Sprintf("%s: koff could not check whether %s: %s.", label, what, strings.TrimSuffix(why, ".")))
	}
	return out
}
