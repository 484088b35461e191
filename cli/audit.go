package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/undo"
	"koff/model"
	"koff/model/text"
)

type auditOptions struct {
	output      string
	allClusters bool
}

func init() {
	register(&command{
		name:    "audit",
		args:    "[CONNECTOR] [-o table|json] [--all-clusters]",
		summary: "list the edits in the audit log made on this cluster (of CONNECTOR; every cluster's while the brokers do not answer): id, when, who, cluster, kind, outcome; koff undo NAME --edit ID undoes one",
		flags: func(fs *pflag.FlagSet) any {
			o := &auditOptions{}
			fs.StringVarP(&o.output, "output", "o", "table", "table or json")
			fs.BoolVar(&o.allClusters, "all-clusters", false, "list the edits of every cluster, and ask Kafka nothing (no -b needed)")
			return o
		},
		run: runAudit,
	})
}

// auditRow is one edit as koff audit lists it.
type auditRow struct {
	ID            string    `json:"id"`
	Time          time.Time `json:"time"`
	User          string    `json:"user"`
	Host          string    `json:"host,omitempty"`
	Cluster       string    `json:"cluster"`
	OffsetsTopics []string  `json:"offsets_topics,omitempty"`
	ConnectURL    string    `json:"connect_url,omitempty"`
	Connector     string    `json:"connector"`
	Kind          plan.Kind `json:"kind"`
	Outcome       string    `json:"outcome"`
	Partitions    int       `json:"partitions"`
	Written       []string  `json:"written,omitempty"`
	NotWritten    []string  `json:"not_written,omitempty"`
	Undoes        string    `json:"undoes,omitempty"`
	UndoneBy      string    `json:"undone_by,omitempty"`
	Error         string    `json:"error,omitempty"`
	// Rewind is a rewind's time (as read and as typed) and --if-newer.
	Rewind  *plan.RewindAsked `json:"rewind,omitempty"`
	Command string            `json:"command,omitempty"`
	// An operation's steps and how many were done; PartOf is the
	// operation an offsets edit is a step of.
	Steps     []audit.Step `json:"steps,omitempty"`
	StepsDone int          `json:"steps_done,omitempty"`
	PartOf    string       `json:"part_of,omitempty"`
	kind      string
}

// auditClusterWait bounds koff audit's question for the cluster id.
var auditClusterWait = 10 * time.Second

func runAudit(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*auditOptions)
	if o.output != "table" && o.output != "json" {
		return usagef("-o must be table or json, got %q", o.output)
	}
	if len(args) > 1 {
		return usagef("audit takes at most one CONNECTOR")
	}
	cluster := ""
	if !o.allClusters {
		if len(g.Bootstrap) == 0 {
			return usagef("no Kafka bootstrap servers: pass -b HOST:PORT (koff lists the edits of the cluster it is connected to), or --all-clusters")
		}
		// The log is local: a broker that is down (when the log is needed
		// most) costs a bounded wait and the filter by cluster, not the list.
		ctx, cancel := context.WithTimeout(env.Context, auditClusterWait)
		defer cancel()
		id, err := g.kafkaConfig().ClusterID(ctx)
		switch {
		case err != nil:
			fmt.Fprintf(env.Stderr, "koff: cannot tell which cluster this is (%s): listing the edits of every cluster (see the CLUSTER column)\n", text.Sanitize(errorLine(err)))
		case id == "":
			fmt.Fprintln(env.Stderr, "koff: the brokers did not say which cluster this is: listing the edits of every cluster (see the CLUSTER column)")
		}
		cluster = id
	}
	log := &audit.Log{Path: g.auditPath(env)}
	edits, bad, err := log.EditsRead()
	warnUnreadable(env, bad)
	if err != nil {
		return fmt.Errorf("read audit log: %w", err)
	}
	var rows []auditRow
	for i, ed := range edits {
		s := ed.Start
		if len(args) == 1 && s.Connector != args[0] {
			continue
		}
		// Lines that name no cluster are listed too: they may be this
		// cluster's, and undo takes them only by id.
		if cluster != "" && s.Cluster != "" && s.Cluster != cluster {
			continue
		}
		rows = append(rows, auditRowOf(ed, edits[i+1:]))
	}
	if o.output == "json" {
		if rows == nil {
			rows = []auditRow{}
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rows); err != nil {
			return err
		}
		_, err := env.Stdout.Write(text.JSONSafe(b.Bytes()))
		return err
	}
	return printAuditTable(env.Stdout, rows)
}

func auditRowOf(ed audit.Edit, later []audit.Edit) auditRow {
	s := ed.Start
	r := auditRow{ID: ed.ID(), Time: s.Time.UTC(), User: s.User, Host: s.Host, Cluster: s.Cluster, OffsetsTopics: s.OffsetsTopics,
		ConnectURL: s.ConnectURL, Connector: s.Connector, Kind: s.Kind, Outcome: ed.Result(), Partitions: len(s.Changes), Undoes: s.Undoes, Error: s.Error,
		Rewind: s.Rewind, Command: s.Command, kind: s.KindText()}
	r.Steps, r.PartOf = s.Steps, s.PartOf
	if s.Steps != nil {
		done, _ := ed.DoneSteps()
		r.StepsDone = len(done)
		for _, st := range s.Steps {
			r.Partitions += len(st.Changes)
		}
		if s.From != "" {
			r.kind += " from " + s.From
		}
		r.kind += fmt.Sprintf(" (%d/%d steps)", len(done), len(s.Steps))
	}
	if ed.Outcome != nil {
		r.NotWritten = ed.Outcome.NotWritten
		if r.Error == "" {
			r.Error = ed.Outcome.Error
		}
	}
	for tp := range ed.WrittenSet() {
		r.Written = append(r.Written, tp)
	}
	sort.Strings(r.Written)
	if ed.Result() == audit.ResultInProgress && !ed.Alive() {
		r.Outcome = "in-progress (no outcome: its process ended; koff undo reconciles it)"
	}
	if by := undo.UndoneBy(later, r.ID); by != nil {
		r.UndoneBy = by.ID
	}
	return r
}

func printAuditTable(w io.Writer, rows []auditRow) error {
	if len(rows) == 0 {
		fmt.Fprintln(w, "no edits")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tWHEN\tWHO\tCLUSTER\tCONNECTOR\tKIND\tOUTCOME\tPARTITIONS")
	for _, r := range rows {
		cluster := r.Cluster
		if cluster == "" {
			cluster = "unknown"
		}
		outcome := r.Outcome
		if r.UndoneBy != "" {
			outcome += ", undone by " + r.UndoneBy
		}
		kind := r.kind
		if r.Undoes != "" {
			kind += " of " + r.Undoes
		}
		if r.PartOf != "" {
			kind += ", a step of " + r.PartOf
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", field(r.ID), model.TimeText(r.Time), field(r.User), field(cluster),
			field(r.Connector), field(kind), field(outcome), r.Partitions)
	}
	return tw.Flush()
}
