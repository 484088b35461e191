package main

// The README's examples, run as a newcomer would type them, against one
// `koff demo-cluster`. README.md's Development section states the rules.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// readmeExample is one command of the README and, for a console block,
// the sample output printed under it.
type readmeExample struct {
	line    int // in README.md
	command string
	sample  []string
	console bool
}

const skipMarker = "<!-- readme-test: skip"

// readmeExamples reads every sh and console block of the README that is
// not marked to be skipped.
func readmeExamples(t *testing.T, path string) []readmeExample {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []readmeExample
	for i := 0; i < len(lines); i++ {
		lang, ok := strings.CutPrefix(lines[i], "```")
		if !ok || lang == "" {
			continue
		}
		end := i + 1
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		skipped := i > 0 && strings.HasPrefix(lines[i-1], skipMarker)
		body := lines[i+1 : end]
		first := i + 2
		i = end
		if skipped {
			continue
		}
		switch lang {
		case "sh":
			for j := 0; j < len(body); j++ {
				cmd, at := body[j], first+j
				for strings.HasSuffix(cmd, `\`) && j+1 < len(body) {
					j++
					cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(body[j])
				}
				if c := strings.TrimSpace(cmd); c != "" && !strings.HasPrefix(c, "#") {
					out = append(out, readmeExample{line: at, command: c})
				}
			}
		case "console":
			for j, l := range body {
				if c, ok := strings.CutPrefix(l, "$ "); ok {
					out = append(out, readmeExample{line: first + j, command: c, console: true})
				} else if len(out) > 0 && out[len(out)-1].console {
					out[len(out)-1].sample = append(out[len(out)-1].sample, l)
				}
			}
		}
	}
	return out
}

// TestReadmeExamplesRunOnTheDemoCluster runs every README example in order
// and checks the shape of what it prints.
func TestReadmeExamplesRunOnTheDemoCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's examples (about a minute)")
	}
	examples := readmeExamples(t, "README.md")
	if len(examples) < 20 {
		t.Fatalf("found only %d examples in README.md", len(examples))
	}
	work := t.TempDir()
	// jdbc-legacy stalls soon, so the status example's exit 1 is reached.
	kafkaAddr, connectAddr, secondAddr := freeAddr(t), freeAddr(t), freeAddr(t)
	demo := exec.Command(koffBin, "demo-cluster", "--kafka-listen", kafkaAddr, "--connect-listen", connectAddr,
		"--second-connect-listen", secondAddr, "--flush-interval", "1s", "--stall-after", "2s")
	demo.Dir = work
	started := startUntil(t, demo, "Press Ctrl+C to stop.")
	t.Cleanup(func() { interrupt(demo, started) })

	env := append(os.Environ(),
		"PATH="+filepath.Dir(koffBin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+work, "XDG_STATE_HOME="+filepath.Join(work, "state"), "XDG_CONFIG_HOME="+filepath.Join(work, "config"),
		"KOFF_BOOTSTRAP_SERVER=", "KOFF_CONNECT_URL=", "KOFF_CONTEXT=", "NO_COLOR=1")
	addrs := strings.NewReplacer("http://127.0.0.1:8083", "http://"+connectAddr, "localhost:8083", connectAddr,
		"127.0.0.1:8083", connectAddr, "127.0.0.1:9092", kafkaAddr, "127.0.0.1:8084", secondAddr)
	for _, ex := range examples {
		cmd := addrs.Replace(ex.command)
		if name, value, ok := strings.Cut(strings.TrimPrefix(cmd, "export "), "="); ok && strings.HasPrefix(cmd, "export ") {
			env = append(env, name+"="+value) // the shell a newcomer types into keeps it
			continue
		}
		t.Run(readmeName(ex), func(t *testing.T) {
			stdout, stderr, code := runReadmeCommand(t, cmd, work, env)
			// A sample that fails shows a state the demo reaches in time
			// (jdbc-legacy stalled): ask again until it is there.
			for try := 0; try < 20 && code == 0 && expectsFailure(ex); try++ {
				time.Sleep(time.Second)
				stdout, stderr, code = runReadmeCommand(t, cmd, work, env)
			}
			checkReadmeOutput(t, ex, stdout, stderr, code)
		})
	}
}

func readmeName(ex readmeExample) string {
	f := strings.Fields(ex.command)
	if len(f) > 4 {
		f = f[:4]
	}
	return "README.md:" + strconv.Itoa(ex.line) + " " + strings.Join(f, " ")
}

// longRunning are the commands that run until interrupted: the test lets
// them run a while (the demo cluster until its banner is out), then sends
// SIGINT, as a user presses Ctrl+C.
func longRunning(cmd string) (until string, ok bool) {
	switch {
	case strings.Contains(cmd, "koff demo-cluster"):
		return "Press Ctrl+C to stop.", true
	case strings.Contains(cmd, "koff tail"), strings.Contains(cmd, "--watch"):
		return "", true
	}
	return "", false
}

func runReadmeCommand(t *testing.T, cmdline, dir string, env []string) (string, string, int) {
	t.Helper()
	until, long := longRunning(cmdline)
	if long && strings.Contains(cmdline, "koff demo-cluster") {
		// Its own free ports: the test's demo cluster holds the others.
		cmdline += " --kafka-listen " + freeAddr(t) + " --connect-listen " + freeAddr(t)
	}
	var stdout, stderr lockedBuffer
	cmd := exec.Command("bash", "-o", "pipefail", "-c", cmdline)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	limit := time.After(90 * time.Second)
	if long {
		deadline := time.Now().Add(30 * time.Second)
		if until == "" {
			deadline = time.Now().Add(4 * time.Second)
		}
		for time.Now().Before(deadline) && (until == "" || !strings.Contains(stdout.String(), until)) {
			select {
			case err := <-done:
				done <- err
				deadline = time.Now()
			case <-time.After(50 * time.Millisecond):
			}
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		limit = time.After(15 * time.Second)
	}
	select {
	case err := <-done:
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), code
	case <-limit:
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("%s did not finish\nstdout:\n%s\nstderr:\n%s", cmdline, stdout.String(), stderr.String())
	}
	return "", "", -1
}

var (
	headerRe = regexp.MustCompile(`^[A-Z][A-Z -]*[A-Z]$`)
	columns  = regexp.MustCompile(`\s{2,}`)
	// Where a sample line stops being fixed words: numbers, JSON, quotes.
	variable = regexp.MustCompile(`[0-9{\["']`)
)

func headerColumns(l string) []string {
	l = strings.TrimSpace(l)
	cols := columns.Split(l, -1)
	if len(cols) < 3 || !headerRe.MatchString(l) {
		return nil
	}
	return cols
}

// sampleLines are the lines of a sample output that say something: no
// elisions, no trailing blank lines.
func sampleLines(ex readmeExample) []string {
	var sample []string
	for _, l := range ex.sample {
		if strings.TrimSpace(l) != "…" {
			sample = append(sample, l)
		}
	}
	for len(sample) > 0 && strings.TrimSpace(sample[len(sample)-1]) == "" {
		sample = sample[:len(sample)-1]
	}
	return sample
}

// expectsFailure: the sample ends with koff's one-line error.
func expectsFailure(ex readmeExample) bool {
	s := sampleLines(ex)
	return len(s) > 0 && strings.HasPrefix(s[len(s)-1], "koff: ")
}

// checkReadmeOutput checks the exit code, then, against the sample: each
// table header with the same columns, JSON that parses with the sample's
// fields, and the fixed words of the other lines, in order.
func checkReadmeOutput(t *testing.T, ex readmeExample, stdout, stderr string, code int) {
	t.Helper()
	sample, wantFail := sampleLines(ex), expectsFailure(ex)
	show := "\nstdout:\n" + stdout + "\nstderr:\n" + stderr
	switch {
	case wantFail && code == 0:
		t.Fatalf("%s: exit 0, the README shows it failing%s", ex.command, show)
	case !wantFail && code != 0:
		t.Fatalf("%s: exit %d%s", ex.command, code, show)
	case !wantFail && stderr != "":
		t.Errorf("%s: succeeded but wrote to stderr%s", ex.command, show)
	case wantFail && strings.Count(stderr, "\n") != 1:
		t.Errorf("%s: want one line on stderr%s", ex.command, show)
	}
	if len(sample) > 0 && stdout+stderr == "" {
		t.Fatalf("%s printed nothing; the README shows output", ex.command)
	}
	actual := strings.Split(strings.TrimRight(stdout+stderr, "\n"), "\n")
	var jsonKeys [][]string
	for _, l := range actual {
		if strings.HasPrefix(l, "{") {
			var v map[string]json.RawMessage
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Errorf("%s: a line is not JSON (%v): %s", ex.command, err, l)
			}
			jsonKeys = append(jsonKeys, sortedKeys(v))
		}
	}
	next := 0 // fixed words are matched in order
	inTable := false
	for _, l := range sample {
		if strings.TrimSpace(l) == "" {
			inTable = false
			continue
		}
		if want := headerColumns(l); want != nil {
			if !slices.ContainsFunc(actual, func(a string) bool { return slices.Equal(headerColumns(a), want) }) {
				t.Errorf("%s: no header %q in the output%s", ex.command, strings.Join(want, "  "), show)
			}
			inTable = true
			continue
		}
		if inTable && !strings.HasPrefix(l, "koff: ") {
			continue // a row: its values are the demo's of that moment
		}
		inTable = false
		if strings.HasPrefix(l, "{") {
			var v map[string]json.RawMessage
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Errorf("README.md:%d: the sample is not JSON: %v", ex.line, err)
			} else if !slices.ContainsFunc(jsonKeys, func(k []string) bool { return slices.Equal(k, sortedKeys(v)) }) {
				t.Errorf("%s: no JSON object with the fields %v%s", ex.command, sortedKeys(v), show)
			}
			continue
		}
		fixed := strings.TrimSpace(l)
		if loc := variable.FindStringIndex(fixed); loc != nil {
			fixed = strings.TrimSpace(fixed[:loc[0]])
		}
		if fixed == "" {
			continue
		}
		found := false
		for ; next < len(actual); next++ {
			if strings.HasPrefix(strings.TrimSpace(actual[next]), fixed) {
				found, next = true, next+1
				break
			}
		}
		if !found {
			t.Errorf("%s: %q (README.md sample) is not in the output, or not in that order%s", ex.command, fixed, show)
			return
		}
	}
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// startUntil starts cmd and waits until its stdout has a line containing
// want; the returned channel is closed when it exits.
func startUntil(t *testing.T, cmd *exec.Cmd, want string) chan struct{} {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready, exited := make(chan struct{}), make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), want) {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
		cmd.Wait()
		close(exited)
	}()
	select {
	case <-ready:
	case <-exited:
		t.Fatalf("%v exited: %s", cmd.Args, stderr.String())
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%v did not print %q within 30s", cmd.Args, want)
	}
	return exited
}

func interrupt(cmd *exec.Cmd, exited chan struct{}) {
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
}

// lockedBuffer is a bytes.Buffer read while a command writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestReadmeNamesEveryCommandAndFlag: a newcomer finds in the README every
// command koff help lists and every flag of each (by its long or short name).
func TestReadmeNamesEveryCommandAndFlag(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	help := func(args ...string) string {
		out, err := exec.Command(koffBin, append([]string{"help"}, args...)...).Output()
		if err != nil {
			t.Fatalf("koff help %v: %v", args, err)
		}
		return string(out)
	}
	top := help()
	cmds := regexp.MustCompile(`(?m)^  ([a-z-]+) {2,}\S`).FindAllStringSubmatch(top[strings.Index(top, "Commands:"):], -1)
	if len(cmds) < 10 {
		t.Fatalf("koff help lists only %d commands:\n%s", len(cmds), top)
	}
	flag := regexp.MustCompile(`(?m)^  (?:-(\w), )?\s*--([a-z-]+)`)
	check := func(where, text string) {
		for _, m := range flag.FindAllStringSubmatch(text, -1) {
			if !bytes.Contains(readme, []byte("--"+m[2])) && (m[1] == "" || !bytes.Contains(readme, []byte("-"+m[1]+" "))) {
				t.Errorf("README.md never names %s's flag --%s", where, m[2])
			}
		}
	}
	check("koff", top[strings.Index(top, "Global flags"):])
	for _, c := range cmds {
		if !bytes.Contains(readme, []byte("koff "+c[1])) {
			t.Errorf("README.md never shows koff %s", c[1])
		}
		h := help(c[1])
		if i, j := strings.Index(h, "\nFlags:\n"), strings.Index(h, "\nGlobal flags"); i >= 0 {
			if j < i {
				j = len(h)
			}
			check("koff "+c[1], h[i:j])
		}
	}
}
