package cli

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/pflag"

	"koff/edit/audit"
	"koff/keymap"
	"koff/ui"
)

var dashboardCommand = &command{
	name:    "",
	summary: "the live dashboard",
	run:     runDashboard,
}

func runDashboard(g *Globals, _ any, args []string, env Env) error {
	if len(args) > 0 {
		return unknownCommand(args[0])
	}
	if !g.Demo {
		if err := g.needBootstrap(); err != nil {
			return err
		}
	}
	out, ok := env.Stdout.(*os.File)
	if !ok || !term.IsTerminal(out.Fd()) {
		return usagef("the dashboard needs a terminal; in scripts use koff get or koff tail")
	}
	// `:` in the dashboard picks another context: run again on it.
	for {
		next, err := dashboardOnce(g, env)
		g.close()
		if err != nil || next == "" {
			return err
		}
		if g, err = switchContext(g, next, env); err != nil {
			return err
		}
	}
}

// dashboardOnce runs the dashboard until the user quits; it returns the
// context the user switched to, if any.
func dashboardOnce(g *Globals, env Env) (string, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if g.Demo {
		stopDemo, err := g.useDemo(ctx)
		if err != nil {
			return "", err
		}
		defer stopDemo()
	}
	rest, err := g.connectClient()
	if err != nil {
		return "", err
	}
	ck, err := g.resumeChecker()
	if err != nil {
		return "", err
	}
	o := observe(ctx, g, rest)
	defer o.stop()
	o.run()
	o.runResume(ck)
	_, stopMetrics, err := g.startMetrics(o, rest != nil, env)
	if err != nil {
		return "", err
	}
	defer stopMetrics()

	opts := g.uiOptions(o, rest != nil)
	ed := newInflightEditor(g.newEditor(o.store, o.tailer.Topics, rest, osUser(env), g.auditPath(env)))
	ed.Shared = o.histories
	others := &otherClusters{g: g, env: env, interrupt: ed.stop}
	defer others.close()
	ed.Editor.Elsewhere = others.editor
	opts.Editor = ed
	if g.contexts != nil {
		opts.Contexts = g.contexts.names()
	}
	m := ui.New(opts)
	_, err = tea.NewProgram(m, g.programOptions(env)...).Run()
	ed.finish(env.Stderr, 30*time.Second)
	if err != nil {
		return "", fmt.Errorf("dashboard: %w", err)
	}
	return m.SwitchTo(), nil
}

// uiOptions are the dashboard's options shared by the local dashboard and
// every koff serve session.
func (g *Globals) uiOptions(o *observer, rest bool) ui.Options {
	return ui.Options{
		Source:        o.store,
		Bootstrap:     strings.Join(g.Bootstrap, ","),
		Topics:        g.OffsetsTopics,
		KeyMap:        keymap.Default(),
		REST:          rest,
		ReadOnly:      g.ReadOnly,
		FlushInterval: g.FlushInterval,
		Insecure:      g.kafkaConfig().Insecure(),
		Context:       g.Context,
		Accent:        g.Accent,
		ContextFile:   g.contextFile,
		FPS:           g.FPS,
		Interrupted:   interruptedNotice(g.auditPath(g.env), o.tailer.ClusterID),
		ReadOnlyReason: func() string {
			if g.ReadOnly && !g.readOnlyFlag && g.Context != "" {
				return g.readOnlyCause()
			}
			return ""
		}(),
	}
}

// interruptedNotice is the dashboard header's warning about an edit of
// this cluster that stopped part way, from the audit log (re-read only
// when it changes).
func interruptedNotice(path string, cluster func() string) func() string {
	audit := &audit.Log{Path: path}
	return func() string {
		eds := audit.InterruptedCached(cluster())
		if len(eds) == 0 {
			return ""
		}
		n := eds[0].Headline()
		if len(eds) > 1 {
			n += fmt.Sprintf("; %d more: koff status lists them", len(eds)-1)
		}
		return n
	}
}

// programOptions: frames at ui.FrameRate, so a key shows at once (the UI
// itself holds data-driven redraws to --fps), and no-color.org's rule
// that any non-empty NO_COLOR means monochrome (colorprofile alone honours
// only values strconv.ParseBool accepts).
func (g *Globals) programOptions(env Env) []tea.ProgramOption {
	opts := []tea.ProgramOption{tea.WithFPS(ui.FrameRate)}
	if env.Getenv("NO_COLOR") != "" {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	return opts
}

// switchContext builds the globals of another context: its cluster
// settings, and this run's own (log file, audit log, refresh, fps,
// read-only).
func switchContext(g *Globals, name string, env Env) (*Globals, error) {
	fs := pflag.NewFlagSet("koff", pflag.ContinueOnError)
	ng := addGlobals(fs, env)
	args := []string{"--context", name, "--refresh", g.Refresh.String(), "--fps", strconv.Itoa(g.FPS)}
	if g.LogFile != "" {
		args = append(args, "--log-file", g.LogFile)
	}
	if g.AuditLog != "" {
		args = append(args, "--audit-log", g.AuditLog)
	}
	if g.readOnlyFlag {
		args = append(args, "--read-only")
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if err := ng.finish(fs); err != nil {
		return nil, err
	}
	if err := ng.needBootstrap(); err != nil {
		return nil, fmt.Errorf("context %s: %w", name, err)
	}
	return ng, nil
}
