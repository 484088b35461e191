package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"koff/model"
	"koff/model/resume"
)

// The resume check's series: per connector (a source's row its tasks read,
// a sink's) the state koff check judges, its partitions in each state,
// what a restart now would lose or read again, and when it was checked.
var (
	resumeState = desc("koff_connector_resume_state", "1 for the connector's resume state as koff check judges it (resumes, gap, replay, unknown), 0 for the others: whether it resumes where its offsets say after a restart.",
		withLabel(connLabels, "state")...)
	resumePartitions = desc("koff_connector_resume_partitions", "The connector's partitions (a sink's topic-partitions) in each resume state, as koff check counts them (a state no partition is in has no series).",
		withLabel(connLabels, "state")...)
	resumeLostRecords = desc("koff_connector_resume_lost_records", "Records a restart now would skip: gone between the stored position and what still exists (absent when nothing was counted).",
		connLabels...)
	resumeLostBytes = desc("koff_connector_resume_lost_bytes", "Bytes a restart now would skip (WAL bytes of a Debezium PostgreSQL gap, bytes of a FileStream file); absent where not counted.",
		connLabels...)
	resumeReplayedRecords = desc("koff_connector_resume_replayed_records", "Records a restart now would read again: its position lies beyond what exists (absent when nothing was counted).",
		connLabels...)
	resumeReplayedBytes = desc("koff_connector_resume_replayed_bytes", "Bytes a restart now would read again; absent where not counted.",
		connLabels...)
	resumeChecked      = desc("koff_resume_checked_timestamp_seconds", "When koff's latest resume check of every connector was made (Unix time): it checks them all at most every --refresh, one check at a time.")
	connectorsByResume = desc("koff_connectors_by_resume_state", "Connectors by resume state, over all of them, --metrics-connectors or not.", "state")
)

// resumeStates are every resume.State: one series each, 0 or 1, so an
// alert on one state sees it end.
var resumeStates = []resume.State{resume.Resumes, resume.Gap, resume.Replay, resume.Unknown}

// resume exports a row's latest resume check; a row with none (not
// checked yet, or a copy its tasks do not read) has no such series. To
// keep a scrape of 1,000 connectors small, the partitions of a state none
// is in, and amounts koff did not count, are no series: a sum over them
// is the same, and the state series say when a gap ends.
func (c *Collector) resume(e *emitter, r *model.ConnectorResume, name, topic string) {
	if r == nil {
		return
	}
	for _, s := range resumeStates {
		e.gauge(resumeState, bool01(r.State == s), name, topic, string(s))
		if n := r.Counts[s]; n > 0 {
			e.gauge(resumePartitions, float64(n), name, topic, string(s))
		}
	}
	for _, a := range []struct {
		d *prometheus.Desc
		n int64
	}{{resumeLostRecords, r.Lost.Records}, {resumeLostBytes, r.Lost.Bytes}, {resumeReplayedRecords, r.Replayed.Records}, {resumeReplayedBytes, r.Replayed.Bytes}} {
		if a.n >= 0 {
			e.gauge(a.d, float64(a.n), name, topic)
		}
	}
}

// needsResumeLook: a connector that would not resume where its offsets
// say is kept among the series past --metrics-connectors. Unknown is not:
// every connector of a class koff cannot check is.
func needsResumeLook(r *model.ConnectorResume) bool {
	return r != nil && (r.State == resume.Gap || r.State == resume.Replay)
}
