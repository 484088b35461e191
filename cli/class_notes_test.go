package cli

import (
	"strings"
	"testing"
)

// The plan says what a task of each connector class koff knows resumes
// from after the edit, in that class's own terms: MirrorMaker's offset is
// the last record copied, FileStream's a byte position, Debezium's an LSN
// the replication slot may no longer hold. Through REST (its config) and
// without it (Connect's config topic).
func TestPlansSayWhatEachConnectorClassResumesFrom(t *testing.T) {
	c := demoCluster(t)
	for _, via := range [][]string{{"--connect-url", c.ConnectURL()}, nil} {
		flags := withAudit(t, append([]string{"-b", c.Bootstrap()}, via...)...)
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"set", "mm2-primary", "--partition", `{"cluster":"primary","partition":0,"topic":"orders"}`, "--offset", `{"offset":41}`},
				`MirrorMaker: {"offset":41} is the last record copied: the task resumes copying orders-0 at 42.`},
			{[]string{"reset", "mm2-primary", "--partition", `{"cluster":"primary","partition":0,"topic":"orders"}`},
				"MirrorMaker: no offset for orders-0: the task copies the partition again from its log start."},
			// One sentence for many partitions, not one each.
			{[]string{"reset", "mm2-primary"},
				"MirrorMaker: no offset for 24 partitions: the task copies each partition again from its log start."},
			{[]string{"set", "debezium-inventory", "--partition", `{"server":"inventory"}`, "--offset", `{"lsn":1000,"txId":1,"ts_usec":1}`},
				"the slot starts at the later of 1000 and its confirmed_flush_lsn"},
			{[]string{"reset", "debezium-inventory"},
				"the connector takes a new snapshot (snapshot.mode=initial), then streams"},
			{[]string{"set", "file-logs", "--partition", `{"filename":"/var/log/app-1.log"}`, "--offset", `{"position":100}`},
				`the task resumes reading {"filename":"/var/log/app-1.log"} at byte 100.`},
			{[]string{"set", "jdbc-shop", "--partition", `{"protocol":"1","table":"shop.public.orders"}`, "--offset", `{"incrementing":7}`},
				"JDBC: the task resumes with the rows after incrementing 7"},
		} {
			// The connectors run: the plan is printed, then refused.
			out, errs, _ := koff(t, append(append(tc.args, "--dry-run"), flags...)...)
			if !strings.Contains(strings.Join(strings.Fields(out), " "), tc.want) {
				t.Errorf("%v %v: no %q in\n%s%s", tc.args, via, tc.want, out, errs)
			}
		}
	}
}
