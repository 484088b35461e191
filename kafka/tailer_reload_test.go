package kafka

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"koff/model"
)

// A broker killed and restarted empty on the same address is a new
// cluster: the Tailer throws away what it read, says why, and reads the
// new cluster from scratch, whether the new one has another cluster id or
// (kfake's default) the same one with offsets that went backwards.
func TestTailerReloadsARecreatedCluster(t *testing.T) {
	for _, tc := range []struct {
		name, newID, why string
	}{
		{"new cluster id", "cluster-b", "a different cluster answers (cluster id cluster-b, was cluster-a)"},
		{"same cluster id", "cluster-a", "before offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := freePort(t)
			old, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port), kfake.ClusterID("cluster-a"))
			if err != nil {
				t.Fatal(err)
			}
			addr := old.ListenAddrs()[0]
			createTopic(t, addr, "connect-offsets", 2)
			for i := 0; i < 5; i++ {
				produce(t, addr, "connect-offsets", 0, kv{key: key("gone", i), value: `{"offset":1}`})
			}
			tl, store := runTailer(t, addr, []string{"connect-offsets"}, TailerOptions{Rescan: 200 * time.Millisecond, MaxWait: 100 * time.Millisecond})
			waitFor(t, "live", 10*time.Second, func() bool { return tl.Status().State == model.TailLive })
			if n := len(store.Connectors()); n != 1 {
				t.Fatalf("%d connectors before the restart", n)
			}
			old.Close()

			fresh, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port), kfake.ClusterID(tc.newID))
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			createTopic(t, addr, "connect-offsets", 2)
			produce(t, addr, "connect-offsets", 0, kv{key: key("new", 0), value: `{"offset":7}`})
			waitFor(t, "the new cluster's offsets alone", 30*time.Second, func() bool {
				cs := store.Connectors()
				return tl.Status().State == model.TailLive && len(cs) == 1 && cs[0].ID.Name == "new"
			})
			// Offsets going backwards may be seen first; kafka-go's metadata
			// cache names the new cluster id within its refresh.
			waitFor(t, "the reason: "+tc.why, 15*time.Second, func() bool {
				st := tl.Status()
				return !st.Reloaded.IsZero() && strings.Contains(st.ReloadReason, tc.why) && st.State == model.TailLive
			})
			if got := store.Stats().Records; got != 1 {
				t.Errorf("records = %d after the reload, want 1", got)
			}
		})
	}
}
