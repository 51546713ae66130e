// Package early answers `agent --version` (and `agent version`) of a
// release build before the rest of the program is initialised. Go runs the
// init of every package the binary links before main, and several are
// heavy for a command that prints one line: chroma's lexer registry
// (through glamour), the JSON Schema compiler, bluemonday's policies, the
// AWS SDK's tables — about 70 ms and 15 MB together. The linker schedules
// package inits in the lexical order of their import paths among those
// whose imports are initialised (cmd/link's inittask.go); this package
// imports only os, which is initialised early, and sorts before those
// packages, so its init runs, and exits, before them. It must import
// nothing else: runtime/debug, say, sorts after them and would make it
// wait (cmd reads the module version go install records, the version of
// builds without ldflags). main imports it for that effect.
package early

import "os"

// Version is set through ldflags by the release build
// (-X github.com/agent-dev/agent/internal/early.Version=...).
var Version = ""

func init() {
	if Version != "" && len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "version") {
		_, _ = os.Stdout.WriteString("agent " + Version + "\n")
		os.Exit(0)
	}
}
