package planner

import (
	"fmt"
	"slices"
	"strings"
)

// sinkCluster refuses a sink whose consumer reads another Kafka cluster
// (consumer.override.bootstrap.servers) than the one koff is connected to:
// its consumer group lives there, and koff would read and commit a group of
// the same name on the wrong cluster — even through REST, koff reads the
// group to plan and verify. koff does not guess that cluster's security
// settings: it names the cluster and asks to be pointed there with -b. The
// same servers as -b (in any order) are the same cluster.
func (e *Planner) sinkCluster(name, group string, cfg map[string]string) (string, error) {
	override := strings.TrimSpace(cfg["consumer.override.bootstrap.servers"])
	if override == "" {
		return "", nil
	}
	if sameServers(override, e.Bootstrap) {
		return fmt.Sprintf("group %s on %s (its consumer.override.bootstrap.servers, as -b)", group, override), nil
	}
	b := strings.Join(e.Bootstrap, ",")
	if b == "" {
		b = "koff's cluster"
	}
	return "", fmt.Errorf("sink %s reads another Kafka cluster (consumer.override.bootstrap.servers=%s): its group %s lives there, not on %s; koff reads and commits a group only on the -b cluster: run it with -b %s (and that cluster's security settings)", name, override, group, b, override)
}

func sameServers(list string, bootstrap []string) bool {
	norm := func(ss []string) []string {
		var out []string
		for _, s := range ss {
			for _, p := range strings.Split(s, ",") {
				if p = strings.ToLower(strings.TrimSpace(p)); p != "" {
					out = append(out, p)
				}
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	a, b := norm([]string{list}), norm(bootstrap)
	return len(a) > 0 && slices.Equal(a, b)
}
