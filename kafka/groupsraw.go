package kafka

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"

	"koff/model"
)

// Sink lag asks about every connect-* group at each refresh. kafka-go sends
// one FindCoordinator, DescribeGroups and OffsetFetch per group (it knows
// OffsetFetch only up to v5, one group a request): 2,000 requests a refresh
// for 500 sinks. The batched forms, each one request per broker however
// many groups, are sent here as raw exchanges over kafka-go's connections
// (with their TLS and SASL):
//
//   - FindCoordinator v4 (KIP-699, Kafka 3.0): the coordinators of many groups;
//   - DescribeGroups v5: many groups of one coordinator (any version takes many);
//   - OffsetFetch v8 (KIP-709, Kafka 3.0): the committed offsets of many groups.
//
// A broker older than that answers errOldBroker, and koff asks group by group.

var errOldBroker = errors.New("the broker does not take batched group requests")

// batchedVersions checks that the broker answers the three requests at
// the versions koff sends, from its own ApiVersions answer.
func batchedVersions(ctx context.Context, c *kafkago.Client) error {
	av, err := c.ApiVersions(ctx, &kafkago.ApiVersionsRequest{Addr: c.Addr})
	if err == nil && av.Error != nil {
		err = av.Error
	}
	if err != nil {
		return err
	}
	need := map[protocol.ApiKey]int{protocol.FindCoordinator: 4, protocol.DescribeGroups: 5, protocol.OffsetFetch: 8}
	for _, k := range av.ApiKeys {
		if v, ok := need[protocol.ApiKey(k.ApiKey)]; ok && k.MinVersion <= v && v <= k.MaxVersion {
			delete(need, protocol.ApiKey(k.ApiKey))
		}
	}
	if len(need) > 0 {
		return errOldBroker
	}
	return nil
}

// rawGroupRequest is one flexible-version request of these three kinds.
type rawGroupRequest struct {
	key      protocol.ApiKey
	version  int16 // the version sent
	node     int32 // the broker to ask; -1: any
	clientID string
	body     []byte            // the request body, encoded
	parse    func(r *wire) any // the response body
	result   any
}

func (r *rawGroupRequest) ApiKey() protocol.ApiKey { return r.key }

func (r *rawGroupRequest) Broker(c protocol.Cluster) (protocol.Broker, error) {
	if b, ok := c.Brokers[r.node]; ok {
		return b, nil
	}
	if r.node >= 0 {
		return protocol.Broker{}, fmt.Errorf("broker %d is not in the cluster's metadata", r.node)
	}
	if ids := c.BrokerIDs(); len(ids) > 0 {
		return c.Brokers[ids[0]], nil
	}
	return protocol.Broker{}, errors.New("no broker in the cluster's metadata")
}

// Required takes the exchange at the version koff encodes: kafka-go's
// negotiated versions stop at what kafka-go itself knows, so
// batchedVersions asks the broker first.
func (r *rawGroupRequest) Required(map[protocol.ApiKey]int16) bool { return true }

func (r *rawGroupRequest) RawExchange(rw io.ReadWriter) (protocol.Message, error) {
	id := correlationIDs.Add(1)
	// Request header v2: key, version, correlation id, client id, no tags.
	var w flexWrite
	w.int16(int16(r.key))
	w.int16(r.version)
	w.int32(id)
	w.int16(int16(len(r.clientID)))
	w.b = append(w.b, r.clientID...)
	w.uvarint(0)
	w.b = append(w.b, r.body...)
	msg := binary.BigEndian.AppendUint32(nil, uint32(len(w.b)))
	if _, err := rw.Write(append(msg, w.b...)); err != nil {
		return nil, err
	}
	buf, err := readResponse(rw, id, r.key, nil)
	if err != nil {
		return nil, err
	}
	rd := &wire{b: buf}
	rd.tags() // response header v1
	r.result = r.parse(rd)
	if rd.err != nil {
		return nil, fmt.Errorf("%s response: %w", r.key, rd.err)
	}
	return r, nil
}

// flexWrite encodes the fields of flexible versions.
type flexWrite struct{ b []byte }

func (w *flexWrite) int8(v int8)   { w.b = append(w.b, byte(v)) }
func (w *flexWrite) int16(v int16) { w.b = binary.BigEndian.AppendUint16(w.b, uint16(v)) }
func (w *flexWrite) int32(v int32) { w.b = binary.BigEndian.AppendUint32(w.b, uint32(v)) }
func (w *flexWrite) uvarint(v uint64) {
	w.b = binary.AppendUvarint(w.b, v)
}
func (w *flexWrite) string(s string) { w.uvarint(uint64(len(s)) + 1); w.b = append(w.b, s...) }
func (w *flexWrite) strings(ss []string) {
	w.uvarint(uint64(len(ss)) + 1)
	for _, s := range ss {
		w.string(s)
	}
}

// The compact forms of flexible versions, for wire.

func (r *wire) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

// length is a compact length: -1 for null.
func (r *wire) length() int {
	n := int(r.uvarint()) - 1
	if n > len(r.b) { // every element takes a byte at least
		r.err = errShort
		return 0
	}
	return n
}

func (r *wire) string() string { return string(r.take(max(r.length(), 0))) }
func (r *wire) skipBytes()     { r.take(max(r.length(), 0)) }

// tags skips a tagged-field section.
func (r *wire) tags() {
	for range r.uvarint() {
		r.uvarint()
		r.take(int(r.uvarint()))
	}
}

// coordinator is a group's coordinator, or why there is none.
type coordinator struct {
	node int32
	err  int16
}

func findCoordinatorsRequest(clientID string, groups []string) *rawGroupRequest {
	var w flexWrite
	w.int8(0) // key_type: group
	w.strings(groups)
	w.uvarint(0)
	return &rawGroupRequest{key: protocol.FindCoordinator, version: 4, node: -1, clientID: clientID, body: w.b,
		parse: func(r *wire) any {
			out := map[string]coordinator{}
			r.int32() // throttle_time_ms
			for range r.length() {
				key := r.string()
				c := coordinator{node: r.int32()}
				r.string() // host
				r.int32()  // port
				c.err = r.int16()
				r.string() // error_message
				r.tags()
				out[key] = c
			}
			r.tags()
			return out
		}}
}

// describedGroup is what koff reads of DescribeGroups.
type describedGroup struct {
	err     int16
	state   string
	clients []string // client id @ host, one per member
}

func describeGroupsRequest(clientID string, node int32, groups []string) *rawGroupRequest {
	var w flexWrite
	w.strings(groups)
	w.int8(0) // include_authorized_operations
	w.uvarint(0)
	return &rawGroupRequest{key: protocol.DescribeGroups, version: 5, node: node, clientID: clientID, body: w.b,
		parse: func(r *wire) any {
			out := map[string]describedGroup{}
			r.int32() // throttle_time_ms
			for range r.length() {
				g := describedGroup{err: r.int16()}
				id := r.string()
				g.state = r.string()
				r.string() // protocol_type
				r.string() // protocol_data
				for range r.length() {
					r.string() // member_id
					r.string() // group_instance_id
					client := r.string()
					host := r.string()
					r.skipBytes() // member_metadata
					r.skipBytes() // member_assignment
					r.tags()
					g.clients = append(g.clients, client+"@"+host)
				}
				r.int32() // authorized_operations
				r.tags()
				out[id] = g
			}
			r.tags()
			return out
		}}
}

// fetchedOffsets is a group's committed offsets, in the broker's order.
type fetchedOffsets struct {
	err     int16
	offsets []committedOffset
}

type committedOffset struct {
	tp     model.TopicPartition
	offset int64
	epoch  int32
	err    int16
}

func offsetFetchRequest(clientID string, node int32, groups []string) *rawGroupRequest {
	var w flexWrite
	w.uvarint(uint64(len(groups)) + 1)
	for _, g := range groups {
		w.string(g)
		w.uvarint(0) // topics: null, all of them
		w.uvarint(0)
	}
	w.int8(0) // require_stable
	w.uvarint(0)
	return &rawGroupRequest{key: protocol.OffsetFetch, version: 8, node: node, clientID: clientID, body: w.b,
		parse: func(r *wire) any {
			out := map[string]fetchedOffsets{}
			r.int32() // throttle_time_ms
			for range r.length() {
				id := r.string()
				var g fetchedOffsets
				for range r.length() {
					topic := r.string()
					n := r.length()
					g.offsets = slices.Grow(g.offsets, n)
					for range n {
						c := committedOffset{tp: model.TopicPartition{Topic: topic, Partition: int(r.int32())}, offset: r.int64()}
						c.epoch = r.int32()
						r.skipBytes() // metadata
						c.err = r.int16()
						r.tags()
						g.offsets = append(g.offsets, c)
					}
					r.tags()
				}
				g.err = r.int16()
				r.tags()
				out[id] = g
			}
			r.tags()
			return out
		}}
}
