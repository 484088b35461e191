package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"

	"koff/edit"
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
		return usagef("unknown command %q (see koff --help)", args[0])
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
	defer g.close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if g.Demo {
		c, err := startDemo(ctx, g, "127.0.0.1:0", "127.0.0.1:0", time.Minute)
		if err != nil {
			return err
		}
		defer c.Close()
		g.Bootstrap = []string{c.Bootstrap()}
		g.OffsetsTopics = []string{c.OffsetsTopic()}
		g.ConnectURL = c.ConnectURL()
	}
	rest, err := g.connectClient()
	if err != nil {
		return err
	}
	o := observe(ctx, g, rest)
	defer o.stop()
	o.run()
	store := o.store

	ed := &edit.Editor{
		Store:       store,
		Kafka:       g.kafkaConfig(),
		TopicSource: o.tailer.Topics,
		ReadOnly:    g.ReadOnly,
		User:        osUser(env),
		Audit:       &edit.AuditLog{Path: g.auditPath(env)},
		Cmd:         edit.CommandLine{Globals: g.shownGlobals(rest)},
	}
	if rest != nil {
		ed.REST = rest
	}
	m := ui.New(ui.Options{
		Source:        store,
		Bootstrap:     strings.Join(g.Bootstrap, ","),
		Topics:        g.OffsetsTopics,
		KeyMap:        keymap.Default(),
		Editor:        ed,
		REST:          rest != nil,
		FlushInterval: g.FlushInterval,
		ReadOnly:      g.ReadOnly,
	})
	var opts []tea.ProgramOption
	// no-color.org: any non-empty NO_COLOR means monochrome (colorprofile
	// alone only honours values strconv.ParseBool accepts).
	if env.Getenv("NO_COLOR") != "" {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	if _, err := tea.NewProgram(m, opts...).Run(); err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	return nil
}
