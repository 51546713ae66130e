package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/config"
)

const offlineAccess = "offline_access"

// authorize gets a new token: by the client credentials grant, or by the
// authorization code grant through the browser. extra are scopes to ask
// for on top (a step-up's). mu is held.
func (a *Authorizer) authorize(ctx context.Context, ch challenge, extra []string) error {
	d, err := a.discover(ctx, ch)
	if err != nil {
		return err
	}
	scopes := a.scopes(d, ch, extra)
	// A new sign-in gets a new DPoP key, when DPoP is used: the key lives
	// as long as the tokens of one sign-in.
	dk, err := dpopFor(d.as, ch)
	if err != nil {
		return err
	}
	switch a.cfg.Grant {
	case config.GrantCrossApp:
		return a.crossApp(ctx, d, scopes, dk)
	case config.GrantWorkloadIdentity:
		return a.workload(ctx, d, scopes, dk)
	}
	if a.cfg.Grant == config.GrantClientCredentials {
		c, err := a.identity(ctx, d, "", &a.rec)
		if err != nil {
			return err
		}
		form := url.Values{"grant_type": {"client_credentials"}}
		if len(scopes) > 0 {
			form.Set("scope", strings.Join(scopes, " "))
		}
		tok, err := a.tokenRequest(ctx, d.as, c, d.resource, form, dk)
		if err != nil {
			return err
		}
		return a.keep(c, d, tok, dk)
	}
	if a.opts.Prompt == nil {
		return a.signInError("")
	}
	if d.as.discovered && !slices.Contains(d.as.CodeChallengeMethodsSupported, "S256") {
		// MCP authorization §PKCE: without S256 advertised the flow MUST NOT go on.
		return fmt.Errorf("the authorization server %s does not advertise PKCE S256 (code_challenge_methods_supported): not signing in", d.as.Issuer)
	}
	ctx, cancel := context.WithTimeout(ctx, a.opts.Timeout)
	defer cancel()
	ln, redirectURI, err := a.listen(ctx)
	if err != nil {
		return err
	}
	defer ln.Close()
	c, err := a.identity(ctx, d, redirectURI, &a.rec)
	if err != nil {
		return err
	}
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return err
	}
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {c.ID},
		"redirect_uri":          {redirectURI},
		"state":                 {state},
		"code_challenge":        {transport.GenerateCodeChallenge(verifier)},
		"code_challenge_method": {"S256"},
	}
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	if d.resource != "" {
		q.Set("resource", d.resource)
	}
	authURL := d.as.AuthorizationEndpoint
	if strings.Contains(authURL, "?") {
		authURL += "&" + q.Encode()
	} else {
		authURL += "?" + q.Encode()
	}
	code, err := a.await(ctx, ln, state, d.as, func() { a.opts.Prompt(a.name, authURL) })
	if err != nil {
		return err
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {redirectURI},
		"code_verifier": {verifier},
	}
	tok, err := a.tokenRequest(ctx, d.as, c, d.resource, form, dk)
	if err != nil {
		return err
	}
	if tok.Scope == "" {
		tok.Scope = strings.Join(scopes, " ")
	}
	return a.keep(c, d, tok, dk)
}

// keep stores the token with what a refresh needs: the client (its secret
// only when it was registered, a configured one stays in the config), the
// token endpoint and the resource, and the DPoP key a DPoP token is bound
// to.
func (a *Authorizer) keep(c *client, d discovery, tok *transport.Token, dk *dpopKey) error {
	a.rec.DPoPKey = ""
	if dk != nil && tok.TokenType == tokenTypeDPoP {
		enc, err := dk.encode()
		if err != nil {
			return err
		}
		a.rec.DPoPKey = enc
	}
	kept := *c
	kept.Issuer, kept.TokenURL, kept.Resource = d.as.Issuer, d.as.TokenEndpoint, d.resource
	if c.registeredBy != "dcr" {
		kept.Secret = ""
	}
	a.rec.Client = &kept
	return a.saveToken(tok)
}

// scopes picks what to ask for: the configured scopes, else the challenge's,
// else the resource's scopes_supported, else none; offline_access where the
// authorization server offers it (for a refresh token).
func (a *Authorizer) scopes(d discovery, ch challenge, extra []string) []string {
	var s []string
	switch {
	case len(a.cfg.Scopes) > 0:
		s = slices.Clone(a.cfg.Scopes)
	case ch.Scope != "":
		s = strings.Fields(ch.Scope)
	case len(d.scopesSupported) > 0:
		s = slices.Clone(d.scopesSupported)
	}
	for _, x := range extra {
		if !slices.Contains(s, x) {
			s = append(s, x)
		}
	}
	if !a.machineGrant() && slices.Contains(d.as.ScopesSupported, offlineAccess) && !slices.Contains(s, offlineAccess) {
		s = append(s, offlineAccess)
	}
	return s
}

// refresh exchanges the refresh token; a refresh token the server refuses
// (invalid_grant: expired or revoked) is forgotten. mu is held.
func (a *Authorizer) refresh(ctx context.Context) error {
	t, c := a.rec.Token, a.rec.Client
	if t == nil || t.RefreshToken == "" || c == nil || c.TokenURL == "" {
		return errors.New("no refresh token")
	}
	use := *c
	if use.ID == a.cfg.ClientID {
		use.Secret = a.cfg.ClientSecret
	}
	// A DPoP token's refresh token is bound to the same key (RFC 9449
	// §5): its refresh carries a proof of it, and the new token is bound
	// to it too.
	dk, bound := a.boundKey()
	if bound && dk == nil {
		a.rec.Token = nil
		_ = a.store.save(a.name, a.url, a.rec)
		return errors.New("the kept DPoP key is damaged")
	}
	as := serverMetadata{AuthServerMetadata: transport.AuthServerMetadata{Issuer: c.Issuer, TokenEndpoint: c.TokenURL}}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {t.RefreshToken}}
	tok, err := a.tokenRequest(ctx, as, &use, c.Resource, form, dk)
	if err != nil {
		var te *TokenError
		if errors.As(err, &te) && (te.Code == "invalid_grant" || te.Code == "invalid_client") {
			a.rec.Token = nil
			_ = a.store.save(a.name, a.url, a.rec)
		}
		return err
	}
	if tok.RefreshToken == "" { // RFC 6749 §6: the old one stays valid
		tok.RefreshToken = t.RefreshToken
	}
	if tok.Scope == "" {
		tok.Scope = t.Scope
	}
	if tok.TokenType != tokenTypeDPoP {
		a.rec.DPoPKey = "" // the server now binds nothing
	}
	return a.saveToken(tok)
}

// listen opens the 127.0.0.1 listener the browser comes back to: on the
// configured port, else on the port of the registered client's redirect
// (so it is reused), else on any free port.
func (a *Authorizer) listen(ctx context.Context) (net.Listener, string, error) {
	ports := []int{a.cfg.CallbackPort}
	if a.cfg.CallbackPort == 0 {
		if c := a.rec.Client; c != nil && c.RedirectURI != "" {
			if u, err := url.Parse(c.RedirectURI); err == nil {
				if p, err := strconv.Atoi(u.Port()); err == nil {
					ports = []int{p, 0}
				}
			}
		}
	}
	var err error
	for _, p := range ports {
		var ln net.Listener
		ln, err = (&net.ListenConfig{}).Listen(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err == nil {
			port := ln.Addr().(*net.TCPAddr).Port
			return ln, fmt.Sprintf("http://127.0.0.1:%d/callback", port), nil
		}
	}
	return nil, "", fmt.Errorf("listen on 127.0.0.1 for the sign-in's redirect: %w (set another oauth.callback_port)", err)
}

// ErrIssuerMismatch is an authorization response that did not come from the
// authorization server the request went to (RFC 9207): its iss names
// another issuer, or it has none where the server said it sends one. Its
// code may be an attacker's (a mix-up attack), so it is not redeemed.
var ErrIssuerMismatch = errors.New("the sign-in answer came from another authorization server")

// checkIssuer applies RFC 9207 §2.4 to an authorization response's query: a
// present iss must equal the issuer of the server's metadata by simple
// string comparison (no case folding, default port, trailing slash or
// percent-encoding normalisation: a variant is another issuer), advertised
// or not; an absent one is refused where the metadata advertised it. A
// server whose metadata was not found (the 2025-03-26 default endpoints)
// has told no issuer to compare with.
func checkIssuer(q url.Values, as serverMetadata) error {
	iss, present := q["iss"]
	switch {
	case !as.discovered:
		return nil
	case present && (len(iss) != 1 || iss[0] != as.Issuer):
		return fmt.Errorf("%w: it names issuer %q, not %q, where the agent sent the sign-in (a possible mix-up attack): refused, sign in again", ErrIssuerMismatch, firstLine(strings.Join(iss, ",")), as.Issuer)
	case !present && as.IssParameterSupported:
		return fmt.Errorf("%w: it has no iss, which %s says it always sends (a possible mix-up attack): refused, sign in again", ErrIssuerMismatch, as.Issuer)
	}
	return nil
}

// await serves the redirect until it brings the code for state, the
// authorization server reports an error, or ctx ends; a response that is
// not from as (checkIssuer) ends it with that error. open shows the URL
// once the listener serves.
func (a *Authorizer) await(ctx context.Context, ln net.Listener, state string, as serverMetadata, open func()) (string, error) {
	type result struct {
		code string
		err  error
	}
	done := make(chan result, 1)
	finish := func(r result) {
		select {
		case done <- r:
		default:
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("state") != state {
			// Not this sign-in's redirect (RFC 6749 §10.12): ignored.
			http.Error(w, "This is not the sign-in the agent is waiting for.", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := checkIssuer(q, as); err != nil {
			// Before the error too: an error answer carries iss as well
			// (RFC 9207 §2), and another server's is not this one's word.
			fmt.Fprintf(w, "<p>The sign-in to %s was refused: the answer did not come from the authorization server the agent asked. You can close this tab.</p>", html.EscapeString(a.name))
			finish(result{err: err})
			return
		}
		if e := q.Get("error"); e != "" {
			desc := firstLine(q.Get("error_description"))
			fmt.Fprintf(w, "<p>The sign-in to %s failed: %s. You can close this tab.</p>", html.EscapeString(a.name), html.EscapeString(e))
			msg := "the authorization server answered " + e
			if desc != "" {
				msg += ": " + desc
			}
			finish(result{err: errors.New(msg)})
			return
		}
		code := q.Get("code")
		if code == "" {
			http.Error(w, "The redirect has no code.", http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "<p>Signed in to %s. You can close this tab and go back to the agent.</p>", html.EscapeString(a.name))
		finish(result{code: code})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	open()
	select {
	case r := <-done:
		return r.code, r.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", a.signInError(fmt.Sprintf("no sign-in within %s (oauth_timeout)", a.opts.Timeout))
		}
		return "", ctx.Err()
	}
}

// probe asks the server, without a token, for its challenge (for a login
// before any connection).
func (a *Authorizer) probe(ctx context.Context) (challenge, error) {
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + mcpgo.LATEST_PROTOCOL_VERSION +
		`","capabilities":{},"clientInfo":{"name":"` + a.opts.ClientName + `","version":"login"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, strings.NewReader(body))
	if err != nil {
		return challenge{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := a.http.Do(req)
	if err != nil {
		return challenge{}, fmt.Errorf("reach %s: %w", a.url, err)
	}
	resp.Body.Close()
	return parseChallenge(resp.Header), nil
}

// OpenBrowser opens u with $BROWSER (u as its only argument), else the
// system's opener; it does not wait for the browser.
func OpenBrowser(u string) error {
	var cmd *exec.Cmd
	ctx := context.Background() // the browser outlives the sign-in
	switch b := os.Getenv("BROWSER"); {
	case b != "":
		cmd = exec.CommandContext(ctx, b, u)
	case runtime.GOOS == "darwin":
		cmd = exec.CommandContext(ctx, "open", u)
	case runtime.GOOS == "windows":
		cmd = exec.CommandContext(ctx, "rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.CommandContext(ctx, "xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
