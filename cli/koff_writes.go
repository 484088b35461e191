package cli

import (
	"context"
	"encoding/json"
	"time"

	"koff/connect"
	"koff/edit/plan"
	"koff/model"
	"koff/model/store"
)

// announcingREST tells the Store what Connect's worker will write for a
// REST edit, so that those records are no flushes of the connector either
// (koff's direct writes carry kafka.KoffHeader instead): the keys and
// values REST writes (any topic-partition, one record per offsets topic at
// most), or tombstones of every stored key of the connector for a reset.
// It embeds the client so the pipeline still finds what it offers beyond
// edit.REST (GET offsets, the connector list).
type announcingREST struct {
	*connect.Client
	store  *store.Store
	topics func() []string
}

func (r announcingREST) AlterOffsets(ctx context.Context, name string, body []byte) (string, error) {
	var b struct {
		Offsets []struct {
			Partition json.RawMessage `json:"partition"`
			Offset    json.RawMessage `json:"offset"`
		} `json:"offsets"`
	}
	if json.Unmarshal(body, &b) == nil {
		var recs []store.Record
		for _, o := range b.Offsets {
			p, err := plan.ParsePartition(string(o.Partition))
			if err != nil {
				continue
			}
			off, _, _ := plan.ParseOffset(string(o.Offset))
			rec := store.Record{Key: model.RESTKey(name, p), Value: model.RESTValue(off)}
			for range r.topics() {
				recs = append(recs, rec)
			}
		}
		r.store.KoffWrites(recs, time.Now())
	}
	return r.Client.AlterOffsets(ctx, name, body)
}

func (r announcingREST) ResetOffsets(ctx context.Context, name string) (string, error) {
	var recs []store.Record
	for _, t := range r.topics() {
		for _, row := range r.store.Partitions(model.ConnectorID{Topic: t, Name: name}) {
			recs = append(recs, store.Record{Topic: row.ID.Topic, Partition: row.ID.Partition, Key: []byte(row.ID.Key)})
		}
	}
	r.store.KoffWrites(recs, time.Now())
	return r.Client.ResetOffsets(ctx, name)
}
