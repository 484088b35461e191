package probe

import (
	"context"
	"os"
	"strings"
	"sync"
	"time"

	"koff/kafka"
	"koff/model/resume"
)

// DefaultTimeout bounds each system's probe: a check that cannot reach
// its system in this time says unknown, and why.
const DefaultTimeout = 5 * time.Second

// DatabaseCheck checks Debezium connectors against their databases
// (replication slots, binary logs), read-only, with credentials the
// operator named (*Databases). A Checker without one says the database
// checks are off.
type DatabaseCheck interface {
	Check(ctx context.Context, s Source) resume.Connector
}

// Checker runs the resume check of connectors: it gathers each one's
// facts, by its class, and has model/resume judge them. One Check is a
// batch: every sink's group in one poll, each MirrorMaker 2 source cluster
// and database once per connector, in parallel, each bounded by Timeout.
// It writes nothing, and keeps nothing between calls but in Keep, so a
// poller may call it at each refresh.
type Checker struct {
	// Kafka is the Connect cluster's Kafka: sinks' groups and topics.
	Kafka kafka.Config
	// SourceCluster is the client of a MirrorMaker 2 source cluster, by
	// its alias and the connector's config; nil is PlainSourceCluster.
	SourceCluster func(alias string, config map[string]string) (kafka.Config, error)
	// Databases checks Debezium connectors; nil: they are unknown.
	Databases DatabaseCheck
	// Timeout bounds each system's probe (DefaultTimeout when zero).
	Timeout time.Duration
	// Host is the machine FileStream files are looked at on (os.Hostname
	// when empty).
	Host string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Keep, when set, is what checks keep for the next (a poller's):
	// nil keeps nothing.
	Keep *Kept
}

// parallel bounds the probes of one Check running at once.
const parallel = 8

// Check checks every source, in their order. It returns when every probe
// has answered or timed out; ctx ends them all early.
func (c *Checker) Check(ctx context.Context, sources []Source) []resume.Connector {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	at := now()
	out := make([]resume.Connector, len(sources))
	var sinks []int
	var wg sync.WaitGroup
	slots := make(chan struct{}, parallel)
	spawn := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			f()
		}()
	}
	for i, s := range sources {
		switch {
		case s.Type == "sink":
			sinks = append(sinks, i)
		case s.Class == resume.ClassMirrorSource:
			spawn(func() { out[i] = c.mirror(ctx, s, at) })
		case s.Class == resume.ClassMirrorCheckpoint || s.Class == resume.ClassMirrorHeartbeat:
			out[i] = resume.MirrorInternal(s.Name, s.Class, at)
		case s.Class == resume.ClassFileStreamSource:
			spawn(func() { out[i] = c.fileStream(ctx, s, at) })
		case HandlesDatabase(s.Class) && c.Databases != nil:
			spawn(func() {
				pctx, cancel := context.WithTimeout(ctx, c.timeout())
				defer cancel()
				r := c.Databases.Check(pctx, s)
				if r.Checked.IsZero() {
					r.Checked = at
				}
				out[i] = r
			})
		case HandlesDatabase(s.Class):
			out[i] = resume.Connector{Name: s.Name, Class: s.Class, Type: typeOf(s), Checked: at,
				Reason: "database checks are off: name credentials with --db-pass-file FILE"}
		default:
			out[i] = resume.Unchecked(s.Name, s.Class, typeOf(s), at)
		}
	}
	if len(sinks) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.sinks(ctx, sources, sinks, out, at)
		}()
	}
	wg.Wait()
	for i, s := range sources {
		if s.Absent == "" {
			continue
		}
		if out[i].Class == "" && len(out[i].Partitions) == 0 {
			out[i].Reason = s.Absent + ", and koff does not know its class"
			continue
		}
		out[i].Note = strings.TrimSuffix(s.Absent+"; "+out[i].Note, "; ")
	}
	return out
}

// ReadsOffsets reports whether the check of a source connector of class
// reads its offsets (Source.Offsets): MirrorMaker 2's source connector,
// FileStreamSource and the Debezium connectors. A caller may leave them
// out for any other class: its check is the class alone.
func ReadsOffsets(class string) bool {
	return class == resume.ClassMirrorSource || class == resume.ClassFileStreamSource || HandlesDatabase(class)
}

func (c *Checker) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c *Checker) host() string {
	if c.Host != "" {
		return c.Host
	}
	if h, err := os.Hostname(); err == nil {
		return h
	}
	return "this host"
}

func typeOf(s Source) string {
	if s.Type == "" {
		return "source"
	}
	return s.Type
}
