// Package faultproxy is a small fault-injecting TCP proxy for tests: it
// sits between koff and an embedded broker (which advertises the proxy's
// address) and can refuse, reset, blackhole, pause and delay traffic, so
// outages are real TCP behaviour rather than mocks. Test code only.
package faultproxy

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// Mode is what the proxy does to traffic.
type Mode int

const (
	// Pass forwards everything.
	Pass Mode = iota
	// Refuse closes the listening socket: connecting is refused, and every
	// open connection is reset.
	Refuse
	// Reset accepts and at once resets every connection, open or new.
	Reset
	// Blackhole accepts connections and drops every byte either way, as a
	// firewall that discards packets; connections blackholed are reset
	// when the proxy passes traffic again (their bytes are gone).
	Blackhole
	// Pause holds every byte until the proxy passes traffic again; nothing
	// is lost.
	Pause
)

func (m Mode) String() string {
	return [...]string{"pass", "refuse", "reset", "blackhole", "pause"}[m]
}

// Proxy forwards loopback TCP connections to a target address.
type Proxy struct {
	addr string

	mu      sync.Mutex
	cond    *sync.Cond
	target  string
	mode    Mode
	delay   time.Duration
	ln      net.Listener
	conns   map[*pair]struct{}
	closed  bool
	accepts sync.WaitGroup
}

type pair struct {
	client, server net.Conn
	lost           bool // bytes were dropped: reset it once traffic passes
}

// Listen starts a proxy on a free loopback port that forwards to target
// (which may be set later with SetTarget, before the first connection).
func Listen(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{addr: ln.Addr().String(), target: target, ln: ln, conns: map[*pair]struct{}{}}
	p.cond = sync.NewCond(&p.mu)
	p.accepts.Add(1)
	go p.accept(ln)
	return p, nil
}

// Addr is the proxy's address, "127.0.0.1:PORT"; it stays the same across
// Refuse and Pass.
func (p *Proxy) Addr() string { return p.addr }

// SetTarget changes where new connections go (a broker restarted on
// another port).
func (p *Proxy) SetTarget(addr string) {
	p.mu.Lock()
	p.target = addr
	p.mu.Unlock()
}

// Mode returns the current mode.
func (p *Proxy) Mode() Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

// Set switches the proxy to m. Switching back to Pass after Refuse
// listens on the same port again.
func (p *Proxy) Set(m Mode) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return net.ErrClosed
	}
	prev := p.mode
	p.mode = m
	switch m {
	case Refuse:
		if p.ln != nil {
			p.ln.Close()
			p.ln = nil
		}
		p.resetAllLocked()
	case Reset:
		p.resetAllLocked()
	case Pass:
		for c := range p.conns {
			if c.lost {
				p.resetLocked(c)
			}
		}
		if prev == Refuse {
			ln, err := net.Listen("tcp", p.addr)
			if err != nil {
				return err
			}
			p.ln = ln
			p.accepts.Add(1)
			go p.accept(ln)
		}
	}
	p.cond.Broadcast()
	return nil
}

// ResetConns resets every open connection at once and lets new ones
// through: a cut of whatever was in flight (a request the server already
// received loses its answer).
func (p *Proxy) ResetConns() {
	p.mu.Lock()
	p.resetAllLocked()
	p.mu.Unlock()
}

// SetDelay delays every chunk forwarded by d (0 for none).
func (p *Proxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// Close stops the proxy and drops every connection.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	p.resetAllLocked()
	p.cond.Broadcast()
	p.mu.Unlock()
	p.accepts.Wait()
}

func (p *Proxy) accept(ln net.Listener) {
	defer p.accepts.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go p.serve(c)
	}
}

func (p *Proxy) serve(client net.Conn) {
	p.mu.Lock()
	mode, target := p.mode, p.target
	p.mu.Unlock()
	if mode == Reset || mode == Refuse {
		reset(client)
		return
	}
	server, err := net.DialTimeout("tcp", target, 5*time.Second)
	if err != nil {
		reset(client) // as the broker would: nothing listens
		return
	}
	c := &pair{client: client, server: server}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		client.Close()
		server.Close()
		return
	}
	p.conns[c] = struct{}{}
	if p.mode == Reset || p.mode == Refuse { // switched while dialling
		p.resetLocked(c)
	}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { p.pump(c, client, server); done <- struct{}{} }()
	go func() { p.pump(c, server, client); done <- struct{}{} }()
	<-done
	p.mu.Lock()
	p.resetLocked(c)
	p.mu.Unlock()
	<-done
}

// pump copies src to dst one chunk at a time, applying the mode to each.
func (p *Proxy) pump(c *pair, src, dst net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.forward(c, dst, buf[:n]) {
			return
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				if tc, ok := dst.(*net.TCPConn); ok {
					tc.CloseWrite()
				}
			}
			return
		}
	}
}

func (p *Proxy) forward(c *pair, dst net.Conn, b []byte) bool {
	p.mu.Lock()
	for p.mode == Pause && !p.closed {
		p.cond.Wait()
	}
	mode, delay, closed := p.mode, p.delay, p.closed
	if mode == Blackhole {
		c.lost = true
	}
	p.mu.Unlock()
	switch {
	case closed:
		return false
	case mode == Blackhole:
		return true // dropped
	}
	if delay > 0 {
		time.Sleep(delay)
	}
	_, err := dst.Write(b)
	return err == nil
}

func (p *Proxy) resetAllLocked() {
	for c := range p.conns {
		p.resetLocked(c)
	}
}

func (p *Proxy) resetLocked(c *pair) {
	if _, ok := p.conns[c]; !ok {
		return
	}
	delete(p.conns, c)
	reset(c.client)
	reset(c.server)
}

// reset closes a connection with a TCP RST rather than a FIN.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}
