package demo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// advertiseHandshakeV0 makes the broker's ApiVersions answers list
// SaslHandshake from version 0, as every real Kafka broker does. kfake
// lists only version 1, and librdkafka (kcat) uses SASL handshakes only
// when version 0 is listed, so without this kcat cannot log in. Clients
// still send version 1, which kfake handles. The answer is the broker's
// own, read once here, with that one range widened.
func advertiseHandshakeV0(fake *kfake.Cluster, admin *kgo.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tmpl, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, admin)
	if err != nil {
		return fmt.Errorf("read the broker's API versions: %w", err)
	}
	var maxV int16 = -1
	for i, k := range tmpl.ApiKeys {
		switch k.ApiKey {
		case int16(kmsg.SASLHandshake):
			tmpl.ApiKeys[i].MinVersion = 0
		case int16(kmsg.ApiVersions):
			maxV = k.MaxVersion
		}
	}
	fake.ControlKey(int16(kmsg.ApiVersions), func(r kmsg.Request) (kmsg.Response, error, bool) {
		fake.KeepControl()
		req := r.(*kmsg.ApiVersionsRequest)
		if req.Version > maxV || req.Version >= 5 {
			return nil, nil, false // kfake's own answer: a downgrade, or v5's checks
		}
		resp := *tmpl
		resp.Version = req.Version
		resp.ApiKeys = slices.Clone(tmpl.ApiKeys)
		return &resp, nil, true
	})
	return nil
}
