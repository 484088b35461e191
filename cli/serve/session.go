// Package serve is koff serve's SSH server: the operators' and viewers'
// authorized keys, the host key, and the sessions, each with its own
// dashboard on the one shared Store and its own Editor, read-only for
// viewers. The serve command (cli/serve.go) reads the flags, starts the
// observer and passes in what the sessions need (Config).
package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	bm "charm.land/wish/v2/bubbletea"
	"github.com/charmbracelet/colorprofile"
	gossh "golang.org/x/crypto/ssh"

	"koff/edit"
	"koff/keymap"
	"koff/ui"
)

// fpExtension is where the auth callback leaves the fingerprint of the key
// it accepted, for the session to check against the key actually used.
const fpExtension = "pubkey-fp"

// Messages a session may end with (one line each).
const (
	MsgShuttingDown = "koff serve is shutting down"
	MsgNeedsPTY     = "koff serve shows a dashboard and needs a terminal: connect with ssh -t"
)

// Config is what the serve command gives the session server.
type Config struct {
	Keys        *Keyring
	MaxSessions int
	Idle        time.Duration
	UI          ui.Options  // one observer's Store; without Editor and read-only fields
	Base        edit.Editor // each session copies it (editorFor)
	Logf        func(format string, args ...any)
	Age         func(time.Duration) string // how a farewell says how long
}

// Server is the state koff serve shares between sessions: the keys,
// one observer's Store behind ui.Options, and a base Editor each session
// copies.
type Server struct {
	Config

	mu       sync.Mutex
	sessions map[ssh.Session]*liveSession // identified sessions
	active   int                          // admitted sessions
	closing  bool
	shutdown chan struct{} // closed when shutdown begins
	wg       sync.WaitGroup
}

// NewServer makes the server the serve command's sessions share.
func NewServer(c Config) *Server {
	return &Server{Config: c, sessions: map[ssh.Session]*liveSession{}, shutdown: make(chan struct{})}
}

// liveSession is one SSH session's identity and lifecycle.
type liveSession struct {
	user, fp, remote string
	role             role
	start            time.Time
	lastInput        atomic.Int64 // unix nanos of the last key or mouse event
	done             chan struct{}
	endReason        atomic.Pointer[string] // why the server ended it, if it did
}

func (ls *liveSession) String() string {
	return fmt.Sprintf("user=%q fp=%s role=%s remote=%s", ls.user, ls.fp, ls.role, ls.remote)
}

// Authorize is the public-key callback. It may be asked about keys the
// client offers but does not finally sign with, so it only records what it
// accepted; identify decides on the key the session actually used.
func (s *Server) Authorize(ctx ssh.Context, key ssh.PublicKey) bool {
	fp := gossh.FingerprintSHA256(key)
	if s.Keys.role(key) == roleNone {
		s.Logf("ssh refused: unknown key user=%q fp=%s remote=%s", ctx.User(), fp, ctx.RemoteAddr())
		return false
	}
	perms := ctx.Permissions()
	if perms.Extensions == nil {
		perms.Extensions = map[string]string{}
	}
	perms.Extensions[fpExtension] = fp
	return true
}

// Middleware is the session pipeline, outermost first: identify the key
// actually used, require a PTY, admit within --max-sessions, run the
// dashboard, then say goodbye if the server ended the session. Panics are
// recovered into the log file.
func (s *Server) Middleware() []wish.Middleware {
	// wish composes the last middleware outermost: list them inside out.
	return []wish.Middleware{s.farewell, bm.MiddlewareWithProgramHandler(s.program), s.admit, s.requirePTY, s.identify}
}

// identify re-checks the key the client authenticated with, as soft-serve
// does: the fingerprint the auth callback accepted must be this key's, and
// the role comes from this key alone.
func (s *Server) identify(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		pk := sess.PublicKey()
		if pk == nil {
			s.refuse(sess, "Permission denied: koff serve takes public keys only", "no public key")
			return
		}
		fp := gossh.FingerprintSHA256(pk)
		r := s.Keys.role(pk)
		if sess.Permissions().Extensions[fpExtension] != fp || r == roleNone {
			s.refuse(sess, "Permission denied: this key is not authorized", "not the accepted key, or unknown: fp="+fp)
			return
		}
		ls := &liveSession{user: sess.User(), fp: fp, remote: sess.RemoteAddr().String(), role: r, start: time.Now(), done: make(chan struct{})}
		ls.lastInput.Store(time.Now().UnixNano())
		s.mu.Lock()
		s.sessions[sess] = ls
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.sessions, sess)
			s.mu.Unlock()
		}()
		next(sess)
	}
}

// admit counts the session against --max-sessions and refuses new ones
// once shutdown has begun.
func (s *Server) admit(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		ls := s.session(sess)
		s.mu.Lock()
		switch {
		case s.closing:
			s.mu.Unlock()
			s.refuse(sess, MsgShuttingDown, "shutting down: "+ls.String())
			return
		case s.MaxSessions > 0 && s.active >= s.MaxSessions:
			s.mu.Unlock()
			s.refuse(sess, fmt.Sprintf("koff serve is full: %d sessions are open (--max-sessions %d); try again later", s.MaxSessions, s.MaxSessions), "full: "+ls.String())
			return
		}
		s.active++
		s.wg.Add(1)
		s.mu.Unlock()
		s.Logf("ssh session start %s", ls)
		defer func() {
			close(ls.done)
			s.mu.Lock()
			s.active--
			s.mu.Unlock()
			s.wg.Done()
			s.Logf("ssh session end %s after %s", ls, time.Since(ls.start).Round(time.Second))
		}()
		next(sess)
	}
}

// requirePTY turns away clients without a terminal (ssh -T, or a command
// piped to ssh) with a line that says what to do, before any program starts.
func (s *Server) requirePTY(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if _, _, ok := sess.Pty(); !ok {
			s.refuse(sess, MsgNeedsPTY, "no pty: "+s.session(sess).String())
			return
		}
		if cmd := sess.RawCommand(); cmd != "" {
			s.refuse(sess, "koff serve runs no commands, only the dashboard: connect with ssh -t and no command", fmt.Sprintf("command %q: %s", cmd, s.session(sess)))
			return
		}
		next(sess)
	}
}

// program builds the session's own dashboard: its own model (styles,
// keymap, size, light or dark), its own Editor naming the SSH user and key,
// read-only for viewers, fed by the one shared Store.
func (s *Server) program(sess ssh.Session) *tea.Program {
	ls := s.session(sess)
	ed := s.editorFor(ls)
	opts := s.UI
	opts.KeyMap = keymap.Default()
	opts.Editor = ed
	opts.ReadOnly = ed.ReadOnly
	opts.ReadOnlyReason = s.readOnlyReason(ls)
	m := &activityModel{Model: ui.New(opts), last: &ls.lastInput}
	popts := bm.MakeOptions(sess)
	// The session context ends with the connection: a program whose client
	// vanished stops rather than writing into the void.
	popts = append(popts, tea.WithContext(sess.Context()))
	// A program catches SIGINT and SIGTERM by default: every session would
	// quit on its own, unannounced, before the server's shutdown reached it.
	popts = append(popts, tea.WithoutSignalHandler(), tea.WithFPS(ui.FrameRate)) // --fps holds the data-driven redraws (ui.Options.FPS)
	if noColor(sess.Environ()) {
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	}
	p := tea.NewProgram(m, popts...)
	go s.watch(ls, p)
	return p
}

// editorFor copies the base Editor for one session: the audit log names
// the SSH user and the key's fingerprint, and edit/ itself refuses writes
// of viewers and under --read-only, whatever the UI shows.
func (s *Server) editorFor(ls *liveSession) *edit.Editor {
	ed := s.Base
	ed.User = fmt.Sprintf("%s (%s)", ls.user, ls.fp)
	ed.ReadOnly = s.Base.ReadOnly || ls.role != roleOperator
	if ed.ReadOnly {
		ed.ReadOnlyCause = s.readOnlyReason(ls)
	}
	return &ed
}

func (s *Server) readOnlyReason(ls *liveSession) string {
	if ls.role != roleOperator {
		return "you are a viewer (your SSH key is in --viewer-keys)"
	}
	return "koff serve was started with --read-only"
}

// watch quits the session's program when the server shuts down or the
// user has pressed nothing for --idle-timeout, and returns when the
// session ends.
func (s *Server) watch(ls *liveSession, p *tea.Program) {
	var idle <-chan time.Time // nil, never ready, without --idle-timeout
	var t *time.Timer
	if s.Idle > 0 {
		t = time.NewTimer(s.Idle)
		defer t.Stop()
		idle = t.C
	}
	for {
		select {
		case <-ls.done:
			return
		case <-s.shutdown:
			s.end(ls, p, MsgShuttingDown)
			return
		case <-idle:
			since := time.Since(time.Unix(0, ls.lastInput.Load()))
			if since >= s.Idle {
				s.end(ls, p, fmt.Sprintf("disconnected after %s without input (--idle-timeout)", s.Age(since)))
				return
			}
			t.Reset(s.Idle - since)
		}
	}
}

// end quits the program gracefully (its terminal restored) and leaves the
// reason for farewell to print after it.
func (s *Server) end(ls *liveSession, p *tea.Program, reason string) {
	ls.endReason.Store(&reason)
	s.Logf("ssh session ending (%s) %s", reason, ls)
	p.Quit() // returns once the program reads it, or has already stopped
}

// farewell runs after the program: a session the server ended gets one
// line saying why, below the restored terminal.
func (s *Server) farewell(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if r := s.session(sess).endReason.Load(); r != nil {
			fmt.Fprintf(sess.Stderr(), "%s\n", *r)
			_ = sess.Exit(1)
		}
		next(sess)
	}
}

// refuse ends a session with one line on the client's stderr (shown by ssh
// in the terminal) and its reason in the log file.
func (s *Server) refuse(sess ssh.Session, msg, logged string) {
	s.Logf("ssh session refused (%s)", logged)
	fmt.Fprintf(sess.Stderr(), "%s\n", msg)
	_ = sess.Exit(1)
}

func (s *Server) session(sess ssh.Session) *liveSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[sess]
}

// beginShutdown refuses new sessions and tells the running ones to end.
func (s *Server) beginShutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closing {
		s.closing = true
		close(s.shutdown)
	}
}

// noColor follows no-color.org: any non-empty NO_COLOR in the session's
// environment (ssh -o SetEnv=NO_COLOR=1, or SendEnv) means monochrome.
func noColor(environ []string) bool {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == "NO_COLOR" {
			v = val // the last one wins, as in an environment
		}
	}
	return v != ""
}

// activityModel is the dashboard plus a note of the user's last input, for
// --idle-timeout: a live dashboard writes all the time, so traffic alone
// never looks idle.
type activityModel struct {
	*ui.Model
	last *atomic.Int64
}

func (m *activityModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.MouseMsg, tea.PasteMsg:
		m.last.Store(time.Now().UnixNano())
	}
	next, cmd := m.Model.Update(msg)
	if um, ok := next.(*ui.Model); ok {
		m.Model = um
	}
	return m, cmd
}

// Shutdown waits this long for sessions to say goodbye, and then as long
// again for their clients to hang up before closing the connections (a
// multiplexing client keeps its connection open).
const shutdownGrace = 2 * time.Second

// Stop ends every session with a message, waits for clients to hang up
// (closing the connections of those that do not), then lets the deferred
// stops end the observer and the demo.
func (s *Server) Stop(srv *ssh.Server, served <-chan error) error {
	s.mu.Lock()
	n := s.active
	s.mu.Unlock()
	s.Logf("shutting down: %d sessions", n)
	s.beginShutdown()
	ended := make(chan struct{})
	go func() { s.wg.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(shutdownGrace):
		s.Logf("ssh shutdown: sessions still running after %s", shutdownGrace)
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		s.Logf("ssh shutdown: %v; closing the remaining connections", err)
		srv.Close()
	}
	<-ended // with its connection closed, a session's program stops
	if err := <-served; err != nil && !errors.Is(err, ssh.ErrServerClosed) {
		return fmt.Errorf("ssh server: %w", err)
	}
	return nil
}
