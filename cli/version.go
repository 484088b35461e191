package cli

import (
	"fmt"
	"runtime/debug"
)

// Version is set at build time with -ldflags "-X koff/cli.Version=…".
var Version = "dev"

func init() {
	register(&command{
		name:    "version",
		summary: "print koff's version",
		run: func(_ *Globals, _ any, args []string, env Env) error {
			if len(args) > 0 {
				return usagef("version takes no arguments")
			}
			rev, goVersion := "", ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				goVersion = bi.GoVersion
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" && len(s.Value) >= 12 {
						rev = " " + s.Value[:12]
					}
				}
			}
			_, err := fmt.Fprintf(env.Stdout, "koff %s%s (%s)\n", Version, rev, goVersion)
			return err
		},
	})
}
