package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/store"
	mcptools "github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/mcp/oauth"
)

// oauthOptions are the sign-in settings of the run's remote MCP servers:
// tokens in the OS keychain or the data directory's oauth/ (token_store;
// 0600 files, never the session database), the browser flow bounded by oauth_timeout. prompt nil: no
// browser is opened (a server that needs a sign-in fails, naming
// `agent mcp login`).
func oauthOptions(s Settings, prompt io.Writer) oauth.Options {
	o := oauth.Options{Timeout: time.Duration(s.Config.OAuthTimeout), ClientMetadataURL: s.Config.OAuthClientMetadataURL, ClientName: "agent"}
	if p, err := store.DefaultPath(); err == nil {
		o.Dir = filepath.Join(filepath.Dir(p), "oauth")
	}
	o.Store = oauth.NewStore(s.Config.TokenStore, o.Dir)
	if prompt != nil {
		o.Prompt = func(server, authURL string) {
			// The URL comes from the server's metadata: no escape reaches
			// the terminal.
			fmt.Fprintf(prompt, "agent: MCP server %s needs a sign-in; opening in your browser:\n  %s\n", sanitize.Line(server), sanitize.Line(authURL))
			if err := oauth.OpenBrowser(authURL); err != nil {
				fmt.Fprintf(prompt, "agent: no browser could be opened (%v): open the URL above yourself\n", err)
			}
		}
	}
	return o
}

// runOAuthOptions are the run's own: in the TUI a server that needs a
// sign-in names /mcp login, which signs in without leaving it.
func (a *App) runOAuthOptions() oauth.Options {
	o := oauthOptions(a.settings, a.opts.SignIn)
	if a.opts.Interactive {
		o.Login = "/mcp login"
	}
	return o
}

// signInError is the first start failure of a server that needs a sign-in
// the run could not get: a -p run ends with it (exit 1).
func signInError(m *mcptools.Manager) error {
	for _, err := range m.SignInNeeded() {
		if se := (*oauth.SignInError)(nil); errors.As(err, &se) {
			return se
		}
	}
	return nil
}

// authorizer finds the named server (configured or preset) and its sign-in.
func authorizer(s Settings, name string, prompt io.Writer) (*oauth.Authorizer, error) {
	configured, err := s.MCPServers()
	if err != nil {
		return nil, err
	}
	srv, ok := config.MergeMCP(configured, config.MCPPresets(s.Workdir))[name]
	if !ok {
		return nil, Usagef("no MCP server named %q: `agent mcp list` shows the configured ones", name)
	}
	a := oauth.New(srv, oauthOptions(s, prompt))
	if a == nil {
		why := "it is a stdio server"
		switch {
		case srv.OAuth != nil && srv.OAuth.Off:
			why = `its entry says "oauth": false`
		case srv.Type != config.MCPStdio:
			why = `it sends its own Authorization header (add an "oauth" entry to sign in instead)`
		}
		return nil, Usagef("MCP server %s does not sign in with OAuth: %s", name, why)
	}
	return a, nil
}

// MCPLogin signs in to the named server through the browser (or with its
// client credentials), printing the URL to w; kept says where the token is
// kept (token_store).
func MCPLogin(ctx context.Context, s Settings, name string, w io.Writer) (kept string, err error) {
	return mcpLogin(ctx, s, name, w, "agent mcp login")
}

// mcpLogin is MCPLogin; a failure tells to try again with login (the
// shell's command, or the TUI's /mcp login).
func mcpLogin(ctx context.Context, s Settings, name string, w io.Writer, login string) (kept string, err error) {
	a, err := authorizer(s, name, w)
	if err != nil {
		return "", err
	}
	if err := a.Login(ctx); err != nil {
		return "", &LoginError{Server: name, Login: login, Err: err}
	}
	return a.Store().Where(), nil
}

// LoginError is a sign-in that did not finish. It names the server once,
// says what failed and how to try again; a SignInError inside (no sign-in
// within oauth_timeout) is said by its reason alone, since its own text
// names the server again and a login command that may not be this one.
type LoginError struct {
	Server string
	Login  string // "agent mcp login" or "/mcp login"
	Err    error
}

func (e *LoginError) Error() string {
	why := e.Err.Error()
	if se := (*oauth.SignInError)(nil); errors.As(e.Err, &se) {
		why = cmp.Or(se.Reason, "no sign-in")
	}
	return fmt.Sprintf("sign-in to MCP server %s failed: %s; run `%s %s` to try again", e.Server, why, e.Login, e.Server)
}

func (e *LoginError) Unwrap() error { return e.Err }

// MCPLogout forgets the named server's token and registered client;
// removed is false when there was none.
func MCPLogout(s Settings, name string) (removed bool, err error) {
	a, err := authorizer(s, name, nil)
	if err != nil {
		return false, err
	}
	return a.Logout()
}

// untrustedKeyPaths refuses a private key, ID token or workload identity token read from a path that a project's
// .mcp.json names: a file that came with a cloned repository must not say
// where credentials are read from. The user's own files and --mcp-config may.
func untrustedKeyPaths(servers map[string]config.MCPServer) error {
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		o := servers[name].OAuth
		if o == nil {
			continue
		}
		key := ""
		switch {
		case strings.HasPrefix(o.PrivateKey, "@"):
			key = "oauth.private_key"
		case o.IdP != nil && strings.HasPrefix(o.IdP.IDToken, "@"):
			key = "oauth.idp.id_token"
		case strings.HasPrefix(o.WorkloadToken, "@"):
			key = "oauth.workload_token"
		}
		if key != "" {
			return fmt.Errorf("MCP server %s in %s: %s @PATH is read only from your own config (~/.config/agent/mcp.json, the config file or --mcp-config), never from a project's .mcp.json", name, servers[name].Source, key)
		}
	}
	return nil
}
