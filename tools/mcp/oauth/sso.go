package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// ssoServer is the name the records of IdP sign-ins are kept under, with
// the configured issuer for URL: one sign-in serves every server of that
// IdP.
const ssoServer = "idp"

// ssoIDToken is the user's ID token from the agent's own single sign-on at
// the IdP (OpenID Connect, authorization code with PKCE through the
// browser, as the extension's §3 describes), for cross_app without an
// oauth.idp.id_token: the kept one while it is valid, else one got with
// the kept refresh token, else a new sign-in. mu is held.
func (a *Authorizer) ssoIDToken(ctx context.Context, im serverMetadata, c *client) (string, error) {
	rec, err := a.store.load(ssoServer, a.cfg.IdP.Issuer)
	if err != nil {
		return "", err
	}
	if fresh(rec.IDToken) {
		return rec.IDToken, nil
	}
	if t := rec.Token; t != nil && t.RefreshToken != "" {
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {t.RefreshToken}, "scope": {"openid"}}
		if id, err := a.ssoToken(ctx, im, c, form, "", &rec); err == nil {
			return id, nil
		}
		// A refused refresh token: sign in again.
	}
	if a.opts.Prompt == nil {
		return "", a.signInError("sign in at the IdP " + im.Issuer + " first")
	}
	if im.AuthorizationEndpoint == "" {
		return "", fmt.Errorf("the IdP %s has no authorization_endpoint: set oauth.idp.id_token", im.Issuer)
	}
	ctx, cancel := context.WithTimeout(ctx, a.opts.Timeout)
	defer cancel()
	ln, redirectURI, err := a.listen(ctx)
	if err != nil {
		return "", err
	}
	defer ln.Close()
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return "", err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return "", err
	}
	nonce, err := transport.GenerateState()
	if err != nil {
		return "", err
	}
	scope := "openid"
	if slices.Contains(im.ScopesSupported, offlineAccess) {
		scope += " " + offlineAccess
	}
	q := url.Values{
		"response_type": {"code"}, "client_id": {c.ID}, "redirect_uri": {redirectURI}, "scope": {scope},
		"state": {state}, "nonce": {nonce},
		"code_challenge": {transport.GenerateCodeChallenge(verifier)}, "code_challenge_method": {"S256"},
	}
	sep := "?"
	if strings.Contains(im.AuthorizationEndpoint, "?") {
		sep = "&"
	}
	authURL := im.AuthorizationEndpoint + sep + q.Encode()
	code, err := a.await(ctx, ln, state, im, func() { a.opts.Prompt(a.name, authURL) })
	if err != nil {
		return "", err
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI}, "code_verifier": {verifier}}
	return a.ssoToken(ctx, im, c, form, nonce, &rec)
}

// ssoToken posts a code or refresh grant to the IdP, checks the ID token
// it answers with (issuer, audience, nonce, expiry) and keeps it with the
// refresh token.
func (a *Authorizer) ssoToken(ctx context.Context, im serverMetadata, c *client, form url.Values, nonce string, rec *record) (string, error) {
	b, err := a.postToken(ctx, im, c, "", form, nil)
	if err != nil {
		return "", fmt.Errorf("sign in at the IdP: %w", err)
	}
	var resp struct {
		IDToken      string `json:"id_token"`
		RefreshToken string `json:"refresh_token"`
	}
	if err := json.Unmarshal(b, &resp); err != nil || resp.IDToken == "" {
		return "", fmt.Errorf("sign in at the IdP %s: the answer has no id_token", im.TokenEndpoint)
	}
	claims, err := idClaims(resp.IDToken)
	switch {
	case err != nil:
		return "", fmt.Errorf("sign in at the IdP %s: the id_token is not a JWT", im.TokenEndpoint)
	case strings.TrimSuffix(claims.Issuer, "/") != strings.TrimSuffix(im.Issuer, "/"):
		return "", fmt.Errorf("sign in at the IdP: the ID token's issuer is %q, not %q", claims.Issuer, im.Issuer)
	case !slices.Contains(claims.Audience, c.ID):
		return "", fmt.Errorf("sign in at the IdP: the ID token was issued to another client than %q", c.ID)
	case nonce != "" && claims.Nonce != nonce:
		return "", fmt.Errorf("sign in at the IdP: the ID token's nonce is not the sign-in's (OpenID Connect Core §3.1.3.7)")
	case claims.ExpiresAt == nil || time.Now().After(claims.ExpiresAt.Time):
		return "", fmt.Errorf("sign in at the IdP: the ID token it issued has expired (is the clock right?)")
	}
	rec.IDToken = resp.IDToken
	if resp.RefreshToken != "" {
		rec.Token = &transport.Token{TokenType: "N_A", RefreshToken: resp.RefreshToken}
	}
	if err := a.store.save(ssoServer, a.cfg.IdP.Issuer, *rec); err != nil {
		return "", err
	}
	return resp.IDToken, nil
}

// fresh reports whether an ID token is valid for at least another minute.
func fresh(idToken string) bool {
	if idToken == "" {
		return false
	}
	c, err := idClaims(idToken)
	return err == nil && c.ExpiresAt != nil && time.Until(c.ExpiresAt.Time) > time.Minute
}
