package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"koff/cli/serve"

	charmlog "charm.land/log/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	rm "charm.land/wish/v2/recover"
	"github.com/spf13/pflag"
	gossh "golang.org/x/crypto/ssh"
)

type serveOptions struct {
	listen      string
	operators   string
	viewers     string
	hostKey     string
	maxSessions int
	idle        time.Duration
}

func init() {
	register(&command{
		name:    "serve",
		args:    "--ssh-listen ADDR --authorized-keys FILE [--viewer-keys FILE] [--host-key FILE] [--max-sessions N] [--idle-timeout D]",
		summary: "serve the dashboard over SSH: operators and read-only viewers by public key, one live view for all",
		flags: func(fs *pflag.FlagSet) any {
			o := &serveOptions{}
			fs.StringVar(&o.listen, "ssh-listen", ":2222", "address the SSH server listens on")
			fs.StringVar(&o.operators, "authorized-keys", "", "authorized_keys file of the operators, who may edit (required)")
			fs.StringVar(&o.viewers, "viewer-keys", "", "authorized_keys file of read-only viewers")
			fs.StringVar(&o.hostKey, "host-key", "", "the server's private key, generated (ed25519, mode 0600) if missing (default $XDG_STATE_HOME/koff/ssh_host_ed25519)")
			fs.IntVar(&o.maxSessions, "max-sessions", 32, "sessions open at once; more are refused (0: no limit)")
			fs.DurationVar(&o.idle, "idle-timeout", time.Hour, "end a session after this long without a key press (0: never)")
			return o
		},
		run: runServe,
	})
}

func runServe(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*serveOptions)
	if len(args) > 0 {
		return usagef("serve takes no arguments, got %q", args[0])
	}
	if o.operators == "" {
		return usagef("serve needs --authorized-keys FILE: the public keys of the operators")
	}
	if o.maxSessions < 0 || o.idle < 0 {
		return usagef("--max-sessions and --idle-timeout must not be negative")
	}
	if o.idle > 0 && o.idle < time.Second {
		return usagef("--idle-timeout must be 0 (never) or at least 1s, got %s", o.idle)
	}
	if !g.Demo {
		if err := g.needBootstrap(); err != nil {
			return err
		}
	}
	defer g.close()
	keys, err := serve.LoadKeyring(o.operators, o.viewers)
	if ke := (serve.KeysError{}); errors.As(err, &ke) {
		return usagef("%s", ke.Error())
	}
	if err != nil {
		return err
	}
	if o.hostKey == "" {
		o.hostKey = serve.DefaultHostKeyPath(env.Getenv)
	}
	signer, created, err := serve.LoadHostKey(o.hostKey)
	if err != nil {
		return err
	}
	if created {
		g.logf("generated host key %s", o.hostKey)
	}
	// Listen before starting anything else: a port in use fails at once.
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("--ssh-listen: %w", err)
	}
	defer ln.Close()
	// wish's bubbletea middleware logs through charm's default logger;
	// send it to --log-file (or nowhere) like everything else.
	charmlog.SetOutput(g.logger.Writer())

	ctx, stop := signal.NotifyContext(env.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if g.Demo {
		stopDemo, err := g.useDemo(ctx)
		if err != nil {
			return err
		}
		defer stopDemo()
	}
	rest, err := g.connectClient()
	if err != nil {
		return err
	}
	ck, err := g.resumeChecker()
	if err != nil {
		return err
	}
	obs := observe(ctx, g, rest)
	defer obs.stop()
	obs.run()
	obs.runResume(ck)
	g.startEventLog(ctx, obs.store, env)
	metricsURL, stopMetrics, err := g.startMetrics(obs, rest != nil, env)
	if err != nil {
		return err
	}
	defer stopMetrics()

	base := g.newEditor(obs.store, obs.tailer.Topics, rest, "", g.auditPath(env))
	base.Shared = obs.histories // every session's detail shares one read
	uiOpts := g.uiOptions(obs, rest != nil)
	uiOpts.Served = true
	s := serve.NewServer(serve.Config{
		Keys: keys, MaxSessions: o.maxSessions, Idle: o.idle,
		// Sessions share the cluster; switching contexts is the local
		// dashboard's, so no context list here.
		UI: uiOpts,
		// Each session copies it and names its SSH user (editorFor).
		Base: *base,
		Logf: g.logf, Age: ageText,
	})
	srv, err := wish.NewServer(
		func(srv *ssh.Server) error { srv.AddHostKey(signer); return nil },
		wish.WithPublicKeyAuth(s.Authorize),
		// The connection-level timeout (no traffic either way) drops dead
		// clients; it runs a minute behind the sessions' own, which count
		// key presses and say goodbye.
		wish.WithIdleTimeout(transportIdle(o.idle)),
		wish.WithMiddleware(rm.MiddlewareWithLogger(g.logger, s.Middleware()...)),
	)
	if err != nil {
		return fmt.Errorf("ssh server: %w", err)
	}
	srv.HandshakeTimeout = time.Minute // a client that never finishes logging in

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(env.Stdout, "koff serve: listening on %s (host key %s); connect with: %s\n",
		ln.Addr(), gossh.FingerprintSHA256(signer.PublicKey()), sshCommand(ln.Addr().String()))
	g.logf("ssh listening on %s", ln.Addr())
	if metricsURL != "" {
		fmt.Fprintf(env.Stdout, "koff serve: Prometheus metrics at %s\n", metricsURL)
	}

	select {
	case <-ctx.Done():
	case err := <-served:
		return fmt.Errorf("ssh server: %w", err)
	}
	return s.Stop(srv, served)
}

func transportIdle(idle time.Duration) time.Duration {
	if idle == 0 {
		return 0
	}
	return idle + time.Minute
}

// sshCommand is how to reach the server: the listen host, or this
// machine's name when it listens on every interface.
func sshCommand(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "ssh " + addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		}
	}
	if port == "22" {
		return "ssh " + host
	}
	return fmt.Sprintf("ssh -p %s %s", port, host)
}
