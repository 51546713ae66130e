package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/config/commands"
	"github.com/agent-dev/agent/sanitize"
)

// ProjectPreview is what an untrusted directory's project files would do
// once trusted, for the question the TUI asks at start: the servers they
// would start and the settings they would change, as the rules of a
// trusted project leave them (a refused server or key is not listed; its
// warning is).
type ProjectPreview struct {
	Project  Project
	Servers  []ProjectServer
	Settings []SettingChange
	// Instructions are the project's instruction files the model would be
	// sent ("AGENTS.md (1.2 KB)"), Commands its custom commands
	// ("/review: Review a PR").
	Instructions, Commands []string
	// Hooks are the project's hook commands, "EVENT (MATCHER): COMMAND":
	// commands like the servers', so listed whole rather than as a
	// setting's clipped JSON, where the user's own hooks came first and
	// pushed the project's out of sight.
	Hooks []string
	// Env are the ${VAR}s the project's remote servers would put in their
	// URL, headers or OAuth fields: what a cloned .mcp.json could send
	// to a host of its choosing.
	Env      []EnvUse
	Warnings []string // what trusting would still refuse or not expand
	// Changed: the directory was trusted with other project files (a git
	// pull edited them), which the question says.
	Changed bool
}

// EnvUse is one ${VAR} in what a project server sends: To says where
// (its URL; the authorization server that URL points to; the IdP).
type EnvUse struct {
	Server, Var, Where, To string
	// Sent says the value would go: the user's project_env_allow names
	// the variable (Set: it is set now). Any other stays empty.
	Sent, Set bool
	// Signs: the value is a key that signs what goes To, not sent itself.
	Signs bool
}

func (u EnvUse) String() string {
	sends, send, to := "sends", "send", "to "+u.To
	if u.Signs {
		sends, send, to = "signs with", "sign with", "what it sends to "+u.To
	}
	switch {
	case u.Sent && u.Set:
		return fmt.Sprintf("%s %s ${%s} (%s) %s", u.Server, sends, u.Var, u.Where, to)
	case u.Sent:
		return fmt.Sprintf("%s would %s ${%s} (%s) %s once it is set", u.Server, send, u.Var, u.Where, to)
	}
	return fmt.Sprintf("%s: ${%s} (%s) stays empty: your project_env_allow does not name it", u.Server, u.Var, u.Where)
}

// ProjectServer is a server the project would start: its command line or
// URL, with ${VAR} left as written.
type ProjectServer struct {
	Name, Target string
}

// SettingChange is one setting the project would change, its values as
// JSON (a system prompt as its length).
type SettingChange struct {
	Key, From, To string
}

// Empty reports a preview with nothing to ask about.
func (p ProjectPreview) Empty() bool {
	return len(p.Servers) == 0 && len(p.Settings) == 0 && len(p.Instructions) == 0 && len(p.Commands) == 0 && len(p.Hooks) == 0
}

// PreviewProject says what trusting s's directory would change: the
// settings are resolved again as with --trust (without reading the
// environment into the project's servers) and compared key by key. It is
// empty when the directory has no project files or is already used.
func PreviewProject(s Settings, getenv func(string) string) (ProjectPreview, error) {
	pv := ProjectPreview{Project: s.Project}
	if s.Trusted || s.Project.Empty() {
		return pv, nil
	}
	pv.Changed = trustedBefore(s.Project)
	f := s.Flags
	f.Trust, f.preview = true, true
	t, err := Load(f, getenv)
	if err != nil {
		return pv, err
	}
	for _, n := range slices.Sorted(maps.Keys(t.projectServers)) {
		srv := t.projectServers[n]
		target := mcpTarget(srv)
		// What a server is given matters as much as what it runs
		// (LD_PRELOAD, a header): their names, values as written.
		for _, k := range slices.Sorted(maps.Keys(srv.Env)) {
			target += fmt.Sprintf(" %s=%s", k, srv.Env[k])
		}
		for _, k := range slices.Sorted(maps.Keys(srv.Headers)) {
			target += fmt.Sprintf(" (%s: %s)", k, srv.Headers[k])
		}
		pv.Servers = append(pv.Servers, ProjectServer{Name: n, Target: target})
		pv.Env = append(pv.Env, envUses(n, srv, s.ProjectEnvAllow, getenv)...)
	}
	for _, ev := range slices.Sorted(maps.Keys(t.Hooks)) {
		// Project hooks come after the user's in each event (hooks.Concat).
		for _, m := range t.Hooks[ev][min(len(s.Hooks[ev]), len(t.Hooks[ev])):] {
			for _, h := range m.Hooks {
				at := ev
				if m.Matcher != "" {
					at += " (" + m.Matcher + ")"
				}
				pv.Hooks = append(pv.Hooks, at+": "+h.Command)
			}
		}
	}
	for _, k := range config.Keys() {
		if k.Name == "mcpServers" || k.Name == "hooks" {
			continue // listed as servers, and as hook commands
		}
		before, _ := json.Marshal(k.Ptr(&s.Config))
		after, _ := json.Marshal(k.Ptr(&t.Config))
		if string(before) == string(after) {
			continue
		}
		c := SettingChange{Key: k.Name, From: orDefault(before), To: orDefault(after)}
		if k.Name == "system" {
			c.From, c.To = fmt.Sprintf("(%d characters)", len(s.System)), fmt.Sprintf("(%d characters)", len(t.System))
		}
		pv.Settings = append(pv.Settings, c)
	}
	for _, f := range loadInstructions(t, true).Files {
		if f.Scope == "project" {
			rel, _ := filepath.Rel(pv.Project.Dir, f.Path)
			// What is sent, as /context counts it: the file's size on
			// disk counted the blank lines around the text, never sent.
			size := fmt.Sprintf("%d bytes", f.Bytes)
			if f.Cut {
				size += fmt.Sprintf(", cut from %d to fit", f.Size)
			}
			pv.Instructions = append(pv.Instructions, fmt.Sprintf("%s (%s)", rel, size))
		}
	}
	for _, c := range loadCommands(t, true).List() {
		if c.Source == commands.SourceProject {
			pv.Commands = append(pv.Commands, "/"+c.Name+": "+c.Description)
		}
	}
	pv.Commands = append(pv.Commands, badProjectCommands(pv.Project.Dir)...)
	// Only the warnings trusting adds (what it would still refuse).
	for _, w := range t.Warnings {
		if !slices.Contains(s.Warnings, w) {
			pv.Warnings = append(pv.Warnings, w)
		}
	}
	return pv, nil
}

// envUses lists the ${VAR}s of a remote server's URL, header values and
// OAuth fields (as written: the preview expands nothing, so a default's
// ${VAR}s are there too), each with where tools/mcp/oauth sends it and
// whether the user's allow list lets its value through.
func envUses(name string, srv config.MCPServer, allow []string, getenv func(string) string) []EnvUse {
	if srv.URL == "" {
		return nil // a local command: listed whole with the servers
	}
	type field struct {
		where, value, to string
		signs            bool
	}
	fields := []field{{where: "URL", value: srv.URL, to: srv.URL}}
	for _, k := range slices.Sorted(maps.Keys(srv.Headers)) {
		fields = append(fields, field{where: "header " + k, value: srv.Headers[k], to: srv.URL})
	}
	if o := srv.OAuth; o != nil {
		// The client's credentials, grant and scopes go to the
		// authorization server the server's metadata names at sign-in
		// (its origin for a server without any): a host the project's
		// server chooses, not necessarily its own. The private key is not
		// sent: it signs the client assertions that go there.
		as := "the authorization server " + srv.URL + " points to"
		scopesTo := as
		idp := ""
		if o.IdP != nil {
			// cross_app: the ID token is exchanged at the IdP, which is
			// also asked for the scopes.
			idp = "the IdP " + o.IdP.Issuer
			scopesTo += " and " + idp
		}
		fields = append(fields, field{where: "oauth client_id", value: o.ClientID, to: as},
			field{where: "oauth client_secret", value: o.ClientSecret, to: as},
			field{where: "oauth private_key", value: o.PrivateKey, to: as, signs: true},
			field{where: "oauth signing_alg", value: o.SigningAlg, to: as},
			field{where: "oauth grant", value: o.Grant, to: as},
			// workload_identity: the workload's own identity token is the
			// grant, so a ${VAR} of it hands that identity to the server's
			// choice of authorization server.
			field{where: "oauth workload_token", value: o.WorkloadToken, to: as})
		for _, sc := range o.Scopes {
			fields = append(fields, field{where: "oauth scopes", value: sc, to: scopesTo})
		}
		if o.IdP != nil {
			fields = append(fields, field{where: "oauth idp issuer", value: o.IdP.Issuer, to: idp},
				field{where: "oauth idp client_id", value: o.IdP.ClientID, to: idp},
				field{where: "oauth idp client_secret", value: o.IdP.ClientSecret, to: idp},
				field{where: "oauth idp id_token", value: o.IdP.IDToken, to: idp})
		}
	}
	var out []EnvUse
	for _, f := range fields {
		var vars []string
		config.ExpandEnv(f.value, func(v string) (string, bool) {
			if !slices.Contains(vars, v) {
				vars = append(vars, v)
			}
			return "", false // unset: a default's ${VAR}s are visited too
		})
		for _, v := range vars {
			out = append(out, EnvUse{Server: name, Var: v, Where: f.where, To: f.to, Signs: f.signs,
				Sent: slices.Contains(allow, v), Set: getenv(v) != ""})
		}
	}
	return out
}

// TrustPreviewed trusts the directory of pv with the project files the
// user was shown: if they changed since, nothing is trusted and the error
// says to look again.
func TrustPreviewed(pv ProjectPreview) error {
	now, err := ReadProject(pv.Project.Dir)
	if err != nil {
		return err
	}
	if now.Hash != pv.Project.Hash {
		return Usagef("the project files of %s changed while you looked at them: nothing was trusted; start again to see them as they are", pv.Project.Dir)
	}
	_, err = Trust(pv.Project.Dir)
	return err
}

// orDefault is a setting's value as JSON, "(default)" when unset (the
// model then comes from the provider).
func orDefault(b []byte) string {
	switch string(b) {
	case `""`, "null", "[]", "{}", "0":
		return "(default)"
	}
	return string(b)
}

// badProjectCommands are the project's command files that do not parse,
// one line each ("/NAME would be added but does not parse: line 2: …"):
// trusted, they are offered to nothing but warn at every start, and a
// file the question left out was one the user trusted unseen.
func badProjectCommands(dir string) []string {
	var out []string
	for _, b := range BrokenProjectCommands(dir) {
		if b.Name == "" {
			out = append(out, "a command file cannot be read: "+b.Reason)
			continue
		}
		out = append(out, "/"+b.Name+" would be added but does not parse: "+b.Reason)
	}
	return out
}

// BrokenCommand is a project's command file that does not parse (Name
// empty: one that cannot be read). Reason names the line and field where
// it can; it quotes the file and is sanitized.
type BrokenCommand struct {
	Name, File, Reason string
}

// BrokenProjectCommands are dir's command files that do not parse: the
// trust question lists them, and so does agent trust. Read from the
// project's directory alone, so a user's file's error is not counted as
// the project's.
func BrokenProjectCommands(dir string) []BrokenCommand {
	root := filepath.Join(dir, ".agent", "commands")
	var out []BrokenCommand
	for _, err := range commands.Load(commands.Dirs{Project: root}).Errors {
		var ce *commands.Error
		if !errors.As(err, &ce) {
			out = append(out, BrokenCommand{Reason: sanitize.Line(err.Error())})
			continue
		}
		name := strings.TrimSuffix(filepath.Base(ce.File), ".md")
		reason := ce.Msg
		if ce.Field != "" {
			reason = "field " + ce.Field + ": " + reason
		}
		if ce.Line > 0 {
			reason = fmt.Sprintf("line %d: %s", ce.Line, reason)
		}
		file := ce.File
		if rel, err := filepath.Rel(dir, ce.File); err == nil {
			file = rel
		}
		out = append(out, BrokenCommand{Name: sanitize.Line(name), File: sanitize.Line(file), Reason: sanitize.Line(reason)})
	}
	return out
}
