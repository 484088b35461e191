// Command koff is a terminal dashboard for Kafka Connect offsets.
package main

import (
	"os"

	"koff/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}))
}
