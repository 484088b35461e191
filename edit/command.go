package edit

import (
	"strings"
)

// CommandLine renders the koff command equivalent to a plan, so a dialog
// can show what to script and the CLI can echo what it will do.
type CommandLine struct {
	// Globals are the flags that point koff at the same cluster, e.g.
	// ["-b", "kafka:9092", "--connect-url", "http://connect:8083"]
	// (secrets already removed).
	Globals []string
}

// For returns the command line of a plan.
func (c CommandLine) For(p *Plan) string {
	args := []string{"koff"}
	switch p.Kind {
	case KindResetAll:
		args = append(args, "reset", p.Connector)
	case KindCopy:
		args = append(args, "copy", p.From, p.Connector)
	case KindSet, KindReset, KindImport, KindUndo:
		allReset := true
		for _, ch := range p.Changes {
			if ch.After != nil {
				allReset = false
			}
		}
		if allReset {
			args = append(args, "reset", p.Connector)
			for _, ch := range p.Changes {
				args = append(args, "--partition", ch.PartitionJSON)
			}
		} else if len(p.Changes) == 1 {
			ch := p.Changes[0]
			args = append(args, "set", p.Connector, "--partition", ch.PartitionJSON, "--offset", string(ch.After))
		} else {
			// Several partitions with values: an import of a file holding them.
			args = append(args, "import", "FILE")
		}
	}
	args = append(args, c.Globals...)
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// shellQuote quotes an argument for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
