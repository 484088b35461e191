package resume

import "time"

// Unchecked is the check of a connector whose class koff cannot check:
// unknown, naming the class, or saying that koff does not know it.
func Unchecked(name, class, typ string, at time.Time) Connector {
	c := Connector{Name: name, Class: class, Type: typ, Checked: at}
	if class == "" {
		c.Reason = "koff does not know the connector's class: give --connect-url, or let koff read Connect's config topic (--config-topic)"
		return c
	}
	c.Reason = "koff cannot check " + class + "'s positions (it checks sinks, MirrorMaker 2, FileStreamSource, Debezium PostgreSQL and MySQL/MariaDB)"
	return c
}

// MirrorInternal is the check of MirrorMaker 2's checkpoint and heartbeat
// connectors: their offsets hold no position in data a restart could
// miss (checkpoints are emitted again from the groups' offsets, heartbeats
// from the clock), so they resume.
func MirrorInternal(name, class string, at time.Time) Connector {
	return Connector{Name: name, Class: class, Type: "source", Checked: at,
		Note: "its offsets hold no position in data: a restart emits its checkpoints or heartbeats again"}
}
