package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/themes"
)

// TrustRequest is the question asked when the agent starts in a directory
// whose project files are not trusted and would start servers, change
// settings, send instruction files or add commands: what they would do,
// listed before anything of it runs.
type TrustRequest struct {
	Dir      string
	Files    []string
	Servers  []TrustServer
	Settings []TrustSetting
	// Instructions and Commands are the instruction files the model would
	// be sent and the custom commands that would be offered.
	Instructions, Commands []string
	// Hooks are the commands the project would run at hook events
	// ("PreToolUse (github__.*): ~/bin/policy.sh"), shown whole.
	Hooks []string
	// Env are the ${VAR}s the project's remote servers would send (Sent)
	// or leave empty, one line each.
	Env      []TrustEnv
	Warnings []string // what trusting would still refuse
	// Changed: the directory was trusted with other project files.
	Changed bool
}

// TrustEnv is one ${VAR} of a project server's URL, headers or OAuth
// fields; Sent marks one whose value would go.
type TrustEnv struct {
	Text string
	Sent bool
}

// TrustServer is a server the project would start: its command line or URL.
type TrustServer struct{ Name, Target string }

// TrustSetting is a setting the project would change.
type TrustSetting struct{ Key, From, To string }

// TypeAhead is what was typed (keys, a paste) before a question that runs
// ahead of the chat could be read: it was meant for the prompt, and the
// chat puts it in its input (Options.TypeAhead).
type TypeAhead struct{ msgs []tea.Msg }

// TrustAnswer is the answer to the trust question, with what was typed
// before the question could be read.
type TrustAnswer struct {
	Trusted   bool
	TypeAhead TypeAhead
}

// AskTrust shows req and returns whether the user trusts the directory
// ("trust") or not ("not now", esc, ctrl+c). Everything shown comes from
// the cloned repository: it is sanitised before it reaches the terminal.
func AskTrust(ctx context.Context, req TrustRequest, opts Options) (TrustAnswer, error) {
	opts.defaults()
	m, err := newTrustModel(req, opts)
	if err != nil {
		return TrustAnswer{}, err
	}
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	ans := TrustAnswer{}
	if _, err := tea.NewProgram(m, popts...).Run(); err != nil && ctx.Err() == nil {
		return ans, fmt.Errorf("ask whether to trust %s: %w", req.Dir, err)
	}
	ans.Trusted, ans.TypeAhead = m.trusted, TypeAhead{m.typeAhead}
	return ans, nil
}

type trustModel struct {
	req   TrustRequest
	opts  Options
	st    *themes.Styles
	width int
	// height is the screen's rows (0 until known); top is the first line
	// shown of a question taller than the screen.
	height, top int
	notNow      bool // the selected answer: "not now" (else "trust")
	done        bool
	trusted     bool
	// guarded: the question appeared, or a key was typed in the guard,
	// less than typeAheadGuard ago (Init arms it, the trustReadyMsg of the
	// last such key ends it). Keys then were typed before it could be read
	// and do not answer it; the answers are not offered.
	guarded bool
	// typed counts the keys and pastes of the guard: only the tick armed
	// by the last of them ends it (trustReadyMsg.typed).
	typed int
	// typeAhead is what was typed during the guard, for the chat's input:
	// it was a prompt typed while agent started, and was lost.
	typeAhead []tea.Msg
}

// typeAheadGuard: keys typed before the question appeared (a prompt
// started while agent was starting) reach it at once: "tell me" answered
// "t", trusting the directory unread. No one reads the question and
// answers within this time. It runs again from each key typed in it: a
// guard timed from the question alone ended, at load 17, between the keys
// of one typed-ahead prompt ("tell me ab" went to the input, the "t" of
// "about it" trusted the directory), as its tick came in among keys still
// being read.
const typeAheadGuard = 500 * time.Millisecond

// trustReadyMsg ends the type-ahead guard if no key was typed in it since
// its tick was armed: typed is how many had been then.
type trustReadyMsg struct{ typed int }

// rearm starts the guard's time again: it ends typeAheadGuard after the
// last key typed in it.
func (m *trustModel) rearm() tea.Cmd {
	n := m.typed
	return tea.Tick(typeAheadGuard, func(time.Time) tea.Msg { return trustReadyMsg{typed: n} })
}

func newTrustModel(req TrustRequest, opts Options) (*trustModel, error) {
	st, err := themes.Resolve(opts.Theme, true, opts.NoColor)
	if err != nil {
		return nil, fmt.Errorf("start terminal ui: %w", err)
	}
	// "Not now" is the safe default: enter alone never trusts.
	return &trustModel{req: req, opts: opts, st: st, width: 80, notNow: true}, nil
}

func (m *trustModel) Init() tea.Cmd {
	m.guarded = true
	ready := m.rearm()
	if !m.opts.NoColor && strings.EqualFold(m.opts.Theme, "auto") {
		return tea.Batch(tea.RequestBackgroundColor, ready)
	}
	return ready
}

func (m *trustModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		if st, err := themes.Resolve(m.opts.Theme, msg.IsDark(), m.opts.NoColor); err == nil {
			m.st = st
		}
	case trustReadyMsg:
		if msg.typed == m.typed {
			m.guarded = false
		}
	case tea.PasteMsg:
		if m.done {
			return m, nil
		}
		if m.guarded {
			m.typeAhead = append(m.typeAhead, msg)
			m.typed++
			return m, m.rearm()
		}
	case tea.KeyPressMsg:
		if m.done {
			// Answered: the keys read with the answer (the rest of a word
			// typed at the question) come before the quit ends the program,
			// and must not answer again: the "t" of "/context" after its
			// "n" trusted the directory.
			return m, nil
		}
		if m.guarded {
			// ctrl+c is never typed ahead by mistake: it says "not now"
			// at once, as it does once the answers are offered.
			if msg.String() == "ctrl+c" {
				return m.answer(false)
			}
			m.typeAhead = append(m.typeAhead, msg)
			m.typed++
			return m, m.rearm()
		}
		switch msg.String() {
		case "t", "y":
			return m.answer(true)
		case "n", "esc", "ctrl+c", "q":
			return m.answer(false)
		case "enter":
			return m.answer(!m.notNow)
		case "left", "right", "tab", "shift+tab", "h", "l":
			m.notNow = !m.notNow
		case "up", "k":
			m.scroll(-1)
		case "down", "j":
			m.scroll(1)
		case "pgup":
			m.scroll(-max(m.height-5, 1))
		case "pgdown", "space":
			m.scroll(max(m.height-5, 1))
		case "home":
			m.scroll(-1 << 20)
		case "end":
			m.scroll(1 << 20)
		}
	}
	return m, nil
}

func (m *trustModel) answer(trust bool) (tea.Model, tea.Cmd) {
	m.done, m.trusted = true, trust
	return m, tea.Quit
}

// maxListed bounds each list: the files have the rest.
const maxListed = 12

func (m *trustModel) View() tea.View {
	var v tea.View
	// On the alternate screen: the question leaves no trace in the
	// scrollback, and the chat starts where the shell left off.
	v.AltScreen = true
	if !m.done {
		v.SetContent(m.render())
	}
	return v
}

func (m *trustModel) render() string {
	st, inner := m.st, max(m.width-4, 20)
	b, foot := m.lines(inner)
	if room := m.bodyRoom(len(b), len(foot)); room < len(b) {
		// Taller than the screen: the bottom rows (what else it would
		// run, the answers) would be cut off unseen, and "t" would trust
		// what was never shown. The answers stay; the rest scrolls.
		m.top = min(max(m.top, 0), len(b)-room)
		b = append(b[m.top:m.top+room:m.top+room], st.Muted.Render(fmt.Sprintf("↑/↓ scroll · lines %d–%d of %d", m.top+1, m.top+room, len(b))))
	}
	return st.Dialog.Width(min(m.width, inner+4)).Render(strings.Join(append(b, foot...), "\n"))
}

// bodyRoom is how many of n lines of what the project would do fit above
// foot answer lines, a scroll line and the dialog's border: all of them on
// a tall enough screen (or one of unknown height).
func (m *trustModel) bodyRoom(n, foot int) int {
	if m.height <= 0 || n+foot+2 <= m.height {
		return n
	}
	return max(m.height-foot-3, 1)
}

// scroll moves the shown lines by d (clamped when drawn).
func (m *trustModel) scroll(d int) {
	b, foot := m.lines(max(m.width-4, 20))
	m.top = min(max(m.top+d, 0), max(len(b)-m.bodyRoom(len(b), len(foot)), 0))
}

// lines are the question's lines wrapped to inner cells: what the project
// would do, and the answers under it.
func (m *trustModel) lines(inner int) (b, foot []string) {
	st := m.st
	// Wrapped, never cut: the end of a long command line must not hide
	// what it does.
	wrap := func(s string) []string { return strings.Split(ansi.Wrap(s, inner, " "), "\n") }
	add := func(s string) { b = append(b, wrap(s)...) }
	// item adds an entry of a list with a hanging indent: the rest of a
	// wrapped command line stays under its entry, where flush left it read
	// as an entry, or a heading, of its own.
	item := func(indent int, s string) {
		for i, l := range strings.Split(ansi.Wrap(s, max(inner-indent-2, 1), " "), "\n") {
			b = append(b, strings.Repeat(" ", indent+min(i, 1)*2)+l)
		}
	}
	add(st.DialogTitle.Render("Trust this directory?"))
	add(st.Text.Render(sanitize.Line(m.req.Dir)))
	files := "Its project files (" + sanitize.Line(strings.Join(m.req.Files, ", ")) + ")"
	if m.req.Changed {
		// Asked again with no word of why, the question read as a
		// trust that was lost.
		add(st.Muted.Render(files + " changed since you trusted it; until you trust it again, they are not used."))
	} else {
		add(st.Muted.Render(files + " come with the repository; until you trust it, they are not used."))
	}
	// section lists n items under a title, at most maxListed of them.
	section := func(title string, n int, entry func(int) string) {
		if n == 0 {
			return
		}
		b = append(b, "")
		add(st.Bold.Render(title))
		for i := range min(n, maxListed) {
			item(2, entry(i))
		}
		if n > maxListed {
			add(st.Muted.Render(fmt.Sprintf("  … and %d more", n-maxListed)))
		}
	}
	section("It would start these MCP servers:", len(m.req.Servers), func(i int) string {
		s := m.req.Servers[i]
		return st.CardTitle.Render(sanitize.Line(s.Name)) + "  " + st.CardArgs.Render(sanitize.Line(s.Target))
	})
	section("Its servers would put your environment variables in what they send:", len(m.req.Env), func(i int) string {
		if e := m.req.Env[i]; e.Sent {
			return st.WarningText.Render("! " + sanitize.Line(e.Text))
		}
		return st.Muted.Render(sanitize.Line(m.req.Env[i].Text))
	})
	section("It would run these commands at hook events:", len(m.req.Hooks), func(i int) string {
		return st.CardArgs.Render(sanitize.Line(m.req.Hooks[i]))
	})
	section("It would change these settings:", len(m.req.Settings), func(i int) string {
		c := m.req.Settings[i]
		return st.CardTitle.Render(sanitize.Line(c.Key)) + "  " + st.CardArgs.Render(sanitize.Line(clip(c.From, 60))+" → "+sanitize.Line(clip(c.To, 200)))
	})
	for _, l := range []struct {
		title string
		items []string
	}{{"The model would be sent these instruction files:", m.req.Instructions}, {"It would add these commands:", m.req.Commands}} {
		section(l.title, len(l.items), func(i int) string { return st.CardArgs.Render(sanitize.Line(clip(l.items[i], 200))) })
	}
	for _, w := range m.req.Warnings {
		item(0, st.WarningText.Render("! "+sanitize.Line(w)))
	}
	foot = []string{""}
	if m.guarded {
		// The answers come once the keys typed ahead have been let go.
		return b, append(foot, st.Muted.Render("…"))
	}
	trust, notNow := " trust ", " not now "
	if m.notNow {
		notNow = st.Selected.Render(notNow)
	} else {
		trust = st.Selected.Render(trust)
	}
	keys := trust + "  " + notNow + "   " + st.HelpKey.Render("t") + st.HelpDesc.Render(" trust  ") +
		st.HelpKey.Render("n/esc") + st.HelpDesc.Render(" not now")
	// The choosing keys go when they do not fit: wrapped, "choose" stood
	// alone on a line at 60 columns, and the buttons say it.
	if all := keys + st.HelpDesc.Render("  ") + st.HelpKey.Render("←/→ enter") + st.HelpDesc.Render(" choose"); ansi.StringWidth(all) <= inner {
		keys = all
	}
	return b, append(foot, wrap(keys)...)
}

// clip shortens a long value, saying by how much.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + fmt.Sprintf("… (%d more characters)", len(r)-n)
	}
	return s
}
