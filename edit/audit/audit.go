package audit

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"koff/edit/plan"
	"koff/model"
)

// AuditLog appends JSON lines about edits to a file, by default
// $XDG_STATE_HOME/koff/audit.jsonl. An edit that writes is logged ahead:
// an in-progress line with the full plan and before-values is on disk
// (fsynced) before the first record is produced, a line per topic-partition
// written follows each produce request, and an outcome line ends it. An
// in-progress line without an outcome is an interrupted edit, which undo
// can still reverse exactly. Its before-values make undo possible.
type Log struct {
	Path string
	mu   sync.Mutex
	// unreadable are the lines the last read skipped.
	unreadable []UnreadableLine

	// The interrupted-edit notice, cached by the file's size and time.
	noticeMu      sync.Mutex
	noticeStat    [2]int64
	noticeCluster string
	notice        []Edit
}

// DefaultAuditPath is $XDG_STATE_HOME/koff/audit.jsonl, or
// ~/.local/state/koff/audit.jsonl.
func DefaultPath(getenv func(string) string) string {
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

// Results an audit line can hold.
const (
	// ResultInProgress is the write-ahead line: the plan, before any write.
	ResultInProgress = "in-progress"
	// ResultWritten follows each produce request that reached the log.
	ResultWritten = "written"

	ResultVerified   = "verified"   // written and read back, no other writer in between
	ResultUnverified = "unverified" // written, not read back in time
	// ResultOverwritten: written, then another writer's record for the
	// same key landed after it.
	ResultOverwritten = "overwritten"
	// ResultLost: a concurrent edit's record landed first; this edit's
	// records of those keys were put back to the winner's value.
	ResultLost = "lost"
	// ResultPartial: a write failed after some topic-partitions were written.
	ResultPartial = "partial"
	// ResultUnknown: a write's answer was lost and no read has shown its
	// records: the topic-partitions (or group) in Unknown may have been
	// written. Undo covers them.
	ResultUnknown = "unknown"
	// ResultInterrupted: stopped by a signal after some topic-partitions
	// were written, or found without an outcome and reconciled with the log.
	ResultInterrupted = "interrupted"
	ResultRefused     = "refused" // a precondition failed, nothing written
	ResultFailed      = "failed"  // nothing written
)

// AuditEntry is one line of the audit log. Lines of one edit share its ID;
// lines written before IDs existed are each a whole edit.
type Entry struct {
	ID        string    `json:"id,omitempty"`
	Time      time.Time `json:"time"`
	User      string    `json:"user"`
	Host      string    `json:"host,omitempty"`
	PID       int       `json:"pid,omitempty"`
	Connector string    `json:"connector"`
	// From is a rename's old name.
	From string `json:"from,omitempty"`
	// To is where a move took the connector: the koff context of the
	// other Connect cluster.
	To      string    `json:"to,omitempty"`
	Kind    plan.Kind `json:"kind"`
	Path    plan.Path `json:"path"`
	State   string    `json:"state,omitempty"`
	Changes []Change  `json:"changes,omitempty"`
	// Positions are the log-end offsets of the topic-partitions written,
	// read just before the first write: the records an interrupted edit
	// wrote are after them.
	Positions map[string]int64 `json:"positions,omitempty"`
	// Result is one of the Result constants.
	Result string `json:"result"`
	// Written and NotWritten list topic-partitions ("topic/partition"),
	// or the group, by outcome.
	Written    []string `json:"written,omitempty"`
	NotWritten []string `json:"not_written,omitempty"`
	// Unknown lists what may have been written: the request was sent
	// and its answer lost.
	Unknown []string `json:"unknown,omitempty"`
	// Restored lists the partitions (as in Changes) whose value a
	// concurrent edit won; undo leaves them alone.
	Restored []string `json:"restored,omitempty"`
	Message  string   `json:"message,omitempty"`
	Error    string   `json:"error,omitempty"`

	// Where the edit was made: the id of the Kafka cluster holding the
	// offsets topics and consumer groups ("" in lines of older koffs and
	// when the brokers did not say: the cluster is unknown), the offsets
	// topics koff read, and the Connect REST URL. Undo puts back only
	// edits of the cluster it is connected to.
	Cluster       string   `json:"cluster,omitempty"`
	OffsetsTopics []string `json:"offsets_topics,omitempty"`
	ConnectURL    string   `json:"connect_url,omitempty"`
	// Undoes is the id of the edit an undo put back.
	Undoes string `json:"undoes,omitempty"`
	// Rewind is what a rewind was asked: its time and --if-newer.
	Rewind *plan.RewindAsked `json:"rewind,omitempty"`
	// Command is the koff command line that makes the same edit.
	Command string `json:"command,omitempty"`

	// An operation (create, rename) has all its steps in its write-ahead
	// line, and a line for each step as it completes (Result ResultStep,
	// Step its index, StepEdit the id of an offsets step's own edit).
	// That edit's lines name the operation in PartOf.
	Steps    []Step `json:"steps,omitempty"`
	Step     *int   `json:"step,omitempty"`
	StepEdit string `json:"step_edit,omitempty"`
	PartOf   string `json:"part_of,omitempty"`
}

// AuditChange is one source partition of an audited edit.
type Change struct {
	Partition json.RawMessage `json:"partition"`
	Before    json.RawMessage `json:"before"`
	After     json.RawMessage `json:"after"`
	Writes    []string        `json:"writes"`
	// Records are the exact records written (direct writes) or that the
	// worker will write (REST), with the value each key held before.
	Records []Record `json:"records,omitempty"`
}

// AuditRecord is one record of an edit: where, its exact key, the value
// the key held before (nil: none) and the value written (nil: tombstone).
type Record struct {
	TopicPartition string  `json:"tp"`
	Key            string  `json:"key,omitempty"`
	KeyBase64      string  `json:"key_base64,omitempty"` // a key that is not UTF-8
	Before         *string `json:"before"`
	Value          *string `json:"value"`
}

// KeyBytes are the record's exact key bytes.
func (r Record) KeyBytes() []byte {
	if r.KeyBase64 != "" {
		b, _ := base64.StdEncoding.DecodeString(r.KeyBase64)
		return b
	}
	return []byte(r.Key)
}

// ValueBytes is the value written (nil: a tombstone).
func (r Record) ValueBytes() []byte { return strPtrBytes(r.Value) }

// BeforeBytes is the value the key held before (nil: none).
func (r Record) BeforeBytes() []byte { return strPtrBytes(r.Before) }

func strPtrBytes(s *string) []byte {
	if s == nil {
		return nil
	}
	return []byte(*s)
}

func bytesPtr(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

func recordOf(w plan.Write) Record {
	r := Record{TopicPartition: w.TopicPartition.String(), Before: bytesPtr(w.Before), Value: bytesPtr(w.Value)}
	if utf8.Valid(w.Key) {
		r.Key = string(w.Key)
	} else {
		r.KeyBase64 = base64.StdEncoding.EncodeToString(w.Key)
	}
	return r
}

// NewEditID is a new edit's id: its time and a random end.
func NewEditID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b[:])
}

func rawOrNull(b []byte) json.RawMessage {
	if b == nil {
		return json.RawMessage("null")
	}
	return json.RawMessage(b)
}

// Append writes one entry as a JSON line and syncs it to disk before it
// returns: the write-ahead line must survive a crash of the next instant.
// Offsets are written verbatim (no HTML escaping, numbers exact). The line
// starts on a fresh line: a line an earlier write left cut short (a full
// disk, a file size limit, a crash) would otherwise swallow this one. A
// write that fails part way is cut back off, so it leaves no half line.
func (a *Log) Append(e Entry) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return err
	}
	f, size, err := a.openLocked()
	if err != nil {
		return err
	}
	defer closeLocked(f)
	line := b.Bytes()
	if size > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], size-1); err != nil {
			return err
		}
		if last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if _, err := f.Write(line); err != nil {
		_ = f.Truncate(size)
		return err
	}
	return f.Sync()
}

// openLocked opens the log for appending under the file lock other koffs
// take too, so that reading its last byte (or its size) and appending are
// one step; size is the log's size then. closeLocked lets it go.
func (a *Log) openLocked() (f *os.File, size int64, err error) {
	if err := os.MkdirAll(filepath.Dir(a.Path), 0o700); err != nil {
		return nil, 0, err
	}
	f, err = os.OpenFile(a.Path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, 0, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		closeLocked(f)
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

func closeLocked(f *os.File) {
	unlockFile(f)
	f.Close()
}

// CheckWritable says whether a line of n bytes could be appended now,
// leaving the log as it was: a stop or resume asks before it acts, as an
// edit writes its write-ahead line first. It writes n bytes (spaces, a
// blank line should it be left behind) and cuts them off again, so a full
// disk or a file size limit refuses here, not after Connect acted.
func (a *Log) CheckWritable(n int) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	f, size, err := a.openLocked()
	if err != nil {
		return err
	}
	defer closeLocked(f)
	probe := bytes.Repeat([]byte{' '}, max(n, 2))
	probe[0], probe[len(probe)-1] = '\n', '\n'
	_, err = f.Write(probe)
	if terr := f.Truncate(size); err == nil {
		err = terr
	}
	return err
}

// UnreadableLine is a line of the audit log koff could not read as an
// edit's, and skipped.
type UnreadableLine struct {
	Path string
	Line int // 1-based
	Why  string
}

func (u UnreadableLine) String() string {
	return fmt.Sprintf("audit log %s line %d: %s: skipped", u.Path, u.Line, u.Why)
}

// Unreadable are the lines the last read of the log skipped.
func (a *Log) Unreadable() []UnreadableLine {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.unreadable)
}

// UnreadableText is one line about skipped lines, "" when there are none:
// for a status bar.
func UnreadableText(bad []UnreadableLine) string {
	switch len(bad) {
	case 0:
		return ""
	case 1:
		return bad[0].String()
	}
	var lines []string
	for i, u := range bad {
		if i == 5 {
			lines = append(lines, fmt.Sprintf("and %d more", len(bad)-5))
			break
		}
		lines = append(lines, strconv.Itoa(u.Line))
	}
	return fmt.Sprintf("audit log %s lines %s: unreadable (%s, …): skipped", bad[0].Path, strings.Join(lines, ", "), bad[0].Why)
}

// Entries reads every line of the log; a missing log has none. A line
// that is not an edit's (cut short by a crash, garbage, no edit's fields)
// is skipped and noted in Unreadable. A line cut short with the next
// line glued to it (written by a koff that did not start each line
// afresh) gives up the cut part only.
func (a *Log) Entries() ([]Entry, error) {
	out, _, err := a.read()
	return out, err
}

// read is Entries with the lines it skipped, as one read saw them (the
// dashboard reads the log from several goroutines).
func (a *Log) read() ([]Entry, []UnreadableLine, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.unreadable = nil
	f, err := os.Open(a.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, why := parseAuditLine(line)
		if why == "" {
			out = append(out, e)
			continue
		}
		if e, ok := gluedEntry(line); ok {
			out = append(out, e)
			why = "an earlier line cut short (no newline) with the next glued to it: its cut part"
		}
		a.unreadable = append(a.unreadable, UnreadableLine{Path: a.Path, Line: n, Why: why})
	}
	return out, slices.Clone(a.unreadable), sc.Err()
}

// parseAuditLine reads one line as an entry, or says why it is none.
func parseAuditLine(line []byte) (Entry, string) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&e); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return e, "cut short (not a whole JSON line)"
		}
		return e, "not an audit line (" + err.Error() + ")"
	}
	if dec.More() {
		return e, "not an audit line (more after its JSON)"
	}
	if e.Time.IsZero() || e.Connector == "" || e.Kind == "" || e.Result == "" {
		return e, "not an edit's line (it lacks time, connector, kind or result)"
	}
	return e, ""
}

// gluedEntry finds a whole entry after the start of a line: the line an
// append wrote after an earlier one was cut short. Every entry's JSON
// begins with its id (or, of older koffs, its time); the text cannot
// occur inside a JSON string, whose quotes are escaped.
func gluedEntry(line []byte) (Entry, bool) {
	for _, start := range [][]byte{[]byte(`{"id":"`), []byte(`{"time":"`)} {
		for i := 1; i < len(line); {
			j := bytes.Index(line[i:], start)
			if j < 0 {
				break
			}
			if e, why := parseAuditLine(line[i+j:]); why == "" {
				return e, true
			}
			i += j + 1
		}
	}
	return Entry{}, false
}

// AuditEdit is one edit as the log tells it: its first line (the plan),
// the topic-partitions written so far, and its outcome line (nil while in
// progress, or when the process died before writing one).
type Edit struct {
	Start   Entry
	Written []string
	Outcome *Entry
	// Done are an operation's step lines, in the order the steps completed.
	Done []Entry
}

// Result is the edit's outcome, or in-progress when it has none.
func (ed Edit) Result() string {
	if ed.Outcome == nil {
		return ResultInProgress
	}
	return ed.Outcome.Result
}

// Interrupted: the edit began writing and has no outcome, or stopped part
// way (a signal, a failed write).
func (ed Edit) Interrupted() bool {
	switch ed.Result() {
	case ResultInProgress, ResultInterrupted, ResultPartial, ResultUnknown:
		return true
	}
	return false
}

// Alive: its process still runs on this host (an edit in progress, not
// an interrupted one).
func (ed Edit) Alive() bool {
	if ed.Outcome != nil || ed.Start.PID <= 0 {
		return false
	}
	if h, _ := os.Hostname(); h != ed.Start.Host {
		return false
	}
	return processAlive(ed.Start.PID)
}

// WrittenSet is every topic-partition the edit is known to have written.
func (ed Edit) WrittenSet() map[string]bool {
	set := map[string]bool{}
	for _, tp := range ed.Written {
		set[tp] = true
	}
	if ed.Outcome != nil {
		for _, tp := range ed.Outcome.Written {
			set[tp] = true
		}
	}
	return set
}

// UnknownSet is what the edit may have written: its outcome's unknown
// topic-partitions (or "group G").
func (ed Edit) UnknownSet() map[string]bool {
	set := map[string]bool{}
	if ed.Outcome != nil {
		for _, tp := range ed.Outcome.Unknown {
			set[tp] = true
		}
	}
	return set
}

// UndoSet is what undo puts back: every topic-partition (or group) the
// edit wrote or may have written.
func (ed Edit) UndoSet() map[string]bool {
	set := ed.WrittenSet()
	for tp := range ed.UnknownSet() {
		set[tp] = true
	}
	return set
}

// Edits groups the log's lines into edits, oldest first.
func (a *Log) Edits() ([]Edit, error) {
	eds, _, err := a.EditsRead()
	return eds, err
}

// EditsRead is Edits with the lines this read skipped.
func (a *Log) EditsRead() ([]Edit, []UnreadableLine, error) {
	entries, bad, err := a.read()
	if err != nil {
		return nil, bad, err
	}
	return GroupEdits(entries), bad, nil
}

// GroupEdits groups audit lines into edits, by id, in the order they began.
func GroupEdits(entries []Entry) []Edit {
	var out []Edit
	byID := map[string]int{}
	for _, en := range entries {
		if en.ID == "" {
			// A line from before write-ahead logging: a whole edit.
			out = append(out, Edit{Start: en, Outcome: &en})
			continue
		}
		i, ok := byID[en.ID]
		if !ok {
			if en.Result == ResultWritten {
				continue // its start line is lost: nothing to go by
			}
			byID[en.ID] = len(out)
			ed := Edit{Start: en}
			if en.Result != ResultInProgress {
				// Refused or failed before writing: one line.
				ed.Outcome = &en
			}
			out = append(out, ed)
			continue
		}
		switch en.Result {
		case ResultStep:
			out[i].Done = append(out[i].Done, en)
		case ResultWritten:
			out[i].Written = append(out[i].Written, en.Written...)
		case ResultInProgress:
		default:
			out[i].Outcome = &en
		}
	}
	return out
}

// Interrupted lists the edits that stopped part way and have not been
// followed by a verified edit of the same connector on the same cluster
// (an undo, or the edit done again), newest first. Edits still in
// progress are left out. With a cluster id, only that cluster's edits
// count (and those whose line names none, written by an older koff): an
// interrupted edit of another cluster is none of this one's business, and
// a verified edit there settles nothing here.
func (a *Log) Interrupted(cluster string) ([]Edit, error) {
	edits, err := a.Edits()
	if err != nil {
		return nil, err
	}
	return interruptedOf(edits, cluster), nil
}

func interruptedOf(edits []Edit, cluster string) []Edit {
	var out []Edit
	type where struct{ cluster, connector string }
	settled := map[where]bool{}
	for i := len(edits) - 1; i >= 0; i-- {
		ed := edits[i]
		if cluster != "" && ed.Start.Cluster != "" && ed.Start.Cluster != cluster {
			continue
		}
		if ed.Start.PartOf != "" {
			continue // a step of an operation: the operation says it
		}
		at := where{ed.Start.Cluster, ed.Start.Connector}
		if ed.Result() == ResultVerified {
			settled[at] = true
			if ed.Start.Kind == plan.KindUndoOperation {
				settled[where{ed.Start.Cluster, ed.Start.Undoes}] = true
			}
			continue
		}
		if ed.Start.Steps != nil {
			if ed.Interrupted() && (len(ed.Done) > 0 || ed.Result() == ResultInProgress) && !settled[where{ed.Start.Cluster, ed.ID()}] && !ed.Alive() {
				out = append(out, ed)
			}
			continue
		}
		wrote := len(ed.UndoSet()) > 0 || ed.Result() == ResultInProgress
		if ed.Interrupted() && wrote && !settled[at] && !ed.Alive() {
			out = append(out, ed)
		}
	}
	return out
}

// InterruptedCached is Interrupted, re-read only when the file or the
// cluster changed: the dashboard asks on every frame.
func (a *Log) InterruptedCached(cluster string) []Edit {
	fi, err := os.Stat(a.Path)
	if err != nil {
		return nil
	}
	st := [2]int64{fi.Size(), fi.ModTime().UnixNano()}
	a.noticeMu.Lock()
	defer a.noticeMu.Unlock()
	if st != a.noticeStat || cluster != a.noticeCluster {
		a.noticeStat, a.noticeCluster = st, cluster
		a.notice, _ = a.Interrupted(cluster)
	}
	return a.notice
}

// topicPartitions is how many topic-partitions the edit writes: its
// positions, or its changes' writes where it records no positions.
func (ed Edit) topicPartitions() int {
	if n := len(ed.Start.Positions); n > 0 {
		return n
	}
	n := 0
	for _, ch := range ed.Start.Changes {
		n += len(ch.Writes)
	}
	return n
}

// Notice is one line saying an interrupted edit exists and what to do, or
// "" when there is none.
func (ed Edit) Notice() string {
	if ed.Start.Steps != nil {
		return ed.operationNotice()
	}
	s := ed.Start
	total := ed.topicPartitions()
	written := len(ed.WrittenSet())
	how := "stopped part way"
	switch ed.Result() {
	case ResultInProgress:
		how = "its process ended without an outcome"
	case ResultPartial:
		how = "a write failed part way"
	case ResultUnknown:
		how = "a write's answer was lost: it may have been written"
	case ResultInterrupted:
		how = "stopped by a signal"
		if ed.Outcome != nil && ed.Outcome.Message != "" {
			how = ed.Outcome.Message
		}
	}
	counted := fmt.Sprintf("%d of %d topic-partitions written", written, total)
	if n := len(ed.UnknownSet()); n > 0 {
		counted += fmt.Sprintf(", %d may have been", n)
	}
	if ed.Result() == ResultInProgress {
		counted = fmt.Sprintf("at least %d of %d topic-partitions written", written, total)
	}
	return fmt.Sprintf("INTERRUPTED EDIT: %s by %s at %s (%s; %s): run `%s` to put back exactly what it wrote, or repeat the edit",
		s.What(), s.User, model.TimeText(s.Time), how, counted, plan.UndoCommand(s.Connector, ed.ID()))
}

// Headline is Notice for a one-line header: what to do first, details
// after, so that a narrow terminal cuts only details.
func (ed Edit) Headline() string {
	if ed.Start.Steps != nil {
		return ed.operationHeadline()
	}
	s := ed.Start
	total := ed.topicPartitions()
	written := fmt.Sprintf("%d/%d", len(ed.WrittenSet()), total)
	if ed.Result() == ResultInProgress {
		written = "≥" + written
	}
	if n := len(ed.UnknownSet()); n > 0 {
		written += fmt.Sprintf(" (+%d may have been)", n)
	}
	// The id's random end is enough for --edit, and keeps the command whole
	// in 80 columns.
	return fmt.Sprintf("INTERRUPTED EDIT of %s: %s puts back what it wrote (%s by %s at %s, %s topic-partitions written)",
		s.Connector, plan.UndoCommand(s.Connector, ed.ShortID()), s.KindText(), s.User, model.TimeText(s.Time), written)
}

// Undoable says whether an edit wrote anything undo could put back.
func Undoable(ed Edit) bool {
	if ed.Start.Steps != nil {
		return len(ed.Done) > 0
	}
	switch ed.Result() {
	case ResultVerified, ResultUnverified, ResultPartial, ResultInterrupted, ResultInProgress, ResultUnknown:
	case ResultLost:
		// A lost edit put the winner's values back; what it also wrote
		// elsewhere (keys it won) is still its own.
	default:
		return false
	}
	if ed.Start.ID == "" {
		return true
	}
	return len(ed.UndoSet()) > 0 || ed.Result() == ResultInProgress
}

// UndoChanges are the changes of an edit that were written: all of a
// whole edit, the written and maybe-written (unknown) topic-partitions' of
// a partial one, less those a concurrent edit won.
func UndoChanges(ed Edit) []Change {
	if ed.Start.ID == "" || ed.Start.Path == plan.PathREST || ed.Start.Path == plan.PathGroup {
		if ed.Result() == ResultVerified || ed.Result() == ResultUnverified || ed.Start.ID == "" {
			return ed.Start.Changes
		}
	}
	written := ed.UndoSet()
	restored := map[string]bool{}
	if ed.Outcome != nil {
		for _, p := range ed.Outcome.Restored {
			restored[p] = true
		}
	}
	var out []Change
	for _, ch := range ed.Start.Changes {
		if restored[string(ch.Partition)] {
			continue
		}
		hit := false
		for _, w := range ch.Writes {
			hit = hit || written[w]
		}
		if hit {
			out = append(out, ch)
		}
	}
	return out
}

// RestoresOf turns an edit's records into exact writes of their
// before-values, leaving out topic-partitions an interrupted or partial
// edit provably never wrote.
func RestoresOf(recs []Record, ed Edit) []plan.Restore {
	written := ed.UndoSet()
	whole := ed.Start.ID == "" || ed.Result() == ResultVerified || ed.Result() == ResultUnverified || ed.Result() == ResultOverwritten
	var out []plan.Restore
	for _, r := range recs {
		if !whole && !written[r.TopicPartition] {
			continue
		}
		i := strings.LastIndexByte(r.TopicPartition, '/')
		if i < 0 {
			continue
		}
		n, err := strconv.Atoi(r.TopicPartition[i+1:])
		if err != nil {
			continue
		}
		out = append(out, plan.Restore{TopicPartition: model.TopicPartition{Topic: r.TopicPartition[:i], Partition: n}, Key: r.KeyBytes(), Value: r.BeforeBytes()})
	}
	return out
}

// UndoRequestOf is the request that puts an edit's before-values back.
func UndoRequestOf(ed Edit) (plan.Request, error) {
	en := ed.Start
	req := plan.Request{Connector: en.Connector, Kind: plan.KindUndo}
	for _, ch := range UndoChanges(ed) {
		p, err := plan.ParsePartition(string(ch.Partition))
		if err != nil {
			return req, fmt.Errorf("audit log entry of %s: %w", model.TimeText(en.Time), err)
		}
		it := plan.Item{Partition: p}
		if en.Path == plan.PathTopic && len(ch.Records) > 0 {
			// Each copy written gets its own before-value back, byte for
			// byte: one value for all of them would move what the task
			// reads, or overwrite a stray with the live offset.
			it.Restore = RestoresOf(ch.Records, ed)
			if len(it.Restore) > 0 {
				req.Items = append(req.Items, it)
			}
			continue
		}
		if string(ch.Before) != "null" && len(ch.Before) > 0 {
			o, err := model.ParseOffset(ch.Before)
			if err != nil {
				return req, fmt.Errorf("audit log entry of %s: %w", model.TimeText(en.Time), err)
			}
			it.Offset = o
		}
		req.Items = append(req.Items, it)
	}
	if len(req.Items) == 0 {
		return req, fmt.Errorf("the %s at %s wrote nothing: nothing to undo", en.What(), model.TimeText(en.Time))
	}
	return req, nil
}

// What names an edit for one line: "set of NAME", "rewind of NAME to T".
func (en Entry) What() string {
	if en.Kind == plan.KindRename && en.From != "" {
		return "rename of " + en.From + " to " + en.Connector
	}
	if en.Kind == plan.KindMove && en.To != "" {
		return "move of " + en.Connector + " to " + en.To
	}
	return plan.What(en.Kind, en.Connector, en.Rewind)
}

// KindText is an edit's kind, with a rewind's time: "rewind to T".
func (en Entry) KindText() string {
	if en.Kind == plan.KindRewind && en.Rewind != nil {
		return "rewind to " + en.Rewind.AtText()
	}
	return string(en.Kind)
}

// ResultDone is the outcome of a stop or resume that Connect carried out.
// Such a line has no changes: undo passes over it.
const ResultDone = "done"

// ID is the edit's id; a line from before ids existed goes by its time.
func (ed Edit) ID() string {
	if ed.Start.ID != "" {
		return ed.Start.ID
	}
	return ed.Start.Time.UTC().Format("20060102T150405.000Z")
}

// ShortID is the random end of the edit's id (its 8 hex digits), which
// --edit takes as it takes the whole id; the whole id when it has none.
func (ed Edit) ShortID() string {
	id := ed.ID()
	if i := strings.LastIndexByte(id, '-'); i > 0 && len(id)-i-1 == 8 {
		return id[i+1:]
	}
	return id
}

// AmbiguousEditError: --edit names a part of more than one edit's id.
type AmbiguousEditError struct {
	Part       string
	Candidates []Entry
}

func (e *AmbiguousEditError) Error() string {
	names := make([]string, len(e.Candidates))
	for i, c := range e.Candidates {
		names[i] = EditName(c)
	}
	return fmt.Sprintf("--edit %s: %d edits have ids with it: %s; give more of the id", e.Part, len(e.Candidates), strings.Join(names, "; "))
}

// FindEdit is the edit whose id is part, or the one edit whose id has
// part in it (a prefix as git takes a short sha, or any other piece:
// the random end, the time). Its index in edits; an error when none or
// several have it.
func FindEdit(edits []Edit, part string) (int, error) {
	if part == "" {
		return -1, errors.New("--edit needs an edit id (koff audit lists them)")
	}
	var prefix, within []int
	for j, ed := range edits {
		id := ed.ID()
		switch {
		case id == part:
			return j, nil
		case strings.HasPrefix(id, part):
			prefix = append(prefix, j)
		case strings.Contains(id, part):
			within = append(within, j)
		}
	}
	// A prefix goes first, as in git: a short id that begins one id and
	// is inside another names the first.
	found := prefix
	if len(found) == 0 {
		found = within
	}
	switch len(found) {
	case 0:
		return -1, nil
	case 1:
		return found[0], nil
	}
	amb := &AmbiguousEditError{Part: part}
	for _, j := range found {
		en := edits[j].Start
		en.ID = edits[j].ID()
		amb.Candidates = append(amb.Candidates, en)
	}
	return -1, amb
}

// EditName names an edit for one line: "set of NAME by USER at TIME (edit
// ID)", "rewind of NAME to T by …".
func EditName(en Entry) string {
	return fmt.Sprintf("%s by %s at %s (edit %s)", en.What(), OrUnknownUser(en.User),
		model.TimeText(en.Time), Edit{Start: en}.ID())
}

func OrUnknownUser(u string) string {
	if u == "" {
		return "an unknown user"
	}
	return u
}

// ChangesOf is what an audit line holds of a plan's changes: each
// partition's offset before and after, and every record written with the
// value its key held.
func ChangesOf(p *plan.Plan) []Change {
	var out []Change
	for _, ch := range p.Changes {
		ac := Change{Partition: rawOrNull([]byte(ch.PartitionJSON)), Before: rawOrNull(ch.Before), After: rawOrNull(ch.After)}
		for _, w := range ch.Writes {
			ac.Writes = append(ac.Writes, w.TopicPartition.String())
			ac.Records = append(ac.Records, recordOf(w))
		}
		if p.Group != "" {
			ac.Writes = []string{"group " + p.Group}
		}
		out = append(out, ac)
	}
	return out
}
