package cli

import (
	"context"

	"koff/edit/planner"
	"koff/model/resume"
	"koff/probe"
)

// planResume is the resume check of the offsets an edit would write: the
// Checker of the global flags (resumeChecker: --source-cluster and the
// context's source-clusters, --db-pass-file, --probe-timeout), so that a
// plan says before confirm when its new offset is gone where the
// connector reads.
type planResume struct {
	checker *probe.Checker
	// err says why the flags give no Checker (a pass file others can
	// read, a source cluster koff cannot name): the plan says so instead.
	err error
}

// planResume is the check every Editor of this koff plans with.
func (g *Globals) planResume() planResume {
	ck, err := g.resumeChecker()
	return planResume{checker: ck, err: err}
}

func (r planResume) CheckOffsets(ctx context.Context, s planner.ResumeSource) resume.Connector {
	if r.err != nil {
		return resume.Connector{Name: s.Name, Class: s.Class, Type: "source", Reason: r.err.Error()}
	}
	src := probe.Source{Name: s.Name, Class: s.Class, Type: "source", Config: s.Config}
	for _, o := range s.Offsets {
		src.Offsets = append(src.Offsets, probe.Offset{Partition: o.Partition, Offset: o.Offset})
	}
	return r.checker.Check(ctx, []probe.Source{src})[0]
}
