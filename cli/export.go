package cli

import (
	"time"
)

func init() {
	register(&command{
		name:    "export",
		args:    "[CONNECTOR...]",
		summary: "print offsets as an object keyed by connector, each value Connect's GET offsets body (what import and PATCH accept)",
		run: func(g *Globals, _ any, args []string, env Env) error {
			if err := g.needBootstrap(); err != nil {
				return err
			}
			defer collectLate(env)()
			if readOnce {
				store, bodies, err := loadReadOnce(g, env, 60*time.Second, false, false, args)
				if err != nil {
					return err
				}
				if bodies != nil {
					return printReadOnce(env, store, bodies, g, false, args, false)
				}
				conns, err := selectConnectors(store, args, g, false)
				if err != nil {
					return err
				}
				return printOffsetsJSON(env, store, conns, false)
			}
			store, err := loadStore(g, env, 60*time.Second, false)
			if err != nil {
				return err
			}
			conns, err := selectConnectors(store, args, g, false)
			if err != nil {
				return err
			}
			return printOffsetsJSON(env, store, conns, false)
		},
	})
}
