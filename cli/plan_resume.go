package cli

import (
	"context"
	"time"

	"koff/edit/planner"
	"koff/model/resume"
	"koff/probe"
)

// planResume is the resume check of the offsets an edit would write: koff
// check's probe.Checker, reaching MirrorMaker 2 source clusters as the
// context names them (else as the connector's config does) and Debezium
// connectors' databases with --db-pass-file, so that a plan says before
// confirm when its new offset is gone where the connector reads.
type planResume struct {
	checker *probe.Checker
	// clustersErr and dbErr say why the context's source clusters or the
	// --db-pass-file cannot be used: the plan says so instead.
	clustersErr, dbErr error
}

// planCheckTimeout bounds each system a plan's check asks: a plan waits
// for it before it is shown.
const planCheckTimeout = 5 * time.Second

// planResume is the check every Editor of this koff plans with.
func (g *Globals) planResume() planResume {
	r := planResume{checker: &probe.Checker{Kafka: g.kafkaConfig(), Timeout: planCheckTimeout}}
	clusters, err := g.sourceClusters(nil)
	if err != nil {
		r.clustersErr = err
	} else {
		r.checker.SourceCluster = clusters
	}
	dbs, err := checkDatabases(g, planCheckTimeout)
	if err != nil {
		r.dbErr = err
	} else {
		r.checker.Databases = dbs
	}
	return r
}

func (r planResume) CheckOffsets(ctx context.Context, s planner.ResumeSource) resume.Connector {
	switch {
	case r.dbErr != nil && probe.HandlesDatabase(s.Class):
		return resume.Connector{Name: s.Name, Class: s.Class, Type: "source", Reason: r.dbErr.Error()}
	case r.clustersErr != nil && s.Class == resume.ClassMirrorSource:
		return resume.Connector{Name: s.Name, Class: s.Class, Type: "source", Reason: r.clustersErr.Error()}
	}
	src := probe.Source{Name: s.Name, Class: s.Class, Type: "source", Config: s.Config}
	for _, o := range s.Offsets {
		src.Offsets = append(src.Offsets, probe.Offset{Partition: o.Partition, Offset: o.Offset})
	}
	return r.checker.Check(ctx, []probe.Source{src})[0]
}
