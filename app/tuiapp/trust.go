package tuiapp

import (
	"context"
	"fmt"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/tui"
)

// AskTrust asks, before anything of the project runs, whether to trust an
// untrusted directory whose project files would start servers, change
// settings, send instruction files or add commands. Trusted, the trust store is written (only if the files are
// still those shown) and the settings are resolved again with them; "not
// now" keeps s, whose warning names agent trust. What was typed before the
// question could be read is returned for the chat's input.
func AskTrust(ctx context.Context, s app.Settings, getenv func(string) string, opts tui.Options) (app.Settings, tui.TypeAhead, error) {
	pv, err := app.PreviewProject(s, getenv)
	if err != nil {
		// Files of a directory the user has not trusted are not used, so
		// a broken one (a cloned .mcp.json that is not JSON) must not keep
		// the agent from starting; -p already runs without them. It is
		// said, since agent trust would refuse them as they are.
		s.Warnings = append(s.Warnings, fmt.Sprintf("the project files could not be read for the trust question: %v; they stay unused: fix them before agent trust", err))
		return s, tui.TypeAhead{}, nil
	}
	if pv.Empty() {
		return s, tui.TypeAhead{}, nil
	}
	req := tui.TrustRequest{Dir: pv.Project.Dir, Files: pv.Project.Files, Warnings: pv.Warnings, Instructions: pv.Instructions, Commands: pv.Commands, Hooks: pv.Hooks, Changed: pv.Changed}
	for _, srv := range pv.Servers {
		req.Servers = append(req.Servers, tui.TrustServer{Name: srv.Name, Target: srv.Target})
	}
	for _, u := range pv.Env {
		req.Env = append(req.Env, tui.TrustEnv{Text: u.String(), Sent: u.Sent})
	}
	for _, c := range pv.Settings {
		req.Settings = append(req.Settings, tui.TrustSetting{Key: c.Key, From: c.From, To: c.To})
	}
	ans, err := tui.AskTrust(ctx, req, opts)
	if err != nil || !ans.Trusted {
		return s, ans.TypeAhead, err
	}
	if err := app.TrustPreviewed(pv); err != nil {
		return s, ans.TypeAhead, err
	}
	s, err = app.Load(s.Flags, getenv)
	return s, ans.TypeAhead, err
}
