package edit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"koff/model"
)

// AuditLog appends one JSON line per edit attempt to a file, by default
// $XDG_STATE_HOME/koff/audit.jsonl. Its before-values make undo possible.
type AuditLog struct {
	Path string
	mu   sync.Mutex
}

// DefaultAuditPath is $XDG_STATE_HOME/koff/audit.jsonl, or
// ~/.local/state/koff/audit.jsonl.
func DefaultAuditPath(getenv func(string) string) string {
	dir := getenv("XDG_STATE_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "koff", "audit.jsonl")
}

// AuditEntry is one line of the audit log.
type AuditEntry struct {
	Time      time.Time     `json:"time"`
	User      string        `json:"user"`
	Connector string        `json:"connector"`
	Kind      Kind          `json:"kind"`
	Path      Path          `json:"path"`
	State     string        `json:"state,omitempty"`
	Changes   []AuditChange `json:"changes"`
	// Result is verified, unverified (written, not read back), refused
	// (a precondition failed, nothing written) or failed.
	Result  string `json:"result"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

// AuditChange is one source partition of an audited edit.
type AuditChange struct {
	Partition json.RawMessage `json:"partition"`
	Before    json.RawMessage `json:"before"`
	After     json.RawMessage `json:"after"`
	Writes    []string        `json:"writes"`
}

func (e *Editor) audit(p *Plan, res Result, err error) {
	if e.Audit == nil {
		return
	}
	entry := AuditEntry{
		Time: e.now().UTC(), User: e.User, Connector: p.Connector, Kind: p.Kind, Path: p.Path, State: p.State,
		Message: res.Message,
	}
	switch {
	case err == nil && res.Verified:
		entry.Result = "verified"
	case err == nil:
		entry.Result = "unverified"
	case isRefusal(err):
		entry.Result, entry.Error = "refused", err.Error()
	default:
		entry.Result, entry.Error = "failed", err.Error()
	}
	for _, ch := range p.Changes {
		ac := AuditChange{Partition: json.RawMessage(ch.PartitionJSON), Before: rawOrNull(ch.Before), After: rawOrNull(ch.After)}
		for _, w := range ch.Writes {
			ac.Writes = append(ac.Writes, w.TopicPartition.String())
		}
		if p.Group != "" {
			ac.Writes = []string{"group " + p.Group}
		}
		entry.Changes = append(entry.Changes, ac)
	}
	if werr := e.Audit.Append(entry); werr != nil && err == nil {
		// The edit happened; losing its audit line must not hide that.
		fmt.Fprintf(os.Stderr, "koff: audit log: %v\n", werr)
	}
}

func isRefusal(err error) bool {
	var ns *NotStoppedError
	var c *ConflictError
	var ga *GroupActiveError
	return errors.Is(err, ErrReadOnly) || errors.As(err, &ns) || errors.As(err, &c) || errors.As(err, &ga)
}

func rawOrNull(b []byte) json.RawMessage {
	if b == nil {
		return json.RawMessage("null")
	}
	return json.RawMessage(b)
}

// Append writes one entry as a JSON line. Offsets are written verbatim (no
// HTML escaping, numbers exact).
func (a *AuditLog) Append(e AuditEntry) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(a.Path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(a.Path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return err
	}
	_, err = f.Write(b.Bytes())
	return err
}

// Entries reads every entry of the log; a missing log has none.
func (a *AuditLog) Entries() ([]AuditEntry, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f, err := os.Open(a.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []AuditEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e AuditEntry
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if dec.Decode(&e) == nil {
			out = append(out, e)
		}
	}
	return out, sc.Err()
}

// UndoRequest is the request that puts back the before-values of the last
// edit that was written (verified or not), optionally of one connector.
func (e *Editor) UndoRequest(connector string) (Request, AuditEntry, error) {
	if e.Audit == nil {
		return Request{}, AuditEntry{}, errors.New("no audit log: nothing to undo")
	}
	entries, err := e.Audit.Entries()
	if err != nil {
		return Request{}, AuditEntry{}, fmt.Errorf("read audit log: %w", err)
	}
	for i := len(entries) - 1; i >= 0; i-- {
		en := entries[i]
		if en.Result != "verified" && en.Result != "unverified" {
			continue
		}
		if connector != "" && en.Connector != connector {
			continue
		}
		req := Request{Connector: en.Connector, Kind: KindUndo}
		for _, ch := range en.Changes {
			p, err := ParsePartition(string(ch.Partition))
			if err != nil {
				return req, en, fmt.Errorf("audit log entry of %s: %w", en.Time.Format(time.RFC3339), err)
			}
			it := Item{Partition: p}
			if string(ch.Before) != "null" && len(ch.Before) > 0 {
				o, err := model.ParseOffset(ch.Before)
				if err != nil {
					return req, en, fmt.Errorf("audit log entry of %s: %w", en.Time.Format(time.RFC3339), err)
				}
				it.Offset = o
			}
			req.Items = append(req.Items, it)
		}
		return req, en, nil
	}
	if connector != "" {
		return Request{}, AuditEntry{}, fmt.Errorf("no edit of %s in %s to undo", connector, e.Audit.Path)
	}
	return Request{}, AuditEntry{}, fmt.Errorf("no edit in %s to undo", e.Audit.Path)
}
