package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"koff/ui"
)

// contextFile is $XDG_CONFIG_HOME/koff/config.yaml: named clusters an
// operator switches between, each with its own settings, read-only flag and
// colour accent (so production looks different).
type contextFile struct {
	CurrentContext string                  `yaml:"current-context"`
	Contexts       map[string]*contextSpec `yaml:"contexts"`
}

type contextSpec struct {
	BootstrapServers stringList `yaml:"bootstrap-servers"`
	OffsetsTopics    stringList `yaml:"offsets-topics"`
	ConfigTopic      string     `yaml:"config-topic"`
	ConnectURL       string     `yaml:"connect-url"`
	CommandConfig    string     `yaml:"command-config"`
	ReadOnly         bool       `yaml:"read-only"`
	Accent           string     `yaml:"accent"`
	FlushInterval    string     `yaml:"flush-interval"`
	// SourceClusters reach MirrorMaker 2's source clusters from this
	// cluster's connectors: alias → another context or a properties file,
	// as koff check --source-cluster ALIAS=CONTEXT|FILE takes them.
	SourceClusters map[string]string `yaml:"source-clusters"`
	// DBPassFile is --db-pass-file for this cluster's connectors'
	// databases: the file, never the passwords themselves.
	DBPassFile string `yaml:"db-pass-file"`
}

// stringList reads "a,b" or [a, b].
type stringList []string

func (l *stringList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*l = splitList(n.Value)
		return nil
	case yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: want a string", c.Line)
			}
			out = append(out, splitList(c.Value)...)
		}
		*l = out
		return nil
	}
	return fmt.Errorf("line %d: want a string or a list of strings", n.Line)
}

// contextPath is where the context file lives.
func contextPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "koff", "config.yaml")
}

// loadContexts reads the context file; a missing file has no contexts.
func loadContexts(path string) (*contextFile, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &contextFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	return parseContexts(path, b)
}

// parseContexts reads the context file's text; path names it in errors.
func parseContexts(path string, b []byte) (*contextFile, error) {
	var f contextFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true) // a misspelt key is an error, not a silent default
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		// yaml lists each problem on its own line: one line for stderr.
		return nil, fmt.Errorf("%s: %s", path, strings.Join(strings.Fields(err.Error()), " "))
	}
	for _, n := range f.names() {
		if f.Contexts[n] == nil { // "name:" with nothing under it
			return nil, fmt.Errorf("%s: context %q has no settings", path, n)
		}
	}
	return &f, nil
}

// names lists the contexts, sorted.
func (f *contextFile) names() []string {
	out := make([]string, 0, len(f.Contexts))
	for n := range f.Contexts {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// applyContext fills every global flag the command line did not set from
// the selected context (--context, KOFF_CONTEXT, or current-context).
func applyContext(g *Globals, fs *pflag.FlagSet, f *contextFile, name string) error {
	if name == "" {
		name = f.CurrentContext
	}
	if name == "" {
		return nil
	}
	c, ok := f.Contexts[name]
	if !ok {
		if len(f.Contexts) == 0 {
			return usagef("context %q: no contexts in %s", name, g.contextFile)
		}
		return usagef("context %q is not in %s (have: %s)", name, g.contextFile, strings.Join(f.names(), ", "))
	}
	if c.Accent != "" {
		if _, err := ui.ParseAccent(c.Accent); err != nil {
			return usagef("context %q: accent: %v", name, err)
		}
	}
	g.Context, g.Accent = name, c.Accent
	set := func(flag string, apply func() error) error {
		if fs.Lookup(flag) == nil || fs.Changed(flag) {
			return nil
		}
		return apply()
	}
	if len(c.BootstrapServers) > 0 {
		_ = set("bootstrap-server", func() error { g.Bootstrap = c.BootstrapServers; return nil })
	}
	if len(c.OffsetsTopics) > 0 {
		_ = set("offsets-topic", func() error { g.OffsetsTopics = c.OffsetsTopics; return nil })
	}
	if c.ConfigTopic != "" {
		_ = set("config-topic", func() error { g.ConfigTopic, g.configTopicGiven = c.ConfigTopic, true; return nil })
	}
	if c.ConnectURL != "" {
		_ = set("connect-url", func() error {
			g.ConnectURL, g.connectURLFrom = c.ConnectURL, fmt.Sprintf("connect-url of context %s in %s", name, g.contextFile)
			return nil
		})
	}
	if c.CommandConfig != "" {
		if err := set("command-config", func() error { return fs.Set("command-config", c.CommandConfig) }); err != nil {
			return err
		}
	}
	if c.FlushInterval != "" {
		if err := set("flush-interval", func() error { return fs.Set("flush-interval", c.FlushInterval) }); err != nil {
			return usagef("context %q: flush-interval: %v", name, err)
		}
	}
	if c.DBPassFile != "" {
		_ = set("db-pass-file", func() error { g.DBPassFile = c.DBPassFile; return nil })
	}
	g.contextSourceClusters = c.SourceClusters
	// Read-only in a context cannot be undone by a flag, as in k9s.
	if c.ReadOnly {
		g.ReadOnly = true
	}
	return nil
}
