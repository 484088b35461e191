package cli

import (
	"net"
	"strings"
	"testing"
)

func TestDryRunWorksReadOnly(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["src",{"server":"db"}]`, `{"lsn":1}`})
	before := endOffsets(t, addr)
	for _, args := range [][]string{
		{"set", "src", "--partition", `{"server":"db"}`, "--offset", `{"lsn":2}`},
		{"reset", "src", "--partition", `{"server":"db"}`},
	} {
		out, errs, code := koff(t, withAudit(t, append(args, "-b", addr, "--dry-run", "--read-only")...)...)
		if code != 0 || !strings.Contains(out, "dry run: nothing written (read-only: a real run would be refused)") {
			t.Errorf("%s --dry-run --read-only: exit %d %q\n%s", args[0], code, errs, out)
		}
	}
	if after := endOffsets(t, addr); after != before {
		t.Errorf("end offsets moved %d → %d", before, after)
	}
}

// closedURL is a Connect URL nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// With Connect down, get and status still print what Kafka knows, with a
// warning; only a question REST alone could answer fails.
func TestGetAndStatusWithConnectDown(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["src",{"server":"db"}]`, `{"lsn":1}`})
	url := closedURL(t)
	for _, args := range [][]string{{"get"}, {"get", "src"}, {"get", "src", "-o", "json"}, {"status"}, {"status", "-o", "json"}} {
		out, errs, code := koff(t, append(args, "-b", addr, "--connect-url", url)...)
		if code != 0 || !strings.Contains(out, "src") && !strings.Contains(out, "lsn") {
			t.Errorf("%v: exit %d %q\n%s", args, code, errs, out)
		}
		if !strings.Contains(errs, "koff: warning: cannot reach Kafka Connect at "+url+": connection refused: showing what Kafka knows") {
			t.Errorf("%v: no warning: %q", args, errs)
		}
	}
	_, errs, code := koff(t, "get", "nosuch", "-b", addr, "--connect-url", url)
	if code != ExitFailed || !strings.Contains(errs, "Connect REST could not be asked: cannot reach Kafka Connect") {
		t.Errorf("get of a connector only REST could know: exit %d %q", code, errs)
	}
}

func TestRefreshFPSAndTimeoutsHaveLowerBounds(t *testing.T) {
	for _, args := range [][]string{
		{"get", "--refresh", "1ms"},
		{"get", "--refresh", "0s"},
		{"--fps", "0"},
		{"get", "--flush-interval", "1ms"},
		{"get", "--timeout", "0s"},
		{"serve", "--idle-timeout", "1ms", "--authorized-keys", "/dev/null"},
		{"demo-cluster", "--stall-after", "-1s"},
	} {
		_, errs, code := koff(t, append(args, "-b", "x:1")...)
		if code != ExitUsage || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d %q", args, code, errs)
		}
	}
}

func TestAPasswordInConnectURLIsWarnedAbout(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["src",{"server":"db"}]`, `{"lsn":1}`})
	url := strings.Replace(closedURL(t), "http://", "http://ops:s3cret@", 1)
	_, errs, _ := koff(t, "get", "src", "-b", addr, "--connect-url", url)
	if !strings.Contains(errs, "koff: warning: the password in --connect-url is visible to every user of this machine (ps)") {
		t.Errorf("no warning: %q", errs)
	}
	if strings.Contains(errs, "s3cret") {
		t.Errorf("the password was printed: %q", errs)
	}
}
