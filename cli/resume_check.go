package cli

import (
	"slices"
	"strings"
	"time"

	"koff/model"
	"koff/model/store"
	"koff/probe"
)

// The resume check as koff check, the dashboard, koff serve and koff
// metrics share it: the Checker of the global flags (--db-pass-file,
// --source-cluster, --probe-timeout, a context's db-pass-file and
// source-clusters), the Sources read from the Store, and the poller that
// keeps the Store's check fresh.

// resumeChecker is the resume check the global flags set up. A pass file
// koff must not read, or a source cluster it cannot name, is a usage
// error.
func (g *Globals) resumeChecker() (*probe.Checker, error) {
	if g.ProbeTimeout <= 0 {
		return nil, usagef("--probe-timeout must be positive, got %v", g.ProbeTimeout)
	}
	clusters, err := g.sourceClusters(g.SourceClusters)
	if err != nil {
		return nil, err
	}
	dbs, err := checkDatabases(g, g.ProbeTimeout)
	if err != nil {
		return nil, err
	}
	return &probe.Checker{Kafka: g.kafkaConfig(), SourceCluster: clusters, Databases: dbs, Timeout: g.ProbeTimeout}, nil
}

// checkDatabases is the database checks of Debezium connectors, with the
// credentials of --db-pass-file; without it none (they are unknown, saying
// how to name credentials). A file koff must not read is a usage error.
func checkDatabases(g *Globals, timeout time.Duration) (probe.DatabaseCheck, error) {
	if g.DBPassFile == "" {
		return nil, nil
	}
	d, err := probe.NewDatabases(g.DBPassFile, timeout)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return d, nil
}

// checkSources are the selected connectors as the check sees them: class
// and config from REST, else from the config topic; a source's offsets
// as its tasks read them (the live copy in the topic its tasks read); a
// sink's group.
func checkSources(st *store.Store, conns map[string]*selected) []probe.Source {
	return (&sourceReader{}).read(st, conns)
}

// sourceReader reads checkSources into memory it keeps: a poller that
// checks at every refresh reads a big connector's rows into the same
// memory each time (store.PartitionsIn), not into tens of megabytes new.
type sourceReader struct {
	rows  []model.PartitionRow
	lives []model.PartitionID
	// read is what each connector's offsets were read from at the last
	// read, and the offsets: a connector none of whose rows changed
	// since is not read again (a million rows at every refresh).
	lastRead map[string]offsetsRead
}

// offsetsRead is a connector's offsets as read from its rows in the
// topics ids, each at the Store's change count stamps.
type offsetsRead struct {
	ids     []model.ConnectorID
	stamps  []uint64
	offsets []probe.Offset
}

// unchanged reports whether the rows of ids changed since r was read.
func (r offsetsRead) unchanged(st *store.Store, ids []model.ConnectorID) bool {
	if !slices.Equal(r.ids, ids) {
		return false
	}
	for i, id := range ids {
		if changed, _ := st.RowsChangedSince(id, r.stamps[i]); changed {
			return false
		}
	}
	return true
}

func (sr *sourceReader) read(st *store.Store, conns map[string]*selected) []probe.Source {
	types := map[string]string{}
	absent := map[string]bool{}
	for _, c := range st.ConnectorList() {
		if types[c.ID.Name] != "sink" {
			types[c.ID.Name] = c.Type
		}
		if c.Orphaned || c.Unconfigured {
			absent[c.ID.Name] = true
		}
	}
	rest := st.REST().Connectors
	var out []probe.Source
	kept := map[string]bool{}
	defer func() {
		// Rows are read again only when they change: a million rows'
		// memory (300 MB) is not kept for that.
		if cap(sr.rows) > 1<<16 {
			sr.rows, sr.lives = nil, nil
		}
		for name := range sr.lastRead {
			if !kept[name] {
				delete(sr.lastRead, name) // no longer checked, or nothing to read
			}
		}
	}()
	for _, name := range sortedNames(conns) {
		s := conns[name]
		src := probe.Source{Name: name, Type: types[name], Group: s.group}
		if c, ok := rest[name]; ok && c.Config != nil {
			src.Config = c.Config
		} else if cc, ok := st.ConnectorConfig(name); ok && cc.Config != nil {
			src.Config = cc.Config
		}
		src.Class = strings.TrimSpace(src.Config["connector.class"])
		if s.group != "" {
			src.Type = "sink"
		}
		ids := s.ids
		if src.Type != "sink" && !probe.ReadsOffsets(src.Class) {
			// Its check is its class alone: its rows are not read, a
			// big connector's at every check.
			ids = nil
		}
		var from []model.ConnectorID
		for _, id := range ids {
			if !s.other[id.Topic] {
				from = append(from, id)
			}
		}
		if last, ok := sr.lastRead[name]; ok && last.unchanged(st, from) {
			src.Offsets = last.offsets
			ids = nil
		}
		stamps := make([]uint64, len(from))
		for i, id := range from {
			_, stamps[i] = st.RowsChangedSince(id, 0)
		}
		// One live copy a partition in a topic; a partition in two of
		// the topics its tasks read is checked once.
		var seen map[string]bool
		if len(ids) > 1 {
			seen = map[string]bool{}
		}
		for _, id := range ids {
			if s.other[id.Topic] {
				continue
			}
			sr.rows, sr.lives = st.PartitionsIn(sr.rows, sr.lives, id)
			if src.Offsets == nil {
				src.Offsets = make([]probe.Offset, 0, len(sr.rows))
			}
			for i := range sr.rows {
				r := &sr.rows[i]
				if r.Live && r.TaskReads != "" && (seen == nil || !seen[r.Partition]) {
					if seen != nil {
						seen[r.Partition] = true
					}
					src.Offsets = append(src.Offsets, probe.Offset{Partition: r.Partition, Offset: r.TaskReads})
				}
			}
		}
		if len(from) > 0 {
			if sr.lastRead == nil {
				sr.lastRead = map[string]offsetsRead{}
			}
			if ids != nil {
				sr.lastRead[name] = offsetsRead{ids: from, stamps: stamps, offsets: src.Offsets}
			}
			kept[name] = true
		}
		if src.Type == "" {
			src.Type = "source"
		}
		if absent[name] && src.Config == nil {
			src.Absent = "not in Connect: a new connector named " + name + " would resume from these offsets"
		}
		out = append(out, src)
	}
	return out
}
