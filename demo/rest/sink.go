package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"koff/model"
	"koff/model/java"
)

// The REST offsets endpoints for sink connectors: their offsets are the
// consumer group's committed offsets (Worker#sinkConnectorOffsets,
// #modifySinkConnectorOffsets, SinkUtils).

// Keys of a sink connector's partitions and offsets (SinkUtils).
const (
	sinkTopicKey     = "kafka_topic"
	sinkPartitionKey = "kafka_partition"
	sinkOffsetKey    = "kafka_offset"
)

// zombieTail ends Connect's message for a sink whose group still has
// members when its offsets are altered or reset.
const zombieTail = " could be successfully completed. If the connector is in a stopped state, this operation can be safely retried. " +
	"If it doesn't eventually succeed, the Connect cluster may need to be restarted to get rid of the zombie sink tasks."

// getSinkOffsets is GET /connectors/NAME/offsets for a sink: the group's
// committed offsets, {"partition":{"kafka_partition":P,"kafka_topic":T},
// "offset":{"kafka_offset":N}} each, the partition map in HashMap order as
// Connect serialises it. A group without offsets gives {"offsets":[]}.
func (s *Server) getSinkOffsets(ctx context.Context, w http.ResponseWriter, conn Connector) *restError {
	offsets, err := fetchGroupOffsets(ctx, s.h.Client(), conn.Group())
	if err != nil {
		s.h.Logf("connect REST: %v", err)
		return errorf(http.StatusInternalServerError, "Failed to retrieve consumer group offsets for sink connector %s", conn.Name())
	}
	var b bytes.Buffer
	b.WriteString(`{"offsets":[`)
	for i, o := range offsets {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"partition":`)
		b.Write(java.AppendJackson(nil, java.HashMapOrder(java.Object{
			{Name: sinkTopicKey, Value: o.topic},
			{Name: sinkPartitionKey, Value: json.Number(strconv.FormatInt(int64(o.partition), 10))},
		})))
		b.WriteString(`,"offset":{"kafka_offset":`)
		b.WriteString(strconv.FormatInt(o.offset, 10))
		b.WriteString(`}}`)
	}
	b.WriteString(`]}`)
	writeJSON(w, http.StatusOK, json.RawMessage(b.Bytes()))
	return nil
}

// sinkEdit is one parsed sink offset: a topic-partition and its new offset
// (nil: delete the group's offset for it).
type sinkEdit struct {
	topicPartition
	offset *int64
}

// modifySink is the worker side of PATCH and DELETE for a sink, after the
// herder's checks: parse the offsets (400s), then commit them to the group
// and delete the group offsets of partitions reset with null (PATCH), or
// delete the whole group (DELETE). Both fail while the group has members.
// Neither demo sink implements SinkConnector#alterOffsets, so success is
// the framework-managed message.
func (s *Server) modifySink(ctx context.Context, w http.ResponseWriter, conn Connector, edits []offsetEdit, reset bool) *restError {
	name, group, cl := conn.Name(), conn.Group(), s.h.Client()
	if reset {
		if _, err := fetchGroupOffsets(ctx, cl, group); err != nil {
			s.h.Logf("connect REST: %v", err)
			return errorf(http.StatusInternalServerError, "Failed to list offsets prior to resetting offsets for sink connector %s", name)
		}
		// A group that is already gone counts as reset: the operation
		// is meant to be idempotent.
		switch err := deleteGroup(ctx, cl, group); {
		case err == nil, errors.Is(err, kerr.GroupIDNotFound):
		case errors.Is(err, kerr.NonEmptyGroup):
			return errorf(http.StatusInternalServerError, "Failed to reset consumer group offsets for connector %s either because its tasks "+
				"haven't stopped completely yet or the connector was resumed before the request to reset its offsets"+zombieTail, name)
		default:
			s.h.Logf("connect REST: reset %s: %v", group, err)
			return errorf(http.StatusInternalServerError, "Failed to reset consumer group offsets for sink connector %s", name)
		}
		writeJSON(w, http.StatusOK, map[string]string{"message": MsgFrameworkReset})
		s.h.Logf("connect REST: %s: group %s deleted", name, group)
		return nil
	}

	parsed, e := parseSinkOffsets(edits)
	if e != nil {
		return e
	}
	var commits []groupOffset
	var deletes []topicPartition
	for _, p := range parsed {
		switch {
		case p.offset == nil:
			deletes = append(deletes, p.topicPartition)
		case *p.offset < 0:
			// new OffsetAndMetadata(-1) throws IllegalArgumentException,
			// which Connect wraps.
			return errorf(http.StatusInternalServerError, "Failed to modify offsets for sink connector %s", name)
		default:
			commits = append(commits, groupOffset{p.topicPartition, *p.offset})
		}
	}
	// Connect sends both requests at once and reports the first failure.
	var errs []error
	if len(commits) > 0 {
		errs = append(errs, commitGroupOffsets(ctx, cl, group, commits))
	}
	if len(deletes) > 0 {
		errs = append(errs, deleteGroupOffsets(ctx, cl, group, deletes))
	}
	for _, err := range errs {
		switch {
		case err == nil:
			continue
		case errors.Is(err, kerr.UnknownMemberID), errors.Is(err, kerr.GroupSubscribedToTopic):
			return errorf(http.StatusInternalServerError, "Failed to alter consumer group offsets for connector %s either because its tasks "+
				"haven't stopped completely yet or the connector was resumed before the request to alter its offsets"+zombieTail, name)
		default:
			s.h.Logf("connect REST: alter %s: %v", group, err)
			return errorf(http.StatusInternalServerError, "Failed to alter consumer group offsets for connector %s", name)
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"message": MsgFrameworkAltered})
	s.h.Logf("connect REST: %s: %d group offsets committed, %d deleted", name, len(commits), len(deletes))
	return nil
}

// parseSinkOffsets is SinkUtils.parseSinkConnectorOffsets: 400s with its
// messages. Numbers and numeric strings are both accepted, as Connect
// parses String.valueOf(value). A topic-partition given twice keeps the
// last offset.
func parseSinkOffsets(edits []offsetEdit) ([]sinkEdit, *restError) {
	var out []sinkEdit
	index := map[topicPartition]int{}
	for _, e := range edits {
		p := e.partition
		if p == nil {
			return nil, errorf(http.StatusBadRequest, "The partition for a sink connector offset cannot be null or missing")
		}
		topic, hasTopic := p.Get(sinkTopicKey)
		part, hasPart := p.Get(sinkPartitionKey)
		switch {
		case !hasTopic || !hasPart:
			return nil, errorf(http.StatusBadRequest, "The partition for a sink connector offset must contain the keys '%s' and '%s'",
				sinkTopicKey, sinkPartitionKey)
		case topic == nil:
			return nil, errorf(http.StatusBadRequest, "Kafka topic names must be valid strings and may not be null")
		case part == nil:
			return nil, errorf(http.StatusBadRequest, "Kafka partitions must be valid numbers and may not be null")
		}
		n, err := strconv.ParseInt(javaValueOf(part), 10, 32) // Integer.parseInt
		if err != nil {
			return nil, errorf(http.StatusBadRequest, "Failed to parse the following Kafka partition value in the provided offsets: '%s'. "+
				"Partition values for sink connectors need to be integers.", javaValueOf(part))
		}
		se := sinkEdit{topicPartition: topicPartition{javaValueOf(topic), int32(n)}}
		if e.offset != nil {
			v, ok := e.offset.Get(sinkOffsetKey)
			if !ok {
				return nil, errorf(http.StatusBadRequest, "The offset for a sink connector should either be null or contain the key '%s'", sinkOffsetKey)
			}
			off, err := strconv.ParseInt(javaValueOf(v), 10, 64) // Long.parseLong
			if err != nil {
				return nil, errorf(http.StatusBadRequest, "Failed to parse the following Kafka offset value in the provided offsets: '%s'. "+
					"Offset values for sink connectors need to be integers.", javaValueOf(v))
			}
			se.offset = &off
		}
		if i, ok := index[se.topicPartition]; ok {
			out[i] = se
			continue
		}
		index[se.topicPartition] = len(out)
		out = append(out, se)
	}
	return out, nil
}

// javaValueOf is String.valueOf of a value as Jackson read it into a
// Map<String, ?>: strings as they are, integers as Integer, Long or
// BigInteger print them, other numbers as Double.toString does, maps and
// lists as Java's toString.
func javaValueOf(v any) string {
	switch v := v.(type) {
	case json.Number:
		s := string(v)
		if !strings.ContainsAny(s, ".eE") {
			if b, ok := new(big.Int).SetString(s, 10); ok {
				return b.String()
			}
			return s
		}
		// model.RESTValue reads it as JsonConverter would (a Double)
		// and writes it as Java prints a double.
		out := model.RESTValue(java.Object{{Name: "v", Value: v}})
		return string(bytes.TrimSuffix(bytes.TrimPrefix(out, []byte(`{"v":`)), []byte("}")))
	case java.Object:
		parts := make([]string, len(v))
		for i, f := range v {
			parts[i] = f.Name + "=" + javaValueOf(f.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = javaValueOf(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return javaString(v)
}
