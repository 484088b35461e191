package cli

import (
	"fmt"

	"koff/edit"
	"koff/edit/audit"
	"koff/model/text"
)

func init() {
	for _, c := range []struct{ name, summary string }{
		{"stop", "stop a connector through Connect REST and wait until its tasks are gone (needed before editing)"},
		{"resume", "resume a stopped or paused connector through Connect REST"},
	} {
		name := c.name
		register(&command{
			name:    name,
			args:    "CONNECTOR",
			summary: c.summary,
			run: func(g *Globals, _ any, args []string, env Env) error {
				return runStopResume(g, name, args, env)
			},
		})
	}
}

func runStopResume(g *Globals, verb string, args []string, env Env) error {
	if len(args) != 1 {
		return usagef("%s needs exactly one CONNECTOR", verb)
	}
	rest, err := g.connectClient()
	if err != nil {
		return err
	}
	if rest == nil {
		return usagef("%s needs Connect's REST API: pass --connect-url or set KOFF_CONNECT_URL", verb)
	}
	// The Editor enforces read-only for these too, and audits them as it
	// does edits.
	ed := &edit.Editor{REST: rest, ReadOnly: g.ReadOnly, ReadOnlyCause: g.readOnlyCause(), User: osUser(env), Audit: &audit.Log{Path: g.auditPath(env)}}
	if len(g.Bootstrap) > 0 {
		// Its audit line names the cluster, as the brokers say (else as
		// Connect's GET / does).
		ed.Kafka = g.kafkaConfig()
	}
	if verb == "stop" {
		if err := ed.StopConnector(env.Context, args[0]); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s is STOPPED\n", text.Sanitize(args[0]))
		return nil
	}
	if err := ed.ResumeConnector(env.Context, args[0]); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s resumed\n", text.Sanitize(args[0]))
	return nil
}
