package main

// The README's systemd unit for koff metrics is the tested one: systemd
// accepts it, every flag of its command line is koff's, every path it
// writes is a directory the unit makes, and its command line, run as the
// unit runs it, serves metrics and logs to stderr (journald).

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readmeUnit is the ini block under the README's "As a service".
func readmeUnit(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n### As a service\n")
	if !ok {
		t.Fatal("README.md has no ### As a service")
	}
	_, rest, ok = strings.Cut(rest, "```ini\n")
	unit, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("no ini block under ### As a service")
	}
	return unit
}

// unitValues is every value of key in the unit, continuation lines joined.
func unitValues(unit, key string) []string {
	var out []string
	joined := strings.ReplaceAll(unit, "\\\n", " ")
	for _, l := range strings.Split(joined, "\n") {
		if v, ok := strings.CutPrefix(l, key+"="); ok {
			out = append(out, strings.Join(strings.Fields(v), " "))
		}
	}
	return out
}

func TestREADMESystemdUnit(t *testing.T) {
	unit := readmeUnit(t)
	exec1 := unitValues(unit, "ExecStart")
	if len(exec1) != 1 || !strings.HasPrefix(exec1[0], "/usr/local/bin/koff metrics ") {
		t.Fatalf("ExecStart %q, want one koff metrics", exec1)
	}
	args := strings.Fields(exec1[0])[1:]

	// Every path koff writes is one the unit makes: a --log-file needs
	// LogsDirectory= (without it koff cannot open it and restarts
	// forever); the audit log is under XDG_STATE_HOME/koff, StateDirectory=.
	for i, a := range args {
		if a == "--log-file" {
			logs := unitValues(unit, "LogsDirectory")
			if len(logs) != 1 || !strings.HasPrefix(args[i+1], "/var/log/"+logs[0]+"/") {
				t.Errorf("--log-file %s without LogsDirectory= making its directory (have %q)", args[i+1], logs)
			}
		}
	}
	state, env := unitValues(unit, "StateDirectory"), unitValues(unit, "Environment")
	if len(state) != 1 || state[0] != "koff" || !contains(env, "XDG_STATE_HOME=/var/lib") {
		t.Errorf("the audit log ($XDG_STATE_HOME/koff) is not the StateDirectory=: StateDirectory %q, Environment %q", state, env)
	}
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		if name != "XDG_STATE_HOME" && !strings.Contains(string(mustRead(t, "cli/globals.go")), `"`+name+`"`) {
			t.Errorf("Environment=%s: koff reads no %s", e, name)
		}
	}

	// Every flag is koff's: --help parses them all first.
	if out, err := exec.Command(koffBin, append(append([]string(nil), args...), "--help")...).CombinedOutput(); err != nil {
		t.Errorf("koff %s --help: %v\n%s", strings.Join(args, " "), err, out)
	}

	// systemd accepts it, with not even a warning.
	if sa := needTool(t, "systemd-analyze"); sa != "" {
		dir := t.TempDir()
		path := filepath.Join(dir, "koff-metrics.service")
		os.WriteFile(path, []byte(strings.ReplaceAll(unit, "/usr/local/bin/koff", koffBin)), 0o644)
		out, err := exec.Command(sa, "verify", path).CombinedOutput()
		if err != nil || strings.Contains(string(out), "koff-metrics.service") {
			t.Errorf("systemd-analyze verify: %v\n%s", err, out)
		}
	}
}

// The unit's command line, with its files under a temporary root and a
// demo cluster for Kafka and Connect, runs as systemd would run it:
// serves https with basic auth and logs to stderr only.
func TestREADMESystemdUnitCommandRuns(t *testing.T) {
	unit := readmeUnit(t)
	root := t.TempDir()
	etc := filepath.Join(root, "etc", "koff")
	os.MkdirAll(etc, 0o755)
	web := writeWebConfig(t, etc, "prometheus", "pw")
	os.Rename(web.config, filepath.Join(etc, "web.yml"))
	os.WriteFile(filepath.Join(etc, "client.properties"), []byte("# plaintext\n"), 0o600)
	os.WriteFile(filepath.Join(etc, "connect.token"), []byte("token\n"), 0o600)
	connect := freeAddr(t)
	kafka, _ := startDemoCluster(t, "--connect-listen", connect)
	addr := freeAddr(t)
	line := strings.ReplaceAll(unitValues(unit, "ExecStart")[0], "/etc/koff/", etc+"/")
	args := strings.Fields(line)[1:]
	for i := range args {
		if args[i] == "--web.listen-address" {
			args[i+1] = addr
		}
	}
	cmd := exec.Command(koffBin, args...)
	// The unit's environment, its Kafka and Connect the demo's.
	cmd.Env = os.Environ()
	for _, e := range unitValues(unit, "Environment") {
		switch name, _, _ := strings.Cut(e, "="); name {
		case "KOFF_BOOTSTRAP_SERVER":
			e = name + "=" + kafka
		case "KOFF_CONNECT_URL":
			e = name + "=http://" + connect
		case "XDG_STATE_HOME":
			e = name + "=" + filepath.Join(root, "var", "lib") // StateDirectory=
		}
		cmd.Env = append(cmd.Env, e)
	}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l := <-lines:
		if !strings.HasPrefix(l, "koff: metrics listening on https://"+addr+"/metrics") {
			t.Fatalf("first stderr line %q", l)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("nothing on stderr in 30s")
	}
	url := "https://" + addr + "/metrics"
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := web.get(t, url, "prometheus", "pw")
		if code == 200 && strings.Contains(body, `koff_tailer_state{state="live"} 1`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d\n%.300s", url, code, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
