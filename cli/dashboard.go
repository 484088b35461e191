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

	"koff/keymap"
	"koff/model"
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
	store := model.NewStore(model.StoreOptions{})
	_, done := startTailer(ctx, g, store)
	polled := make(chan struct{})
	if rest != nil {
		go func() { rest.Poll(ctx, g.Refresh, store); close(polled) }()
	} else {
		close(polled)
	}
	defer func() { cancel(); <-done; <-polled }()

	m := ui.New(ui.Options{
		Source:    store,
		Bootstrap: strings.Join(g.Bootstrap, ","),
		Topics:    g.OffsetsTopics,
		KeyMap:    keymap.Default(),
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
