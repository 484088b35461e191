package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"koff/model"
	"koff/model/java"
)

// Success messages of PATCH and DELETE (Worker#completeModifyOffsetsCallback):
// the short one when the connector's alterOffsets returned true, the long
// one when it left the offsets to the framework (the default).
const (
	MsgAltered          = "The offsets for this connector have been altered successfully"
	MsgReset            = "The offsets for this connector have been reset successfully"
	MsgFrameworkAltered = "The Connect framework-managed offsets for this connector have been altered successfully. " +
		"However, if this connector manages offsets externally, they will need to be manually altered in the system that the connector uses."
	MsgFrameworkReset = "The Connect framework-managed offsets for this connector have been reset successfully. " +
		"However, if this connector manages offsets externally, they will need to be manually reset in the system that the connector uses."
)

// editTimeout bounds reading the topic and writing an edit; Connect's is
// the 90 s REST request timeout.
const editTimeout = 30 * time.Second

// StoreView is what a KafkaOffsetBackingStore holds after reading the
// offsets topic to its end: the latest value per key bytes (what tasks and
// REST look offsets up in) and one connector's partitions by content
// (OffsetUtils.processPartitionKey: a record with a value adds its
// partition map, a tombstone removes it, whatever the key's bytes).
type StoreView struct {
	data  map[string][]byte
	Parts map[string]java.Object // contentID → partition map as first seen
}

// ViewOf replays records in order. Connect's consumer sees partitions in
// fetch order; we replay partition by partition.
func ViewOf(recs []*kgo.Record, connector string) StoreView {
	v := StoreView{data: map[string][]byte{}, Parts: map[string]java.Object{}}
	for _, r := range recs {
		if r.Key == nil {
			continue
		}
		if r.Value == nil {
			delete(v.data, string(r.Key))
		} else {
			v.data[string(r.Key)] = r.Value
		}
		k, err := model.ParseKey(r.Key)
		if err != nil || k.Connector != connector || k.Partition == nil {
			continue // ignored by processPartitionKey (null maps too)
		}
		id := contentID(k.Partition)
		if r.Value == nil {
			delete(v.Parts, id)
		} else if _, ok := v.Parts[id]; !ok {
			v.Parts[id] = k.Partition // HashSet.add keeps the first
		}
	}
	return v
}

// sorted returns the partitions in a stable order (Connect's is a HashMap's).
func (v StoreView) sorted() []java.Object {
	ids := make([]string, 0, len(v.Parts))
	for id := range v.Parts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]java.Object, len(ids))
	for i, id := range ids {
		out[i] = v.Parts[id]
	}
	return out
}

// contentID identifies a partition map by content, as Java's Map.equals
// does after JsonConverter read it: field order ignored, integers (Long)
// distinct from decimals (Double).
func contentID(p java.Object) string {
	if p == nil {
		return "null"
	}
	v, err := java.ParseJSON(model.RESTValue(p))
	if err != nil {
		return string(model.RESTValue(p))
	}
	return model.SortedJSON(v)
}

// normal is a map after JsonConverter wrote and read it back: HashMap
// order, Long and Double numbers as Java prints them.
func normal(o java.Object) java.Object {
	if o == nil {
		return nil
	}
	v, _ := java.ParseJSON(model.RESTValue(o))
	n, _ := v.(java.Object)
	return n
}

// getOffsets is GET /connectors/NAME/offsets (any state). As in
// Worker#sourceConnectorOffsets, each partition of the connector is looked
// up by the key bytes its map serialises to in HashMap order, so one
// stored under other bytes (another field order) shows "offset": null.
func (s *Server) getOffsets(w http.ResponseWriter, r *http.Request, name string) *restError {
	conn, ok := s.h.Connector(name)
	if !ok {
		return errorf(http.StatusNotFound, "Connector %s not found", name)
	}
	ctx, cancel := context.WithTimeout(r.Context(), editTimeout)
	defer cancel()
	if conn.Type() == "sink" {
		return s.getSinkOffsets(ctx, w, conn)
	}
	view, err := conn.Offsets(ctx)
	if err != nil {
		s.h.Logf("connect REST: %v", err)
		return errorf(http.StatusInternalServerError, "Failed to retrieve offsets for source connector %s", name)
	}
	var b bytes.Buffer
	b.WriteString(`{"offsets":[`)
	n := 0
	for _, p := range view.sorted() {
		// OffsetStorageReaderImpl skips (and logs as CRITICAL) what it
		// cannot serialise or deserialise.
		if model.ValidateOffset(p) != nil {
			continue
		}
		offset := []byte("null")
		if raw, ok := view.data[string(model.RESTKey(name, p))]; ok && string(bytes.TrimSpace(raw)) != "null" {
			o, err := model.ParseOffset(raw)
			if err != nil || model.ValidateOffset(o) != nil {
				continue
			}
			offset = model.RESTValue(o)
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(`{"partition":`)
		b.Write(model.RESTValue(p))
		b.WriteString(`,"offset":`)
		b.Write(offset)
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	writeJSON(w, http.StatusOK, json.RawMessage(b.Bytes()))
	return nil
}

// alterOffsets is PATCH /connectors/NAME/offsets.
func (s *Server) alterOffsets(w http.ResponseWriter, r *http.Request, name string) *restError {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return errorf(http.StatusInternalServerError, "%v", err)
	}
	edits, e := decodeOffsets(body)
	if e != nil {
		return e
	}
	return s.modify(r.Context(), w, name, edits, false)
}

// resetOffsets is DELETE /connectors/NAME/offsets.
func (s *Server) resetOffsets(w http.ResponseWriter, r *http.Request, name string) *restError {
	return s.modify(r.Context(), w, name, nil, true)
}

// modify is the herder and worker side of PATCH and DELETE, in Connect's
// order: connector known (404), STOPPED (400), then for a reset the
// connector's partitions read from its topic(s), the maps normalised and
// validated (500), the connector's alterOffsets (500), and one record per
// partition written in one go (to both topics for a connector with its own,
// see demo/own_topic.go). Sinks branch off to modifySink after the state check.
// The connector's lock is held throughout, so a resume cannot slip between
// the check and the write.
func (s *Server) modify(ctx context.Context, w http.ResponseWriter, name string, edits []offsetEdit, reset bool) *restError {
	conn, ok := s.h.Connector(name)
	if !ok {
		return errorf(http.StatusNotFound, "Connector %s not found", name)
	}
	conn.Lock()
	defer conn.Unlock()
	if !conn.Stopped() {
		return errorf(http.StatusBadRequest, "Connectors must be in the STOPPED state before their offsets can be modified. "+
			"This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/%s/stop' endpoint", name)
	}
	ctx, cancel := context.WithTimeout(ctx, editTimeout)
	defer cancel()
	if conn.Type() == "sink" {
		return s.modifySink(ctx, w, conn, edits, reset)
	}
	failed := errorf(http.StatusInternalServerError, "Failed to modify offsets for source connector %s", name)
	if reset {
		view, err := conn.Offsets(ctx)
		if err != nil {
			s.h.Logf("connect REST: %v", err)
			return failed
		}
		for _, p := range view.sorted() {
			edits = append(edits, offsetEdit{partition: p})
		}
	}
	// Worker#normalizeSourceConnectorOffsets: OffsetUtils.validateFormat on
	// each partition, then its offset (DataException: 500), then a
	// JsonConverter round trip.
	norm := make([]offsetEdit, len(edits))
	for i, e := range edits {
		for _, m := range []java.Object{e.partition, e.offset} {
			if err := model.ValidateOffset(m); err != nil {
				return errorf(http.StatusInternalServerError, "%s", err.Error())
			}
		}
		norm[i] = offsetEdit{normal(e.partition), normal(e.offset)}
	}
	handled, e := alterOffsets(conn.Class(), norm)
	if e != nil {
		return e
	}
	recs := make([]*kgo.Record, len(norm))
	now := time.Now()
	for i, e := range norm {
		key := model.RESTKey(name, e.partition)
		recs[i] = &kgo.Record{
			Topic:     conn.OffsetsTopic(),
			Partition: int32(java.PartitionFor(key, conn.OffsetsPartitions())),
			Key:       key,
			Value:     model.RESTValue(e.offset), // nil: a tombstone
			Timestamp: now,
		}
	}
	if len(recs) > 0 {
		if err := conn.WriteOffsets(ctx, recs, s.atLeast(3, 8)); err != nil {
			s.h.Logf("connect REST: write offsets of %s: %v", name, err)
			return failed
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"message": successMessage(handled, reset)})
	s.h.Logf("connect REST: %s: %d offset records written", name, len(recs))
	return nil
}

func successMessage(handled, reset bool) string {
	switch {
	case handled && reset:
		return MsgReset
	case handled:
		return MsgAltered
	case reset:
		return MsgFrameworkReset
	}
	return MsgFrameworkAltered
}
