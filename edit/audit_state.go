package edit

import (
	"context"
	"fmt"
	"os"
	"time"

	"koff/edit/audit"
	"koff/edit/plan"
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
	case isRefusal(err):
		entry.Result, entry.Error = audit.ResultRefused, err.Error()
	default:
		entry.Result, entry.Error = audit.ResultFailed, err.Error()
	}
	if werr := e.Audit.Append(entry); werr != nil && err == nil {
		// It happened; losing its audit line must not hide that.
		fmt.Fprintf(os.Stderr, "koff: audit log: %v\n", werr)
	}
}
