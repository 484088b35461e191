package probe

import (
	"context"
	"strings"
	"testing"
	"time"

	"koff/model/resume"
)

// databases is a database check that says what it was given.
type databases struct{ deadline time.Duration }

func (d *databases) Check(ctx context.Context, s Source) resume.Connector {
	if dl, ok := ctx.Deadline(); ok {
		d.deadline = time.Until(dl)
	}
	return resume.Connector{Name: s.Name, Class: s.Class, Type: "source",
		Partitions: []resume.Partition{{Partition: `{"server":"db"}`, State: resume.Gap, Lost: resume.None, Replayed: resume.None}}}
}

// TestCheckerDispatchesByClass: Debezium connectors go to the database
// checks, bounded by the Checker's timeout, or are unknown saying how to
// turn them on; MirrorMaker 2's checkpoint and heartbeat connectors
// resume; any other class is unknown, named; results keep the sources'
// order and carry the time of the check.
func TestCheckerDispatchesByClass(t *testing.T) {
	at := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	sources := []Source{
		{Name: "pg", Class: "io.debezium.connector.postgresql.PostgresConnector"},
		{Name: "hb", Class: resume.ClassMirrorHeartbeat},
		{Name: "jdbc", Class: "io.confluent.connect.jdbc.JdbcSourceConnector"},
		{Name: "maria", Class: "io.debezium.connector.mariadb.MariaDbConnector"},
		{Name: "gone", Absent: "not in Connect"},
	}
	c := &Checker{Now: func() time.Time { return at }}
	got := c.Check(context.Background(), sources)
	if len(got) != len(sources) {
		t.Fatalf("%d results", len(got))
	}
	for i, want := range []struct {
		state resume.State
		says  string
	}{
		{resume.Unknown, "database checks are off: name credentials with --db-pass-file FILE"},
		{resume.Resumes, "no position in data"},
		{resume.Unknown, "koff cannot check io.confluent.connect.jdbc.JdbcSourceConnector's positions"},
		{resume.Unknown, "database checks are off"},
		{resume.Unknown, "not in Connect, and koff does not know its class"},
	} {
		r := got[i]
		if r.Name != sources[i].Name || r.State() != want.state || !strings.Contains(r.Reason+r.Note, want.says) || !r.Checked.Equal(at) {
			t.Errorf("%s: %s %q %q at %s", r.Name, r.State(), r.Reason, r.Note, r.Checked)
		}
	}
	db := &databases{}
	c = &Checker{Now: func() time.Time { return at }, Databases: db, Timeout: 2 * time.Second}
	got = c.Check(context.Background(), sources[:1])
	if got[0].State() != resume.Gap || !got[0].Checked.Equal(at) {
		t.Errorf("with database checks: %+v", got[0])
	}
	if db.deadline <= 0 || db.deadline > 2*time.Second {
		t.Errorf("the database check ran with %s left, want at most the 2s timeout", db.deadline)
	}
}
