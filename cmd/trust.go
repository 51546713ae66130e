package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/sanitize"
)

func newTrustCmd(g *Globals) *cobra.Command {
	var revoke bool
	c := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a directory's project files (.mcp.json, .agent/); --revoke",
		Long: `Trust DIR (default: the working directory): its project files are used from then
on, as long as they stay as they are now; a change to them asks again. Review
them first: a project's .mcp.json starts commands. Even trusted, a project
cannot loosen your approvals, set base_url or token_env, expand variables you
did not allow (project_env_allow) or replace your servers.`,
		Args: atMostArgs(1, "at most one DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			// Said as a path the user can read back ("." was not trusted).
			if abs, err := filepath.Abs(dir); err == nil {
				dir = abs
			}
			out := sanitize.NewWriter(cmd.OutOrStdout()) // file names come with the repository
			defer out.Flush()
			if revoke {
				had, err := app.Revoke(dir)
				if err == nil && !had {
					fmt.Fprintf(out, "%s was not trusted.\n", dir)
				} else if err == nil {
					fmt.Fprintf(out, "%s is no longer trusted: its project files are not used.\n", dir)
				}
				return err
			}
			// A mistyped DIR is not "a directory with no project files".
			// (--revoke still forgets a directory that is gone.)
			// Any other failure is said as it is: a directory behind one the
			// user may not enter exists, and "does not exist" sent them
			// looking for a typo.
			if fi, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
				return usagef("%s does not exist: name the directory to trust (default: the working directory)", dir)
			} else if err != nil {
				cause := err
				var pe *fs.PathError
				if errors.As(err, &pe) {
					cause = pe.Err
				}
				return &UsageError{Err: fmt.Errorf("%s cannot be read: %w: name a directory you can read (default: the working directory)", dir, cause)}
			} else if !fi.IsDir() {
				return usagef("%s is not a directory: name the directory to trust (default: the working directory)", dir)
			}
			p, err := app.Trust(dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "Trusted %s with its project files as they are now:\n", p.Dir)
			for _, f := range p.Files {
				fmt.Fprintf(out, "  %s\n", f)
			}
			// As the TUI's trust question lists them: trusted, such a file
			// warns at every start and its command is not offered.
			for _, b := range app.BrokenProjectCommands(p.Dir) {
				if b.Name == "" {
					fmt.Fprintf(out, "A command file cannot be read: %s\n", b.Reason)
					continue
				}
				fmt.Fprintf(out, "Its command /%s is not offered: %s does not parse: %s; fix the file, then run agent trust again\n", b.Name, b.File, b.Reason)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&revoke, "revoke", false, "stop trusting the directory")
	return c
}
