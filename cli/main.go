// Package cli is koff's command line: global flags, one file per
// subcommand, and the wiring of kafka, model, demo and ui.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/pflag"

	"koff/edit/apply"
	"koff/edit/planner"
	"koff/model/text"
)

// Exit codes: the command line contract scripts rely on.
const (
	ExitOK     = 0
	ExitFailed = 1
	ExitUsage  = 2
	// ExitUnknown: a write's answer was lost and no read showed it: it may
	// have been written (the error names what; koff undo covers it).
	ExitUnknown = 3
	// ExitFlushUnknown: `koff status` cannot tell whether a source
	// connector still commits: no flush for more than 3× its interval, and
	// no evidence (REST state, unflushed records) either way.
	ExitFlushUnknown = 4
	// ExitLeftAlone: `koff set --to-datetime` left partitions it was asked
	// to rewind as they are (first committed after the time, its history
	// not reaching back to it, no copy its task reads): each is named, and
	// the others were rewound (or, with --dry-run, would be).
	ExitLeftAlone = 5
)

// Env is what a command may touch of the outside world.
type Env struct {
	// Context ends long-running commands (tail, demo-cluster) besides SIGINT.
	Context        context.Context
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

// usageError marks a mistake on the command line (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

type command struct {
	name    string
	args    string
	summary string
	flags   func(fs *pflag.FlagSet) any
	run     func(g *Globals, opts any, args []string, env Env) error
	// hidden: not listed by koff help (a tool of the tests).
	hidden bool
}

var commands []*command

func register(c *command) { commands = append(commands, c) }

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// Main runs koff with the given arguments and returns the exit code.
func Main(args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.Context == nil {
		env.Context = context.Background()
	}
	err := run(args, env)
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, pflag.ErrHelp):
		return ExitOK
	}
	fmt.Fprintf(env.Stderr, "koff: %s\n", errorLine(err))
	var ue usageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	var we *apply.WriteError
	if errors.As(err, &we) && len(we.Unknown) > 0 {
		return ExitUnknown
	}
	if errors.Is(err, errFlushUnknown) {
		return ExitFlushUnknown
	}
	var left leftAloneError
	if errors.As(err, &left) {
		return ExitLeftAlone
	}
	var re resumeError
	if errors.As(err, &re) {
		return re.code
	}
	return ExitFailed
}

func run(args []string, env Env) error {
	name, rest := splitCommand(args)
	cmd := dashboardCommand
	if name == "help" {
		// koff help [COMMAND] is koff [COMMAND] --help.
		cmd, rest = helpTarget(rest)
		if cmd == nil {
			return unknownCommand(rest[0])
		}
		rest = append(rest, "--help")
	} else if name != "" {
		if cmd = lookup(name); cmd == nil {
			return unknownCommand(name)
		}
	}
	if cmd != dashboardCommand && env.Stdout != nil && env.Stderr != nil {
		// The dashboard draws on the terminal itself; every other
		// command's output passes the guard.
		out, errw := &safeWriter{w: env.Stdout}, &safeWriter{w: env.Stderr}
		env.Stdout, env.Stderr = out, errw
		defer out.Flush()
		defer errw.Flush()
	}
	fs := pflag.NewFlagSet("koff "+cmd.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	g := addGlobals(fs, env)
	var opts any
	if cmd.flags != nil {
		opts = cmd.flags(fs)
	}
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			printUsage(env.Stdout, cmd, fs)
			return err
		}
		return usagef("%v", err)
	}
	if g.Demo && !usesGlobal(cmd.name, "demo") {
		// Accepted everywhere but used by two: a silent no-op would leave a
		// newcomer with "no Kafka bootstrap servers".
		return usagef("--demo runs the dashboard, koff serve or koff metrics on a demo of their own; for koff %s, start koff demo-cluster and pass -b 127.0.0.1:9092", cmd.name)
	}
	if err := g.finish(fs); err != nil {
		return err
	}
	if err := g.refuseReadOnly(cmd.name, opts); err != nil {
		return err
	}
	return cmd.run(g, opts, fs.Args(), env)
}

// splitCommand finds the subcommand: the first argument that is not a flag
// or a global flag's value. Global flags may come before or after it.
func splitCommand(args []string) (string, []string) {
	probe := pflag.NewFlagSet("probe", pflag.ContinueOnError)
	addGlobals(probe, Env{Getenv: func(string) string { return "" }})
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return "", args
		case strings.HasPrefix(a, "-"):
			if takesValue(probe, a) {
				i++
			}
		case lookup(a) != nil || a == "help":
			return a, append(append([]string{}, args[:i]...), args[i+1:]...)
		default:
			return "", args
		}
	}
	return "", args
}

// takesValue reports whether a flag argument like "-b" or "--refresh"
// consumes the next argument as its value.
func takesValue(fs *pflag.FlagSet, arg string) bool {
	if strings.Contains(arg, "=") {
		return false
	}
	var f *pflag.Flag
	if strings.HasPrefix(arg, "--") {
		f = fs.Lookup(arg[2:])
	} else if len(arg) == 2 {
		f = fs.ShorthandLookup(arg[1:])
	}
	return f != nil && f.NoOptDefVal == ""
}

// commandOrder is how --help lists commands: reading first, then writing.
// A command missing here is still listed (listedCommands), after these.
var commandOrder = []string{"get", "tail", "status", "check", "history", "export", "set", "reset", "import", "copy", "create", "rename", "rekey", "move", "undo", "audit", "stop", "resume", "serve", "metrics", "demo-cluster", "version"}

// listedCommands are the commands koff help lists: every one registered
// but the hidden, in commandOrder, then any other by name.
func listedCommands() []*command {
	var out []*command
	for _, name := range commandOrder {
		if c := lookup(name); c != nil && !c.hidden {
			out = append(out, c)
		}
	}
	var rest []*command
	for _, c := range commands {
		if !c.hidden && !slices.Contains(commandOrder, c.name) {
			rest = append(rest, c)
		}
	}
	slices.SortFunc(rest, func(a, b *command) int { return strings.Compare(a.name, b.name) })
	return append(out, rest...)
}

// unknownCommand refuses a word that names no command, with the closest
// command names, as an unknown connector name is refused.
func unknownCommand(name string) error {
	names := []string{"help"}
	for _, c := range listedCommands() {
		names = append(names, c.name)
	}
	return usagef("unknown command %q%s (koff help lists the commands)", name, planner.DidYouMean(planner.ClosestNames(name, names)))
}

// helpTarget is the command `koff help ARGS` asks about: the first
// argument that is not a flag, or the dashboard for none. The rest are
// parsed as they would be with --help, so flags stay valid.
func helpTarget(args []string) (*command, []string) {
	for i, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		c := lookup(a)
		if a == "help" {
			c = dashboardCommand
		}
		if c == nil {
			return nil, []string{a}
		}
		return c, append(append([]string{}, args[:i]...), args[i+1:]...)
	}
	return dashboardCommand, args
}

func printUsage(w io.Writer, cmd *command, fs *pflag.FlagSet) {
	width := helpWidth(w)
	flagUsages := func(fs *pflag.FlagSet) string { return flagUsagesWrapped(fs, width) }
	globals := pflag.NewFlagSet("globals", pflag.ContinueOnError)
	globals.SortFlags = false
	used := pflag.NewFlagSet("used", pflag.ContinueOnError)
	used.SortFlags = false
	addGlobals(globals, Env{Getenv: func(string) string { return "" }})
	own := pflag.NewFlagSet("own", pflag.ContinueOnError)
	own.SortFlags = false
	fs.VisitAll(func(f *pflag.Flag) {
		if globals.Lookup(f.Name) == nil {
			own.AddFlag(f)
		}
	})
	globals.VisitAll(func(f *pflag.Flag) {
		if usesGlobal(cmd.name, f.Name) {
			used.AddFlag(f)
		}
	})
	if cmd == dashboardCommand {
		fmt.Fprint(w, `koff: a terminal dashboard for Kafka Connect offsets

Usage:
  koff [flags]                      the live dashboard
  koff --demo                       the dashboard on an embedded demo cluster
  koff COMMAND [args] [flags]
  koff help [COMMAND]               this help, or COMMAND's (as COMMAND --help)

Commands:
`)
		for _, c := range listedCommands() {
			fmt.Fprintf(w, "  %-14s %s\n", c.name, wrapText(c.summary, width, 17))
		}
		fmt.Fprint(w, "\nRun koff help COMMAND for a command's own flags.\n\nGlobal flags, accepted by every command (koff help CMD lists those CMD uses):\n")
		fmt.Fprint(w, flagUsages(globals))
		return
	}
	fmt.Fprintf(w, "Usage: koff %s %s\n\n%s\n", cmd.name, wrapText(cmd.args, width, 12+len(cmd.name)), wrapText(cmd.summary, width, 0))
	if own.HasFlags() {
		fmt.Fprint(w, "\nFlags:\n"+flagUsages(own))
	}
	if used.HasFlags() {
		fmt.Fprint(w, "\nGlobal flags it uses (koff help lists all):\n"+flagUsages(used))
	}
}

// flagUsages lists flags as pflag does, except that a switch shows no
// "[=true|false]", a duration's default reads "1m" rather than "1m0s", and
// a flag whose unset value only means "not given" shows no default.
func flagUsagesWrapped(fs *pflag.FlagSet, wrap int) string {
	type line struct{ left, usage string }
	var lines []line
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		left := "      --" + f.Name
		if f.Shorthand != "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		varname, usage := pflag.UnquoteUsage(f)
		if f.Value.Type() != "bool" && varname != "" {
			left += " " + varname
		}
		if d := shownDefault(f); d != "" {
			usage += " (default " + d + ")"
		}
		width = max(width, len(left))
		lines = append(lines, line{left, usage})
	})
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%-*s   %s\n", width, l.left, wrapText(l.usage, wrap, width+3))
	}
	return b.String()
}

// helpWidth is the terminal's width when help goes to one, else 0: help
// piped to a file or a pager is not wrapped.
func helpWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return 0
	}
	if cols, _, err := term.GetSize(f.Fd()); err == nil && cols >= 40 {
		return cols
	}
	return 0
}

// wrapText breaks s between words so that no line passes width, starting
// continuation lines at column indent; width 0 leaves s whole.
func wrapText(s string, width, indent int) string {
	if width <= 0 || indent+len(s) <= width {
		return s
	}
	avail := max(width-indent, 20)
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(s) {
		if i > 0 && n+1+len(word) > avail {
			b.WriteString("\n" + strings.Repeat(" ", indent))
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// shownDefault is a flag's default as --help shows it, or "" for none.
func shownDefault(f *pflag.Flag) string {
	switch d := f.DefValue; {
	case d == "" || d == "false" || d == "0" || d == "0s" || d == "[]":
		return ""
	case f.Value.Type() == "string":
		return strconv.Quote(d)
	case f.Value.Type() == "duration":
		if t, err := time.ParseDuration(d); err == nil {
			return ageText(t)
		}
	}
	return f.DefValue
}

// errorLine is an error as koff prints it: one line, whatever names,
// bodies or file contents it quotes (their newlines are shown as \n).
func errorLine(err error) string { return text.Sanitize(strings.TrimSpace(err.Error())) }
