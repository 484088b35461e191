package plan

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"koff/model"
)

// CommandLine renders the koff command equivalent to a plan, so a dialog
// can show what to script and the CLI can echo what it will do.
type CommandLine struct {
	// Globals are the flags that point koff at the same cluster, as the
	// session has them: --context, --read-only, the bootstrap servers, the
	// offsets topics, the Connect URL, e.g.
	// ["--context", "prod", "-b", "kafka:9092", "--connect-url", "http://connect:8083"]
	// (secrets already removed).
	Globals []string
}

// For returns the command line of a plan, shell-quoted, or "" for the one
// kind no command does (deleting a stray copy). Every kind has a
// command that really does the same edit: several partitions with values
// go to `koff import` as the export they would make, on a file made by
// the shell (bash, zsh) so that koff still asks on the terminal.
func (c CommandLine) For(p *Plan) string {
	args := []string{"koff"}
	if sa := sinkArgs(p); sa != nil {
		args = append(append(args, sa...), nameArgs(p)...)
		return JoinArgs(append(args, c.Globals...))
	}
	switch {
	case p.Kind == KindDeleteStray:
		return "" // no command deletes one stored copy: only the dashboard does
	case p.Kind == KindRekey, p.Kind == KindCopy && p.From == p.Connector:
		// A step of koff rekey or koff move, whose own command line is the
		// operation's: no command makes this step alone.
		return ""
	case p.Kind == KindUndo:
		// The same selection of the same audit log (the globals carry
		// --audit-log): a set or import of the before-values would write
		// the key the task reads, not each copy's own value back.
		// Pinned to the edit: run later, it undoes this one, not the last.
		args = append(args, "undo", p.Connector)
		if p.Request.Undoes != "" {
			args = append(args, "--edit", p.Request.Undoes)
		}
		return JoinArgs(append(args, c.Globals...))
	case p.Kind == KindRewind && p.Request.Rewind != nil:
		return c.rewindCommand(p)
	case p.Kind == KindResetAll:
		args = append(args, "reset", p.Connector)
	case p.Kind == KindCopy:
		args = append(args, "copy", p.From, p.Connector)
	case allResets(p):
		args = append(args, "reset", p.Connector)
		for _, ch := range p.Changes {
			args = append(args, "--partition", ch.PartitionJSON)
		}
	case len(p.Changes) == 1:
		ch := p.Changes[0]
		args = append(args, "set", p.Connector, "--partition", ch.PartitionJSON, "--offset", string(ch.After))
	default:
		return "koff import <(printf '%s\\n' " + shellQuote(exportJSON(p)) + ") " + JoinArgs(append(nameArgs(p), c.Globals...))
	}
	args = append(args, nameArgs(p)...)
	return JoinArgs(append(args, c.Globals...))
}

// nameArgs are the request's --create and --group: without them the
// printed command would refuse the new name or pick another group.
func nameArgs(p *Plan) []string {
	var out []string
	if p.Request.Create {
		out = append(out, "--create")
	}
	if p.Request.Group != "" && p.Kind != KindImport && p.Kind != KindCopy && p.Kind != KindUndo && p.Kind != KindRewind {
		out = append(out, "--group", p.Request.Group)
	}
	return out
}

func allResets(p *Plan) bool {
	for _, ch := range p.Changes {
		if ch.After != nil {
			return false
		}
	}
	return true
}

// exportJSON is the plan's changes as koff export writes them (null
// offsets delete), which is what koff import reads.
func exportJSON(p *Plan) string {
	var b strings.Builder
	b.WriteString(`{"`)
	b.WriteString(jsonEscape(p.Connector))
	b.WriteString(`":{"offsets":[`)
	for i, ch := range p.Changes {
		if i > 0 {
			b.WriteByte(',')
		}
		after := "null"
		if ch.After != nil {
			after = string(ch.After)
		}
		part := ch.PartitionJSON
		if part == "" {
			part = "null"
		}
		b.WriteString(`{"partition":` + part + `,"offset":` + after + `}`)
	}
	b.WriteString(`]}}`)
	return b.String()
}

// jsonEscape escapes a connector name for a JSON string.
func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// JoinArgs is a command line of args, each shell-quoted where it needs it.
func JoinArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// sinkArgs is `koff set SINK --to-…` for a sink plan made by strategy, or
// nil when the plan has no such form (explicit offsets: import, undo).
func sinkArgs(p *Plan) []string {
	r := p.SinkAsked
	if r == nil || r.Strategy.Kind == SinkExplicit {
		return nil
	}
	var args []string
	switch s := r.Strategy; s.Kind {
	case SinkToOffset:
		args = []string{"set", r.Connector, "--to-offset", strconv.FormatInt(s.Offset, 10)}
	case SinkToEarliest:
		args = []string{"set", r.Connector, "--to-earliest"}
	case SinkToLatest:
		args = []string{"set", r.Connector, "--to-latest"}
	case SinkToTimestamp:
		args = []string{"set", r.Connector, "--to-datetime", model.TimeArg(s.Time)}
	case SinkShiftBy:
		args = []string{"set", r.Connector, "--shift-by", strconv.FormatInt(s.Shift, 10)}
	case SinkReset:
		args = []string{"reset", r.Connector}
	default:
		return nil
	}
	switch {
	case len(r.Topics) > 0: // the partitions came from --topic
		for _, t := range r.Topics {
			args = append(args, "--topic", t)
		}
	case len(r.Partitions) == 0:
	case len(r.Partitions) == 1:
		args = append(args, "--partition", SinkPartitionJSON(r.Partitions[0]))
	default:
		return nil // several chosen partitions: no single flag says that
	}
	return args
}

// shellQuote quotes an argument for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// rewindCommand is the command line of a replanned rewind: the same set
// --to-datetime.
func (c CommandLine) rewindCommand(p *Plan) string {
	if p.Request.Rewind == nil {
		return ""
	}
	return p.Request.Rewind.Request.Command(c)
}

// UndoCommand is koff undo pinned to one edit: pasted later, it never
// undoes another.
func UndoCommand(connector, id string) string {
	return JoinArgs([]string{"koff", "undo", connector, "--edit", id})
}

// Args is a koff command line of these arguments with the session's
// globals, shell-quoted.
func (c CommandLine) Args(args []string) string {
	return JoinArgs(append(append([]string{"koff"}, args...), c.Globals...))
}

// CreateCommand is koff create of a config given as JSON (the dashboard's,
// which has no file): -f reads it from printf, its secrets [hidden] (put
// them back to run it), then args and the session's globals.
func (c CommandLine) CreateCommand(cfg map[string]string, args []string) string {
	shown := make(map[string]string, len(cfg))
	for k, v := range cfg {
		if Hidden(k, v) {
			v = HiddenText
		}
		shown[k] = v
	}
	body, _ := json.Marshal(shown) // sorted keys
	return "koff create -f <(printf '%s\\n' " + shellQuote(string(body)) + ") " + JoinArgs(append(slices.Clone(args), c.Globals...))
}
