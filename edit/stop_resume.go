package edit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/model"
)

// auditReady refuses a stop or resume, before it acts, when its line could
// not be written: the rule every edit follows (its write-ahead line comes
// first). Read-only is refused first, by the stop or resume itself (and
// audited as refused when the line can be written).
func (e *Editor) auditReady(kind plan.Kind) error {
	if e.ReadOnly || e.Audit == nil {
		return nil
	}
	// Room for the line, its error and a long name: what it will need.
	if err := e.Audit.CheckWritable(2048); err != nil {
		return fmt.Errorf("audit log %s: %v: not %s (koff logs every stop and resume, as every edit)", e.Audit.Path, err, doneWord(kind))
	}
	return nil
}

func doneWord(kind plan.Kind) string {
	if kind == plan.KindStop {
		return "stopped"
	}
	return "resumed"
}

// stateCluster is the Kafka cluster a stop or resume is made on, for its
// audit line: the brokers' id, else the one Connect's GET / names ("" when
// neither says in a few seconds: the line is still written).
func (e *Editor) stateCluster(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if id, err := e.ClusterID(ctx); err == nil && id != "" {
		return id
	}
	if e.REST == nil || e.ReadOnly {
		return "" // a refused stop or resume never reaches Connect
	}
	if info, err := e.REST.ServerInfo(ctx); err == nil {
		return info.KafkaClusterID
	}
	return ""
}

// auditState records a stop or resume as one line: who, when, where, the
// connector's state before, and whether Connect did it, refused it or it
// failed.
func (e *Editor) auditState(kind plan.Kind, name, before, cluster string, err error) {
	if e.Audit == nil {
		return
	}
	now := e.now()
	host, _ := os.Hostname()
	entry := audit.Entry{ID: audit.NewEditID(now), Time: now.UTC(), User: e.User, Host: host, PID: os.Getpid(), Connector: name, Kind: kind, Path: plan.PathREST,
		State: before, Result: audit.ResultDone, Cluster: cluster, ConnectURL: e.connectURL()}
	switch {
	case err == nil && kind == plan.KindStop:
		entry.Message = "STOPPED: its tasks are gone"
	case err == nil:
		entry.Message = "resumed"
	case apply.IsRefusal(err):
		entry.Result, entry.Error = audit.ResultRefused, err.Error()
	default:
		entry.Result, entry.Error = audit.ResultFailed, err.Error()
	}
	if werr := e.Audit.Append(entry); werr != nil && err == nil {
		// It happened; losing its audit line must not hide that.
		fmt.Fprintf(os.Stderr, "koff: audit log: %v\n", werr)
	}
}

// StopConnector stops a connector through REST and waits until its tasks
// are gone, as PATCH and DELETE require. Stop and resume are audited like
// edits, naming the Editor's User.
func (e *Editor) StopConnector(ctx context.Context, name string) error {
	return e.changeState(ctx, plan.KindStop, name, e.stopConnector)
}

// changeState runs a stop or resume between its audit checks: refused
// before Connect is called when its audit line cannot be written, audited
// with the state before it and its outcome after.
func (e *Editor) changeState(ctx context.Context, kind plan.Kind, name string, change func(context.Context, string) error) error {
	if err := e.auditReady(kind); err != nil {
		return err
	}
	cluster := e.stateCluster(ctx)
	before := e.stateBefore(ctx, name)
	err := change(ctx, name)
	e.auditState(kind, name, before, cluster, err)
	return err
}

func (e *Editor) stopConnector(ctx context.Context, name string) error {
	if e.ReadOnly {
		return e.readOnly()
	}
	if e.REST == nil {
		return errNoREST
	}
	if err := e.REST.Stop(ctx, name); err != nil {
		return e.planner().NotInConnect(ctx, name, err)
	}
	deadline := time.Now().Add(e.stopTimeout())
	for {
		st, err := e.REST.Status(ctx, name)
		if err != nil {
			return err
		}
		if st.Stopped() {
			return nil
		}
		// Connect answered the stop, so the target state is STOPPED: a
		// status of UNASSIGNED with no tasks is a stopped connector whose
		// worker left (the config topic, when read, must agree).
		if st.Connector.State == "UNASSIGNED" && len(st.Tasks) == 0 {
			if c, _, ok := e.configOf(name); !ok || c.TargetState == model.TargetStopped {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("connector %s did not stop within %s (state %s, %d tasks)", name, e.stopTimeout(), st.Connector.State, len(st.Tasks))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ResumeConnector resumes a stopped or paused connector through REST.
func (e *Editor) ResumeConnector(ctx context.Context, name string) error {
	return e.changeState(ctx, plan.KindResume, name, e.resumeConnector)
}

func (e *Editor) resumeConnector(ctx context.Context, name string) error {
	if e.ReadOnly {
		return e.readOnly()
	}
	if e.REST == nil {
		return errNoREST
	}
	return e.planner().NotInConnect(ctx, name, e.REST.Resume(ctx, name))
}

// stateBefore is the connector's state as REST reports it before a stop
// or resume, for the audit log ("" when unknown).
func (e *Editor) stateBefore(ctx context.Context, name string) string {
	if e.REST == nil || e.ReadOnly {
		return ""
	}
	st, err := e.REST.Status(ctx, name)
	if err != nil {
		return ""
	}
	return string(st.Connector.State)
}

var errNoREST = errors.New("stopping and resuming connectors needs Connect's REST API: pass --connect-url")
