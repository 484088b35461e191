package plan

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Operations over a connector's life: several steps, one audit entry.
const (
	// KindCreate creates a connector STOPPED (KIP-980), writes its offsets
	// and verifies them, then starts it if asked.
	KindCreate Kind = "create"
	// KindRename re-creates a connector under a new name with its config
	// and offsets, deletes the old one and tombstones its offsets.
	KindRename Kind = "rename"
	// KindRekey rewrites a field of a connector's source partitions (and
	// the config the field comes from): new keys with the old values byte
	// for byte, the old keys tombstoned.
	KindRekey Kind = "rekey"
	// KindMove moves a connector to another Connect cluster: created there
	// with its config and offsets, verified, then deleted here and its
	// offsets tombstoned.
	KindMove Kind = "move"
	// KindUndoOperation undoes the steps an operation carried out, in
	// reverse.
	KindUndoOperation Kind = "undo-operation"
)

// StepKind is what one step of an operation does.
type StepKind string

const (
	StepStop    StepKind = "stop"    // PUT /connectors/NAME/stop, then its tasks are gone
	StepCreate  StepKind = "create"  // POST /connectors with initial_state (STOPPED)
	StepOffsets StepKind = "offsets" // an offsets edit (Plan), written and read back
	StepResume  StepKind = "resume"  // PUT /connectors/NAME/resume
	StepPause   StepKind = "pause"   // PUT /connectors/NAME/pause
	StepDelete  StepKind = "delete"  // DELETE /connectors/NAME
	StepConfig  StepKind = "config"  // PUT /connectors/NAME/config
)

// Step is one step of an operation, on one connector of one Connect
// cluster (Where: "" is the one koff is connected to; a move names
// another).
type Step struct {
	Kind      StepKind
	Connector string
	Where     string
	// Config is what a create gives the connector, what a delete takes
	// away (undo creates it again with it), and a config step's new
	// config.
	Config map[string]string
	// Previous is the config a config step replaces (undo puts it back).
	Previous map[string]string
	// State is a create's initial state; for a stop or delete, the state
	// the connector was in (undo puts it back).
	State string
	// Plan is an offsets step's edit: every offset before → after, every
	// record with its exact key.
	Plan *Plan
	// Undoes is the id of the offsets edit an undo's offsets step puts
	// back.
	Undoes string
}

// Text says what the step does, for the plan and the audit log.
func (s Step) Text() string {
	at := ""
	if s.Where != "" {
		at = " on " + s.Where
	}
	switch s.Kind {
	case StepStop:
		return fmt.Sprintf("stop %s%s (PUT /connectors/%s/stop; it is %s)", s.Connector, at, s.Connector, orUnknown(s.State))
	case StepCreate:
		return fmt.Sprintf("create %s%s %s (POST /connectors, initial_state %s, %s)", s.Connector, at, s.State, s.State, ClassOf(s.Config))
	case StepOffsets:
		if s.Plan == nil {
			return "offsets of " + s.Connector + at
		}
		via := "offsets topic " + s.Plan.Topic
		switch s.Plan.Path {
		case PathREST:
			via = "Connect REST"
		case PathGroup:
			via = "consumer group " + s.Plan.Group
		}
		what := fmt.Sprintf("%s %d partition%s", s.Plan.Kind, len(s.Plan.Changes), plural(len(s.Plan.Changes)))
		if s.Plan.Kind == KindRekey && s.Plan.Rekey != nil {
			n := len(s.Plan.Changes) / 2
			return fmt.Sprintf("rekey %s: %d partition%s of %s%s under new keys with their offsets byte for byte, the old keys tombstoned, via %s, then read back",
				s.Plan.Rekey.Text(), n, plural(n), s.Connector, at, via)
		}
		if s.Plan.Kind == KindCopy && s.Plan.Rekey != nil {
			what = fmt.Sprintf("copy %d partition%s rekeyed %s", len(s.Plan.Changes), plural(len(s.Plan.Changes)), s.Plan.Rekey.Text())
		}
		if s.Plan.Kind == KindResetAll {
			what = fmt.Sprintf("tombstone all %d partitions", len(s.Plan.Changes))
			if len(s.Plan.Changes) == 1 {
				what = "tombstone the 1 partition"
			}
		}
		return fmt.Sprintf("%s of %s%s via %s, then read back", what, s.Connector, at, via)
	case StepResume:
		return fmt.Sprintf("resume %s%s (PUT /connectors/%s/resume)", s.Connector, at, s.Connector)
	case StepPause:
		return fmt.Sprintf("pause %s%s (PUT /connectors/%s/pause)", s.Connector, at, s.Connector)
	case StepConfig:
		return fmt.Sprintf("change the config of %s%s (PUT /connectors/%s/config): %s", s.Connector, at, s.Connector, ConfigChangeText(s.Previous, s.Config))
	case StepDelete:
		return fmt.Sprintf("delete %s%s (DELETE /connectors/%s; its config goes, its offsets stay)", s.Connector, at, s.Connector)
	}
	return string(s.Kind) + " " + s.Connector
}

func orUnknown(s string) string {
	if s == "" {
		return "in an unknown state"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ClassOf names a config's connector class in one word.
func ClassOf(cfg map[string]string) string {
	c := cfg["connector.class"]
	if i := strings.LastIndexByte(c, '.'); i >= 0 {
		c = c[i+1:]
	}
	if c == "" {
		return "no class"
	}
	return c
}

// Operation is a multi-step change of connectors' lives, ready for
// confirmation: every step in order, each offsets step with its plan.
type Operation struct {
	Kind Kind
	// Connector is the connector it is about: the one created, or the
	// new name of a rename. From is the old name (rename) or where the
	// offsets came from (create --offsets-from).
	Connector, From string
	// To is where a move takes the connector: the koff context naming the
	// other Connect cluster (and its Kafka cluster).
	To    string
	Steps []Step
	// Undoes is the id of the operation an undo reverses, and UndoesWhat
	// names it.
	Undoes, UndoesWhat string
	Warnings           []string
	// Command is the koff command line that makes the same operation.
	Command string
	Made    time.Time
}

// What names the operation for one line: "rename of OLD to NEW".
func (o *Operation) What() string {
	switch o.Kind {
	case KindRename:
		return fmt.Sprintf("rename of %s to %s", o.From, o.Connector)
	case KindMove:
		return fmt.Sprintf("move of %s to %s", o.Connector, o.To)
	case KindUndoOperation:
		return "undo of the " + o.UndoesWhat
	}
	return string(o.Kind) + " of " + o.Connector
}

// Plans are the offsets steps' plans, in order.
func (o *Operation) Plans() []*Plan {
	var out []*Plan
	for _, s := range o.Steps {
		if s.Plan != nil {
			out = append(out, s.Plan)
		}
	}
	return out
}

// ConfigText is a config as one sorted line, what the plan shows a create
// will send: a secret's value (a password, a secret, a token, a key that
// is no config-provider placeholder ${…}) is shown as [hidden], as
// Connect's own logs hide a PASSWORD config; the create sends it whole.
func ConfigText(cfg map[string]string) string {
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := cfg[k]
		if Hidden(k, v) {
			v = HiddenText
		}
		parts[i] = k + "=" + v
	}
	return strings.Join(parts, " ")
}

// HiddenText stands for a secret's value where koff shows a config.
const HiddenText = "[hidden]"

// Hidden: the value of config key k is a secret koff does not show (a
// config-provider placeholder ${…} is no secret).
func Hidden(k, v string) bool {
	return secretKey(k) && v != "" && !strings.HasPrefix(v, "${")
}

// secretKey: a config key whose value is a secret by its name.
func secretKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"password", "secret", "token", "credentials", "private.key", "sasl.jaas.config", "key.password"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return strings.HasSuffix(k, ".key") && !strings.HasSuffix(k, "partition.key")
}

// DoneText says all of an operation's steps are done: "all 6 steps
// done", "its one step done".
func (o *Operation) DoneText() string {
	if len(o.Steps) == 1 {
		return "its one step done"
	}
	return fmt.Sprintf("all %d steps done", len(o.Steps))
}

// ConfigChangeText says what a config step changes, key by key: "topic.prefix
// dbz → dbz2", a key added "+k=v", removed "-k"; secrets hidden as in
// ConfigText.
func ConfigChangeText(before, after map[string]string) string {
	keys := map[string]bool{}
	for k := range before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	show := func(k, v string) string {
		if secretKey(k) && v != "" && !strings.HasPrefix(v, "${") {
			return "[hidden]"
		}
		return v
	}
	var parts []string
	for _, k := range sorted {
		b, hadB := before[k]
		a, hasA := after[k]
		switch {
		case hadB && hasA && a != b:
			parts = append(parts, fmt.Sprintf("%s %s → %s", k, show(k, b), show(k, a)))
		case !hadB && hasA:
			parts = append(parts, fmt.Sprintf("+%s=%s", k, show(k, a)))
		case hadB && !hasA:
			parts = append(parts, "-"+k)
		}
	}
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, ", ")
}

// OnBoth says a move cut short left its connector on both Connect
// clusters: the done steps created it on the target and did not delete it
// here (both STOPPED: stopped here first, created there STOPPED).
func (o *Operation) OnBoth(done []int) bool {
	if o.Kind != KindMove {
		return false
	}
	created, deleted := false, false
	for _, i := range done {
		if i < 0 || i >= len(o.Steps) {
			continue
		}
		switch s := o.Steps[i]; {
		case s.Kind == StepCreate && s.Where != "":
			created = true
		case s.Kind == StepDelete && s.Where == "":
			deleted = true
		}
	}
	return created && !deleted
}

// OnBothText says so in one sentence.
func (o *Operation) OnBothText() string {
	return fmt.Sprintf("%s is on both Connect clusters now, STOPPED on both (here and on %s): neither runs it", o.Connector, o.To)
}
