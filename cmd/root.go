// Package cmd is the command line: flags, wiring of concrete types, and the
// mapping of errors to exit codes. Nothing below it knows about flags.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/internal/early"
	"github.com/agent-dev/agent/internal/starttrace"
	"github.com/agent-dev/agent/internal/suggest"
	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/themes"
)

// Globals are the bound flags, the settings resolved from them and the
// process's streams.
type Globals struct {
	app.Flags
	Prompt       string
	PromptSet    bool
	OutputFormat string
	Yes          bool
	AltScreen    bool
	Images       []string // -p --image FILE

	Settings app.Settings
	loaded   bool
	Stdin    io.Reader
	Stdout   io.Writer
	Stderr   io.Writer
	Getenv   func(string) string

	// resultPrinted: a -p run's result is out (app.Print writes it, also
	// for a failed turn); until then a failure prints it (printFailed).
	resultPrinted bool
	// start is when Execute began: a run that fails before its turn
	// reports the time from there as its duration_ms.
	start time.Time
}

// UsageError is a mistake in how the command was called: exit code 2.
type UsageError = app.UsageError

func usagef(format string, a ...any) error { return app.Usagef(format, a...) }

// Execute runs the command line and returns the process exit code.
func Execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	g := &Globals{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: getenv, start: time.Now()}
	defer app.SetupLog(getenv)()
	root := NewRootCmd(g)
	root.SetArgs(joinDeferValue(args))
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err != nil {
		printFailed(g, err)
		fmt.Fprintln(stderr, "agent: "+sanitize.Line(oneLine(err.Error())))
	}
	return app.ExitCode(err)
}

// joinDeferValue reads "--defer WORD" as "--defer=WORD" (see deferValue).
// The flag also stands alone ("--defer" means true), and pflag gives such a
// flag a value only after "=": without this, "--defer auto" (as the README
// writes it) would defer every tool and add "auto" to the prompt, and a
// misspelt value would go to the model as a word of the prompt.
func joinDeferValue(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--resume" && (i+1 == len(args) || strings.HasPrefix(args[i+1], "-")) {
			// --resume with no ID opens the session picker, as in Claude
			// Code and Codex.
			out = append(out, "--resume="+app.PickSession)
			continue
		}
		if a == "--defer" && i+1 < len(args) && deferValue(args[i+1]) {
			// A single word is the flag's value, checked with the other
			// flags: "--defer maybe" is refused, where it used to send
			// "maybe" as a word of the prompt.
			out = append(out, "--defer="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// deferValue says whether the argument after "--defer" is meant as its
// value: one word that is neither a flag nor a subcommand. A prompt of
// several words ("agent -p --defer "list my PRs"") stays the prompt.
func deferValue(a string) bool {
	if a == "" || strings.HasPrefix(a, "-") || strings.ContainsFunc(a, unicode.IsSpace) {
		return false
	}
	if a == "help" || a == "completion" { // cobra's own
		return false
	}
	for _, c := range subcommands(&Globals{}) {
		if c.Name() == a {
			return false
		}
	}
	return true
}

// helpWidth is the width --help fits: an 80-column terminal. Descriptions
// (Short, Long) are written to fit it; TestHelpFitsEightyColumns checks.
const helpWidth = 80

// NewRootCmd builds the command tree.
func NewRootCmd(g *Globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "agent [-p PROMPT]",
		Short: "A terminal agent for models wired to hundreds of tools, with deferred tools found by search",
		Long: `agent keeps two tool sets: active tools, sent on every request, and deferred
tools, which stay out of the model's context until the model searches for them.
Anthropic and OpenAI Responses search natively; every other provider gets the
agent's own client-side search.

Start the TUI with "agent", run one prompt with "agent -p PROMPT", or try
"agent --demo".`,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && !g.PromptSet {
				if near := nearCommand(cmd, args[0]); near != "" {
					return usagef("unknown command %q: did you mean agent %s? (to run a prompt use agent -p %q)", args[0], near, args[0])
				}
				return usagef("unexpected argument %q: to run a prompt use agent -p %q", args[0], args[0])
			}
			g.Prompt = strings.Join(args, " ")
			return nil
		},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			starttrace.Mark("flags parsed")
			g.Changed = map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { g.Changed[f.Name] = true })
			_, err := g.settings()
			starttrace.Mark("settings loaded")
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.PromptSet {
				return runPrint(cmd.Context(), g)
			}
			if len(g.Images) > 0 {
				return usagef("--image goes with -p; in the terminal UI attach an image with @FILE")
			}
			return runTUI(cmd.Context(), g)
		},
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		var ive *pflag.InvalidValueError
		if errors.As(err, &ive) {
			if want := flagValueWanted(ive.GetFlag()); want != "" {
				return usagef("--%s %q: %s (see %s --help)", ive.GetFlag().Name, ive.GetValue(), want, c.CommandPath())
			}
		}
		var ne *pflag.NotExistError
		if errors.As(err, &ne) {
			var names []string
			c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
			if near := suggest.Nearest(ne.GetSpecifiedName(), names); near != "" {
				return usagef("%v: did you mean --%s? (see %s --help)", err, near, c.CommandPath())
			}
		}
		return usagef("%v (see %s --help)", err, c.CommandPath())
	})
	root.SetVersionTemplate("agent {{.Version}}\n")
	// The flags' help is wrapped under its column to fit an 80-column
	// terminal (pflag leaves each on one line); every subcommand inherits
	// the template.
	cobra.AddTemplateFunc("wrappedFlagUsages", func(fs *pflag.FlagSet) string { return fs.FlagUsagesWrapped(helpWidth) })
	// Cobra's own texts (completion's) are wrapped when shown, keeping
	// each line's indentation.
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		c.Long = wrapLines(c.Long, helpWidth)
		help(c, args)
	})
	root.SetUsageTemplate(strings.NewReplacer(
		".LocalFlags.FlagUsages", "wrappedFlagUsages .LocalFlags",
		".InheritedFlags.FlagUsages", "wrappedFlagUsages .InheritedFlags",
	).Replace(root.UsageTemplate()))
	f := root.PersistentFlags()
	// The path starts a line of its own whatever its length, so that the
	// wrapped help is the same for every user: internal/early prints a
	// copy made with another path.
	f.StringVar(&g.ConfigPath, "config", "", "config file (default\n"+config.DefaultPath()+")")
	f.StringVar(&g.MCPConfig, "mcp-config", "", "JSON file with an mcpServers object (Claude Desktop / .mcp.json format)")
	f.StringArrayVar(&g.MCP, "mcp", nil, "connect this MCP server, configured or preset (repeatable)")
	f.StringVar(&g.Defer, "defer", "", "defer the tools of the servers named with --mcp (true, false or auto)")
	f.Lookup("defer").NoOptDefVal = "true"
	f.StringVar(&g.DBPath, "db", "", "session database (default $XDG_DATA_HOME/agent/agent.db)")
	root.Flags().BoolVar(&g.AltScreen, "alt-screen", false, "run the terminal UI full screen (the default runs inline and leaves the conversation in the scrollback)")
	f.BoolVar(&g.NoLearn, "no-learn", false, "tool search neither records searches and calls nor learns from earlier ones (config: \"learn\": false)")
	f.BoolVar(&g.Trust, "trust", false, "use this directory's project files (.mcp.json, .agent/) for this run only (agent trust trusts it)")
	f.BoolVar(&g.NoCache, "no-cache", false, "do not use the MCP catalog cache: wait for every server to list its tools (config: \"mcp_cache\": false)")

	lf := root.Flags()
	lf.BoolVarP(&g.PromptSet, "print", "p", false, "print mode: run the prompt given as argument to the end and print the answer (piped stdin is appended)")
	lf.StringArrayVar(&g.Images, "image", nil, "print mode: attach this image (png, jpeg, gif, webp) to the prompt (repeatable)")
	lf.StringVar(&g.OutputFormat, "output-format", "text", "print mode output: text, json or stream-json")
	lf.StringVar(&g.Resume, "resume", "", "resume the session with this ID (a unique prefix is enough); without an ID, pick one")
	lf.BoolVarP(&g.Continue, "continue", "c", false, "continue the newest session of this working directory")
	lf.BoolVar(&g.Yes, "yes", false, "approve every tool call that needs approval (print mode)")
	lf.BoolVar(&g.Demo, "demo", false, "offline demo: the real TUI with a scripted local model and a bundled catalog")
	lf.BoolVar(&g.NoStream, "no-stream", false, "send non-streaming requests")
	lf.StringVar(&g.Agent, "agent", "", "use the agent profile NAME (.agent/agents/NAME.md, ~/.config/agent/agents/NAME.md or the config's agents; agent agents lists them)")

	bindKeys(f, lf, &g.Config)

	for _, c := range subcommands(g) {
		root.AddCommand(c)
	}
	return root
}

// bindKeys binds a flag to every setting that declares one (config.Keys),
// with its help and built-in default from the declaration. The bound
// default is the zero value, "not given": the layers below decide.
func bindKeys(persistent, root *pflag.FlagSet, c *config.Config) {
	for _, k := range config.Keys() {
		if k.Flag == "" {
			continue
		}
		fs := persistent
		if k.Root {
			fs = root
		}
		switch p := k.Ptr(c).(type) {
		case *string:
			fs.StringVar(p, k.Flag, "", k.Help())
		case *int:
			fs.IntVar(p, k.Flag, 0, k.Help())
		case *[]string:
			fs.StringArrayVar(p, k.Flag, nil, k.Help())
		case *bool:
			fs.BoolVar(p, k.Flag, false, k.Help())
		default:
			panic(fmt.Sprintf("config key %s: a %T cannot be a flag", k.Name, p))
		}
	}
}

// subcommands lists the command tree below root.
func subcommands(g *Globals) []*cobra.Command {
	return []*cobra.Command{
		newVersionCmd(),
		newToolsCmd(g),
		newMCPCmd(g),
		newSessionsCmd(g),
		newAgentsCmd(g),
		newModelsCmd(g),
		newTrustCmd(g),
	}
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  noArgs,
		Run: func(cmd *cobra.Command, args []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "agent "+versionString())
		},
	}
}

// versionString prefers the ldflags version (internal/early, which
// answers --version of a release before the program is initialised), then
// the module version that go install records.
func versionString() string {
	if early.Version != "" {
		return early.Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// settings resolves the settings once (app.Load) and checks the flags
// only the command line knows.
func (g *Globals) settings() (app.Settings, error) {
	if g.loaded {
		return g.Settings, nil
	}
	if g.Getenv == nil {
		g.Getenv = os.Getenv
	}
	if g.Stderr == nil {
		g.Stderr = os.Stderr
	}
	switch g.OutputFormat {
	case "", "text", "json", "stream-json":
	default:
		return g.Settings, &UsageError{Err: &config.FlagValueError{Flag: "output-format", Value: g.OutputFormat, What: "output format", Allowed: []string{"text", "json", "stream-json"}}}
	}
	if err := config.CheckFlag("theme", g.Theme, themes.Names()); err != nil {
		return g.Settings, &UsageError{Err: err}
	}
	s, err := app.Load(g.Flags, g.Getenv)
	if err != nil {
		// What was resolved, for a -p run's failed result (printFailed):
		// the provider and model the flags name win, as they would have.
		g.Settings = s
		if p := g.Flags.Config.Provider; p != "" {
			g.Settings.Provider = p
		}
		if m := g.Flags.Config.Model; m != "" {
			g.Settings.Model = m
		}
		return s, err
	}
	// Checked here rather than in config, which does not know the themes:
	// a theme misspelt in a config file fails every command, as any other
	// bad setting does, not only the TUI.
	if _, err := themes.Get(s.Theme); err != nil {
		// Named by where it was set: the file and line, the variable, the
		// profile.
		return s, &UsageError{Err: s.ValueError("theme", s.Theme, themes.Names(), g.Getenv)}
	}
	g.Settings, g.loaded = s, true
	return s, nil
}

// noArgs refuses arguments to a command that takes none as a usage error
// (exit 2), naming the subcommand a typo was meant to be: noArgs
// exits 1, and its own suggestion went on a second line, which the
// one-line error drops.
func noArgs(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return nil
	case nearCommand(cmd, args[0]) != "":
		return usagef("unknown command %q for %q: did you mean %s %s?", args[0], cmd.CommandPath(), cmd.CommandPath(), nearCommand(cmd, args[0]))
	case cmd.HasAvailableSubCommands():
		return usagef("unknown command %q for %q (see %s --help)", args[0], cmd.CommandPath(), cmd.CommandPath())
	}
	return usagef("%s takes no arguments (got %q)", cmd.CommandPath(), args[0])
}

// exactArgs and atMostArgs refuse a wrong number of arguments as a usage
// error (exit 2) saying what the command takes, where cobra's own said
// "accepts 1 arg(s), received 0" and exited 1.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %s (got %d arguments)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

func atMostArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return usagef("%s takes %s (got %d arguments)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

// nearCommand is the subcommand of cmd that name looks like a typo of.
func nearCommand(cmd *cobra.Command, name string) string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return suggest.Nearest(name, names)
}

func oneLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

// flagValueWanted says in words what a typed flag takes, for its bad value:
// pflag's own error is in Go's ("strconv.ParseInt: parsing \"abc\":
// invalid syntax"). Empty for types it does not know.
func flagValueWanted(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "int":
		eg := f.DefValue
		if eg == "" || eg == "0" {
			eg = "10"
		}
		return "not a whole number: use one such as " + eg
	case "bool":
		return fmt.Sprintf("use true or false (--%s alone is true)", f.Name)
	case "duration":
		return "not a duration: use a number with a unit, such as 30s or 2m"
	}
	return ""
}

// wrapLines breaks each line of s wider than width at its last space that
// fits, continuing with the line's indentation; a word wider than width
// stays whole.
func wrapLines(s string, width int) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		for ansi.StringWidth(l) > width {
			cut := strings.LastIndexByte(ansi.Truncate(l, width+1, ""), ' ')
			if cut <= len(indent) {
				break
			}
			out = append(out, strings.TrimRight(l[:cut], " "))
			l = indent + strings.TrimLeft(l[cut:], " ")
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
