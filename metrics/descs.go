package metrics

import "github.com/prometheus/client_golang/prometheus"

// Label sets: a source connector's series are per offsets topic, as koff
// shows it (the same name in two topics is two rows); a sink's per group.
var (
	connLabels = []string{"connector", "offsets_topic"}
	sinkLabels = []string{"connector", "group"}
	partLabels = []string{"connector", "group", "topic", "partition"}
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

func withLabel(labels []string, more ...string) []string {
	return append(append([]string(nil), labels...), more...)
}

var (
	connectorInfo = desc("koff_connector_info", "A connector koff knows: its type (source or sink) and own offsets.storage.topic, if any.",
		"connector", "offsets_topic", "type", "own_offsets_topic")
	restState = desc("koff_connector_rest_state", "1 for the connector's state in Connect's REST API, 0 for the others (only while REST answers).",
		withLabel(connLabels, "state")...)
	tasks       = desc("koff_connector_tasks", "Tasks Connect's REST API lists for the connector.", connLabels...)
	failedTasks = desc("koff_connector_failed_tasks", "Tasks Connect's REST API reports FAILED.", connLabels...)

	flushStatus = desc("koff_connector_flush_status", "1 for the source connector's flush status as koff status judges it (ok, late, stalled, idle, unknown), 0 for the others.",
		withLabel(connLabels, "status")...)
	flushInterval = desc("koff_connector_flush_interval_seconds", "The flush interval the judgement uses: --flush-interval, else estimated from the flushes seen, else Connect's default 60s.",
		connLabels...)
	lastFlush          = desc("koff_connector_last_flush_timestamp_seconds", "When the source connector's newest flush ended (Unix time).", connLabels...)
	flushAge           = desc("koff_connector_flush_age_seconds", "Seconds since the source connector's newest flush.", connLabels...)
	unflushed          = desc("koff_connector_unflushed_records", "Records written to the connector's own topics since its last flush: a lower bound of what a crash now would replay (the worker commits only offsets of records its producer acknowledged, so records sent shortly before a flush may be replayed too).", connLabels...)
	unflushedShared    = desc("koff_connector_unflushed_shared_records", "Records since its last flush in topics other source connectors write too: koff cannot tell whose.", connLabels...)
	partitions         = desc("koff_connector_source_partitions", "Source partitions whose task reads an offset.", connLabels...)
	deletedPartitions  = desc("koff_connector_deleted_source_partitions", "Source partitions whose offset is deleted (a tombstone).", connLabels...)
	noOffsetPartitions = desc("koff_connector_no_offset_source_partitions", "Source partitions whose task gets no offset for another reason (a null or unreadable value).", connLabels...)
	suspect            = desc("koff_connector_suspect_partitions", "Source partitions with duplicate, misplaced or stray keys, or values the task cannot read.", connLabels...)
	strayCopies        = desc("koff_connector_stray_copies", "Source partitions stored in an offsets topic the connector's tasks do not read (its own offsets.storage.topic is another).", connLabels...)
	records            = desc("koff_connector_offset_records_total", "Records of the connector koff read from the offsets topic since it started (a reload reads them again).", connLabels...)

	connectorsLimited = desc("koff_connector_series_limited", "1 when some connectors' series are left out: there are more than --metrics-connectors (those needing attention are kept first).")
	connectorsLeftOut = desc("koff_connectors_without_series", "Connectors (one per offsets topic) whose series are left out past --metrics-connectors.")
	connectorsByFlush = desc("koff_source_connectors_by_flush_status", "Source connectors (one per offsets topic) by flush status, over all of them, --metrics-connectors or not.", "status")

	sinkLag        = desc("koff_sink_lag_records", "A sink connector's consumer group lag over all its partitions.", sinkLabels...)
	sinkPartitions = desc("koff_sink_partitions", "Topic-partitions the sink's group has committed offsets for or consumes.", sinkLabels...)
	sinkMembers    = desc("koff_sink_group_members", "Members of the sink's consumer group.", sinkLabels...)
	sinkLagRate    = desc("koff_sink_lag_change_records_per_second", "The sink's lag change per second over the last minute of polls (negative: catching up).", sinkLabels...)
	sinkCatchUp    = desc("koff_sink_catch_up_seconds", "Time to zero lag at the current rate, while the lag shrinks.", sinkLabels...)
	sinkLastCommit = desc("koff_sink_last_commit_timestamp_seconds", "When koff last saw one of the sink's committed offsets move (Unix time).", sinkLabels...)

	sinkPartitionsLimited = desc("koff_sink_partition_series_limited", "1 when per-partition sink series are left out: all sinks together have more partitions than --metrics-sink-partitions.")
	partCommitted         = desc("koff_sink_partition_committed_offset", "The sink's committed offset (the next it consumes) of a topic-partition.", partLabels...)
	partEnd               = desc("koff_sink_partition_log_end_offset", "The log-end offset of a topic-partition the sink consumes.", partLabels...)
	partLag               = desc("koff_sink_partition_lag_records", "The sink's lag on a topic-partition.", partLabels...)

	tailerState      = desc("koff_tailer_state", "1 for the offsets-topic Tailer's state (connecting, waiting_for_topic, catching_up, live, disconnected, stalled), 0 for the others.", "state")
	tailerBlind      = desc("koff_tailer_blind", "1 while koff cannot read the offsets topics (disconnected, stalled, or a fetch overdue): it sees no flush then.")
	tailerProgress   = desc("koff_tailer_catch_up_ratio", "How much of the offsets topics the Tailer has read since it started, 0 to 1.")
	recordsRead      = desc("koff_offsets_records_read_total", "Records read from the offsets topics since koff started (a reload reads them again).")
	unparseable      = desc("koff_offsets_unparseable_records_total", "Records of the offsets topics koff (and Connect's worker) cannot read as an offset, since koff started.")
	reloads          = desc("koff_offsets_reloads_total", "Times koff threw away what it had read and read every offsets topic again from scratch: a different cluster at its address, or an offsets topic deleted and created again (every offset in it lost).")
	topicMissing     = desc("koff_offsets_topic_missing", "1 while an offsets topic koff reads or looks for does not exist.", "topic")
	topicDeleted     = desc("koff_offsets_topic_deleted", "1 while an offsets topic koff had read is gone: deleted, with every offset in it.", "topic")
	connectors       = desc("koff_connectors", "Connectors with records in the offsets topics (one per offsets topic).")
	sourcePartitions = desc("koff_source_partitions", "Source partitions whose task reads an offset, over every connector.")
	restUp           = desc("koff_connect_rest_up", "1 when Connect's REST API answered koff's last poll.")
	edits            = desc("koff_edits_total", "koff's writes to this cluster in its audit log, by kind (set, reset, reset-all, import, copy, undo, delete-stray of offsets; stop and resume of connectors) and outcome (verified, unverified, overwritten, lost, partial, unknown, interrupted, refused, failed, in-progress; done for a stop or resume).", "kind", "result")
	buildInfo        = desc("koff_build_info", "1, labelled with koff's version, VCS revision and Go version.", "version", "revision", "goversion")
	scrapeErrors     = desc("koff_scrape_errors_total", "Series koff left out of a scrape since it started because it could not make them (each is logged).")
)

var allDescs = []*prometheus.Desc{
	connectorInfo, restState, tasks, failedTasks,
	flushStatus, flushInterval, lastFlush, flushAge, unflushed, unflushedShared,
	partitions, deletedPartitions, noOffsetPartitions, suspect, strayCopies, records,
	sinkLag, sinkPartitions, sinkMembers, sinkLagRate, sinkCatchUp, sinkLastCommit,
	sinkPartitionsLimited, partCommitted, partEnd, partLag,
	connectorsLimited, connectorsLeftOut, connectorsByFlush,
	resumeState, resumePartitions, resumeLostRecords, resumeLostBytes, resumeReplayedRecords, resumeReplayedBytes, connectorsByResume, resumeChecked,
	tailerState, tailerBlind, tailerProgress, recordsRead, unparseable, reloads, topicMissing, topicDeleted, connectors, sourcePartitions, restUp, edits,
	buildInfo, scrapeErrors,
}
