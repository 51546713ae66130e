// Package early answers `agent --version` (and `agent version`) and the
// root help (`agent --help`, `-h`, `help`) of a release build before the
// rest of the program is initialised. Go runs the init of every package the
// binary links before main, and several are heavy for a command that
// prints a fixed text: the JSON Schema compiler's meta-schemas, SQLite,
// most of the AWS SDK's tables, the OpenTelemetry types. The linker schedules package
// inits in the lexical order of their import paths among those whose
// imports are initialised (cmd/link's inittask.go); this package imports
// only os, which is initialised early, and sorts before those packages, so
// its init runs, and exits, before them. It must import nothing else:
// runtime/debug, say, sorts after them and would make it wait (cmd reads
// the module version go install records, the version of builds without
// ldflags). main imports it for that effect.
//
// The help text is the command tree's own, generated into help.go by
// `go test ./internal/early -run TestHelp -update`; TestHelp compares a
// release build's answer with the command tree's, so a flag changed
// without regenerating fails the tests.
package early

import "os"

// Version is set through ldflags by the release build
// (-X github.com/agent-dev/agent/internal/early.Version=...).
var Version = ""

func init() {
	if Version == "" || len(os.Args) != 2 {
		return
	}
	switch os.Args[1] {
	case "--version", "version":
		_, _ = os.Stdout.WriteString("agent " + Version + "\n")
		os.Exit(0)
	case "--help", "-h", "help":
		_, _ = os.Stdout.WriteString(Help())
		os.Exit(0)
	}
}

// configPlaceholder stands in rootHelp for the default config file's
// path, which depends on the user's environment.
const configPlaceholder = "\x00CONFIG\x00"

// Help is the root help with the default config path filled in as
// config.DefaultPath computes it ($XDG_CONFIG_HOME/agent/config.json, or
// the platform's equivalent; empty when there is none).
func Help() string {
	path := ""
	if dir, err := os.UserConfigDir(); err == nil {
		for len(dir) > 1 && os.IsPathSeparator(dir[len(dir)-1]) {
			dir = dir[:len(dir)-1]
		}
		sep := string(os.PathSeparator)
		path = dir + sep + "agent" + sep + "config.json"
	}
	out := make([]byte, 0, len(rootHelp)+len(path))
	rest := rootHelp
	for {
		i := index(rest, configPlaceholder)
		if i < 0 {
			return string(append(out, rest...))
		}
		out = append(append(out, rest[:i]...), path...)
		rest = rest[i+len(configPlaceholder):]
	}
}

// index is strings.Index, which this package may not import.
func index(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
