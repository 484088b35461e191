package kafka

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"

	"koff/model"
)

// The lag poller asks, at every refresh, for the log start and end of
// every partition a sink group reads: 100,000 of them for one big sink.
// kafka-go decodes Metadata and ListOffsets answers by reflection into
// structs of its own (two Metadata and two ListOffsets answers a refresh,
// about 50 MB of garbage at 100k partitions), and leaderOffsets then keys
// the offsets by TopicPartition in maps. logBounds asks Metadata once for
// both, encodes and decodes the requests itself, and keeps what it reads
// per topic in slices by partition number.

// noOffset marks a partition the answers did not give.
const noOffset = math.MinInt64

// topicOffsets is an offset per partition number, per topic.
type topicOffsets map[string][]int64

// of is tp's offset, noOffset if unknown.
func (o topicOffsets) of(tp model.TopicPartition) int64 {
	if ps := o[tp.Topic]; tp.Partition >= 0 && tp.Partition < len(ps) {
		return ps[tp.Partition]
	}
	return noOffset
}

// size makes room for n partitions of topic, none known yet.
func (o topicOffsets) size(topic string, n int) {
	ps := make([]int64, n)
	for i := range ps {
		ps[i] = noOffset
	}
	o[topic] = ps
}

// set records an offset of a partition size made room for.
func (o topicOffsets) set(topic string, partition int32, off int64) {
	if ps := o[topic]; partition >= 0 && int(partition) < len(ps) {
		ps[partition] = off
	}
}

// logBounds is the log start and end offset (high watermark) of each of
// tps, and the id of the cluster that answered: one Metadata request, and
// one ListOffsets request per partition leader for the starts and one for
// the ends, as leaderOffsets (which it must equal) sends. A topic the
// brokers do not have fails the whole call (logBoundsEach does not).
func logBounds(ctx context.Context, c *kafkago.Client, tps []model.TopicPartition) (starts, ends topicOffsets, ls *leaders, err error) {
	starts, ends, ls, bad, err := logBoundsEach(ctx, c, tps)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, tp := range tps {
		if len(bad) == 0 {
			break
		}
		if err := bad[tp.Topic]; err != nil {
			return nil, nil, nil, err
		}
		if err := bad[tp.String()]; err != nil {
			return nil, nil, nil, err
		}
	}
	return starts, ends, ls, nil
}

// logBoundsEach is logBounds, with the topics it could not read (missing,
// not authorised) and the partitions (one a topic lacks) left out, each
// one's error in bad under the topic's name or the partition's
// ("topic/N"), so that one deleted topic leaves the others known.
func logBoundsEach(ctx context.Context, c *kafkago.Client, tps []model.TopicPartition) (starts, ends topicOffsets, ls *leaders, bad map[string]error, err error) {
	var topics []string
	seen := map[string]bool{}
	for _, tp := range tps {
		if !seen[tp.Topic] {
			seen[tp.Topic] = true
			topics = append(topics, tp.Topic)
		}
	}
	clientID := c.Transport.(*kafkago.Transport).ClientID
	md := &rawPlainRequest{key: protocol.Metadata, minVersion: 4, maxVersion: 7, node: -1, clientID: clientID,
		encode: func(w *flexWrite, _ int16) {
			w.int32(int32(len(topics)))
			for _, t := range topics {
				w.plainString(t)
			}
			w.int8(0) // allow_auto_topic_creation
		},
		parse: parseLeaders}
	m, err := c.Transport.RoundTrip(ctx, c.Addr, md)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	ls = m.(*rawPlainRequest).result.(*leaders)
	bad = map[string]error{}
	for _, t := range topics {
		if code := ls.topicErr[t]; code != 0 {
			bad[t] = fmt.Errorf("topic %s: %s", t, kafkago.Error(code).Title())
		}
	}
	byLeader := map[int32]map[string][]int32{}
	for _, tp := range tps {
		if bad[tp.Topic] != nil {
			continue
		}
		l := ls.of(tp)
		if l < 0 {
			bad[tp.String()] = fmt.Errorf("%s: no such partition", tp)
			continue
		}
		if byLeader[l] == nil {
			byLeader[l] = map[string][]int32{}
		}
		byLeader[l][tp.Topic] = append(byLeader[l][tp.Topic], int32(tp.Partition))
	}
	starts, ends = topicOffsets{}, topicOffsets{}
	for _, t := range topics {
		starts.size(t, len(ls.byTopic[t]))
		ends.size(t, len(ls.byTopic[t]))
	}
	for _, leader := range slices.Sorted(maps.Keys(byLeader)) {
		parts := byLeader[leader]
		for _, at := range []int64{kafkago.FirstOffset, kafkago.LastOffset} {
			out := starts
			if at == kafkago.LastOffset {
				out = ends
			}
			if err := leaderBounds(ctx, c, clientID, leader, parts, at, out); err != nil {
				return nil, nil, nil, nil, err
			}
		}
	}
	for _, tp := range tps {
		if (starts.of(tp) == noOffset || ends.of(tp) == noOffset) && bad[tp.Topic] == nil && bad[tp.String()] == nil {
			bad[tp.String()] = fmt.Errorf("%s: not in the broker's answer", tp)
		}
	}
	return starts, ends, ls, bad, nil
}

// leaderBounds asks one leader for the offsets at at (FirstOffset or
// LastOffset, read uncommitted) of its partitions, into out.
func leaderBounds(ctx context.Context, c *kafkago.Client, clientID string, leader int32, parts map[string][]int32, at int64, out topicOffsets) error {
	n := 0
	for t, ps := range parts {
		n += len(t) + 6 + 16*len(ps)
	}
	r := &rawPlainRequest{key: protocol.ListOffsets, minVersion: 2, maxVersion: 5, node: leader, clientID: clientID, size: n,
		encode: func(w *flexWrite, v int16) {
			w.int32(-1) // replica_id
			w.int8(int8(kafkago.ReadUncommitted))
			w.int32(int32(len(parts)))
			for _, t := range slices.Sorted(maps.Keys(parts)) {
				w.plainString(t)
				w.int32(int32(len(parts[t])))
				for _, p := range parts[t] {
					w.int32(p)
					if v >= 4 {
						w.int32(-1) // current_leader_epoch
					}
					w.int64(at)
				}
			}
		},
		parse: func(r *wire, v int16) any {
			r.int32() // throttle_time_ms
			for range r.count() {
				topic := r.plainString()
				for range r.count() {
					p, code := r.int32(), r.int16()
					r.int64() // timestamp
					off := r.int64()
					if v >= 4 {
						r.int32() // leader_epoch
					}
					if code != 0 {
						if r.err == nil {
							r.err = fmt.Errorf("%s/%d: %w", topic, p, kafkago.Error(code))
						}
						return nil
					}
					if p >= 0 && r.err == nil {
						out.set(topic, p, off)
					}
				}
			}
			return nil
		}}
	_, err := c.Transport.RoundTrip(ctx, c.Addr, r)
	return err
}

// leaders is what a Metadata answer says of partition leadership.
type leaders struct {
	byTopic  map[string][]int32 // leader per partition number; -1 none
	epochs   map[string][]int32 // the leader's epoch per partition number; -1 unknown (before v7)
	topicErr map[string]int16
	cluster  string
}

func (l *leaders) of(tp model.TopicPartition) int32 { return l.at(l.byTopic, tp) }

// epochOf is the epoch of tp's leader, -1 when the answer did not say.
func (l *leaders) epochOf(tp model.TopicPartition) int32 { return l.at(l.epochs, tp) }

func (l *leaders) at(m map[string][]int32, tp model.TopicPartition) int32 {
	if ps := m[tp.Topic]; tp.Partition >= 0 && tp.Partition < len(ps) {
		return ps[tp.Partition]
	}
	return -1
}

// parseLeaders reads a Metadata answer of v4 to v7 (v7 says each
// leader's epoch).
func parseLeaders(r *wire, v int16) any {
	l := &leaders{byTopic: map[string][]int32{}, epochs: map[string][]int32{}, topicErr: map[string]int16{}}
	r.int32() // throttle_time_ms
	for range r.count() {
		r.int32()                      // node_id
		r.take(int(r.int16()))         // host
		r.int32()                      // port
		r.take(max(int(r.int16()), 0)) // rack
	}
	if n := int(r.int16()); n >= 0 {
		l.cluster = string(r.take(n))
	}
	r.int32() // controller_id
	for range r.count() {
		code := r.int16()
		name := r.plainString()
		r.take(1) // is_internal
		l.topicErr[name] = code
		n := r.count()
		ps, es := make([]int32, 0, n), make([]int32, 0, n)
		for range n {
			r.int16() // error_code: a partition without a leader says so by leader -1
			p, leader, epoch := r.int32(), r.int32(), int32(-1)
			if v >= 7 {
				epoch = r.int32()
			}
			for range 2 + int(min(v-4, 1)) { // replicas, isr, offline (v5)
				r.take(4 * r.count())
			}
			if p < 0 || r.err != nil {
				continue
			}
			for int(p) >= len(ps) {
				ps, es = append(ps, -1), append(es, -1)
			}
			ps[p], es[p] = leader, epoch
		}
		l.byTopic[name], l.epochs[name] = ps, es
	}
	return l
}

// rawPlainRequest is a request of a non-flexible version, encoded and
// decoded by koff over kafka-go's connection (with its TLS and SASL).
type rawPlainRequest struct {
	key                    protocol.ApiKey
	minVersion, maxVersion int16 // the versions koff encodes
	version                int16
	node                   int32 // the broker to ask; -1: any
	// brokerMax is the broker's highest version of a request kafka-go
	// does not know (its negotiated map says 0 for those); 0: use the map.
	brokerMax int16
	clientID  string
	size      int // of the body, roughly: the encoder's buffer
	encode    func(w *flexWrite, version int16)
	parse     func(r *wire, version int16) any
	result    any
}

func (r *rawPlainRequest) ApiKey() protocol.ApiKey { return r.key }

func (r *rawPlainRequest) Broker(c protocol.Cluster) (protocol.Broker, error) {
	return (&rawGroupRequest{node: r.node}).Broker(c)
}

// Required takes the highest version both kafka-go (which negotiated the
// map with the broker) and koff know.
func (r *rawPlainRequest) Required(versions map[protocol.ApiKey]int16) bool {
	r.version = min(versions[r.key], r.maxVersion)
	if r.brokerMax > 0 {
		r.version = min(r.brokerMax, r.maxVersion)
	}
	return true
}

func (r *rawPlainRequest) RawExchange(rw io.ReadWriter) (protocol.Message, error) {
	if r.version < r.minVersion {
		return nil, fmt.Errorf("the broker answers %s only up to v%d; koff needs v%d (Kafka 0.11)", r.key, r.version, r.minVersion)
	}
	id := correlationIDs.Add(1)
	// Request header v1: key, version, correlation id, client id.
	w := flexWrite{b: make([]byte, 4, 64+len(r.clientID)+r.size)}
	w.int16(int16(r.key))
	w.int16(r.version)
	w.int32(id)
	w.plainString(r.clientID)
	r.encode(&w, r.version)
	binary.BigEndian.PutUint32(w.b, uint32(len(w.b)-4))
	if _, err := rw.Write(w.b); err != nil {
		return nil, err
	}
	buf, err := readResponse(rw, id, r.key, nil)
	if err != nil {
		return nil, err
	}
	rd := &wire{b: buf}
	r.result = r.parse(rd, r.version)
	if rd.err != nil {
		var ke kafkago.Error
		if errors.As(rd.err, &ke) {
			return nil, rd.err
		}
		return nil, fmt.Errorf("%s response: %w", r.key, rd.err)
	}
	return r, nil
}

func (w *flexWrite) int64(v int64) { w.b = binary.BigEndian.AppendUint64(w.b, uint64(v)) }

func (w *flexWrite) plainString(s string) {
	w.int16(int16(len(s)))
	w.b = append(w.b, s...)
}

// plainString is a non-flexible string ("" for null).
func (r *wire) plainString() string { return string(r.take(max(int(r.int16()), 0))) }
