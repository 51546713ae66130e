package cmd

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
)

// Every command's --help fits an 80-column terminal: the descriptions,
// the command lists and the flags (their help wrapped under the flag).
// The config path in the help is a usual one ($HOME/.config/agent/...).
func TestHelpFitsEightyColumns(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/home/someone/.config")
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, s := range c.Commands() {
			if s.Hidden {
				continue
			}
			walk(s, append(append([]string(nil), path...), s.Name()))
		}
	}
	root := NewRootCmd(&Globals{})
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	walk(root, nil)
	if len(paths) < 20 {
		t.Fatalf("walked %d commands: %v", len(paths), paths)
	}
	for _, p := range paths {
		var out, errOut bytes.Buffer
		args := append(append([]string(nil), p...), "--help")
		if code := Execute(context.Background(), args, strings.NewReader(""), &out, &errOut, os.Getenv); code != 0 {
			t.Fatalf("agent %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
		}
		for _, l := range strings.Split(out.String(), "\n") {
			if w := ansi.StringWidth(l); w > 80 {
				t.Errorf("agent %s: a line of %d columns:\n%s", strings.Join(args, " "), w, l)
			}
		}
	}
}
