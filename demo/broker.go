package demo

import (
	"context"
	"fmt"
	"net"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// defaultListen is a free port on loopback: the demo never listens on a
// public interface unless asked to.
const defaultListen = "127.0.0.1:0"

// Broker is one embedded kfake broker: a real Kafka wire-protocol server in
// this process. It starts empty; tests elsewhere create their own topics.
type Broker struct {
	fake  *kfake.Cluster
	ln    *trackingListener
	admin *kgo.Client
	sec   *security

	closeOnce sync.Once
}

// StartBroker starts an empty single-node broker listening on listen
// ("127.0.0.1:0" when empty). The broker advertises the listener's own
// address in metadata, so clients must be able to reach that address.
func StartBroker(listen string) (*Broker, error) {
	return StartBrokerWith(BrokerOptions{Listen: listen})
}

// StartBrokerWith starts an empty broker with SASL and/or TLS: what
// StartBroker does, secured as o says.
func StartBrokerWith(o BrokerOptions) (*Broker, error) {
	sec, err := newSecurity(o)
	if err != nil {
		return nil, err
	}
	return startBroker(o, sec)
}

func startBroker(o BrokerOptions, sec *security) (*Broker, error) {
	listen, logf := o.Listen, o.Logf
	if listen == "" {
		listen = defaultListen
	}
	clusterID := o.ClusterID
	if clusterID == "" {
		clusterID = newClusterID()
	}
	b := &Broker{sec: sec}
	// kfake always asks for 127.0.0.1:<port>; ListenFn lets us listen where
	// the caller wants and keep hold of every accepted connection, so Close
	// can drop clients that never hang up (kfake leaves that to them).
	listenFn := func(network, _ string) (net.Listener, error) {
		l, err := net.Listen(network, listen)
		if err != nil {
			return nil, err
		}
		b.ln = &trackingListener{Listener: l, conns: map[net.Conn]struct{}{}}
		if o.Advertise != "" {
			adv, err := net.ResolveTCPAddr("tcp", o.Advertise)
			if err != nil {
				l.Close()
				return nil, fmt.Errorf("advertise %s: %w", o.Advertise, err)
			}
			b.ln.advertise = adv
		}
		return b.ln, nil
	}
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.ClusterID(clusterID),
		kfake.ListenFn(listenFn),
	}
	if logf != nil {
		opts = append(opts, kfake.WithLogger(kfakeLogger{logf}))
	}
	opts = append(opts, sec.fake...)
	fake, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("start broker on %s: %w", listen, err)
	}
	b.fake = fake
	admin, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(b.Bootstrap()), kgo.WithLogger(kgoLogger{logf})}, sec.client...)...)
	if err != nil {
		b.fake.Close()
		b.ln.closeConns()
		return nil, fmt.Errorf("admin client: %w", err)
	}
	b.admin = admin
	if sec.sasl != nil {
		if err := advertiseHandshakeV0(fake, admin); err != nil {
			b.Close()
			return nil, err
		}
	}
	return b, nil
}

// Bootstrap returns the broker's address, "127.0.0.1:PORT": the one it
// advertises (BrokerOptions.Advertise), if set.
func (b *Broker) Bootstrap() string { return b.ln.Addr().String() }

// Cluster is the kfake cluster, for tests that hold or delay a request
// kind in the broker (ControlKey, SleepControl).
func (b *Broker) Cluster() *kfake.Cluster { return b.fake }

// ListenAddr is where the broker itself listens, behind any advertised
// address.
func (b *Broker) ListenAddr() string { return b.ln.Listener.Addr().String() }

// CreateTopic creates a topic with the given partition count and topic
// configs (e.g. cleanup.policy=compact) through a CreateTopics request, as
// Connect's TopicAdmin does. kfake keeps the configs and reports them in
// DescribeConfigs; cleanup.policy=compact also turns on its compaction.
func (b *Broker) CreateTopic(name string, partitions int, configs map[string]string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return b.createTopic(ctx, name, partitions, configs)
}

func (b *Broker) createTopic(ctx context.Context, name string, partitions int, configs map[string]string) error {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 10000
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic = name
	t.NumPartitions = int32(partitions)
	t.ReplicationFactor = 1
	names := make([]string, 0, len(configs))
	for k := range configs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name = k
		v := configs[k]
		c.Value = &v
		t.Configs = append(t.Configs, c)
	}
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, b.admin)
	if err != nil {
		return fmt.Errorf("create topic %s: %w", name, err)
	}
	for _, rt := range resp.Topics {
		if err := kerr.ErrorForCode(rt.ErrorCode); err != nil {
			msg := ""
			if rt.ErrorMessage != nil {
				msg = ": " + *rt.ErrorMessage
			}
			return fmt.Errorf("create topic %s: %w%s", name, err, msg)
		}
	}
	return nil
}

// Close stops the broker and drops every client connection, so the port is
// free and no connection goroutine outlives it. It is idempotent.
func (b *Broker) Close() {
	b.closeOnce.Do(func() {
		b.admin.Close()
		b.fake.Close()
		b.ln.closeConns()
	})
}

// trackingListener remembers accepted connections until they close. kfake
// advertises what Addr returns.
type trackingListener struct {
	net.Listener
	advertise net.Addr
	mu        sync.Mutex
	closed    bool
	conns     map[net.Conn]struct{}
}

func (l *trackingListener) Addr() net.Addr {
	if l.advertise != nil {
		return l.advertise
	}
	return l.Listener.Addr()
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		c.Close()
		return nil, net.ErrClosed
	}
	tc := &trackedConn{Conn: c, l: l}
	l.conns[tc] = struct{}{}
	return tc, nil
}

func (l *trackingListener) closeConns() {
	l.mu.Lock()
	l.closed = true
	conns := make([]net.Conn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	l.Listener.Close()
	for _, c := range conns {
		c.Close()
	}
}

type trackedConn struct {
	net.Conn
	l    *trackingListener
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// kfakeLogger passes the broker's warnings and errors to Options.Logf.
type kfakeLogger struct{ logf func(string, ...any) }

func (l kfakeLogger) Logf(level kfake.LogLevel, msg string, args ...any) {
	if level <= kfake.LogLevelWarn && level != kfake.LogLevelNone {
		l.logf("broker: "+msg, args...)
	}
}

// kgoLogger passes client warnings and errors to Options.Logf (or nowhere).
type kgoLogger struct{ logf func(string, ...any) }

func (l kgoLogger) Level() kgo.LogLevel {
	if l.logf == nil {
		return kgo.LogLevelNone
	}
	return kgo.LogLevelWarn
}

func (l kgoLogger) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	if l.logf == nil {
		return
	}
	l.logf("client: %s %v", msg, keyvals)
}
