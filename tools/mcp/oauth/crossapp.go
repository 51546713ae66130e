package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/agent-dev/agent/config"
)

// The URNs of Enterprise-Managed Authorization (the MCP extension
// io.modelcontextprotocol/enterprise-managed-authorization, SEP-990): an
// RFC 8693 token exchange at the IdP for an Identity Assertion JWT
// Authorization Grant (ID-JAG), then an RFC 7523 JWT bearer grant.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
)

// machineGrant is true for the grants that get a token without the
// browser step at the MCP server's authorization server.
func (a *Authorizer) machineGrant() bool {
	switch a.cfg.Grant {
	case config.GrantClientCredentials, config.GrantCrossApp, config.GrantWorkloadIdentity:
		return true
	}
	return false
}

// crossApp gets a token by cross-app access: the user's ID token is
// exchanged at the enterprise IdP for an ID-JAG naming the server's
// authorization server (audience) and the server (resource), which that
// authorization server takes as a JWT authorization grant from the
// configured client. mu is held.
func (a *Authorizer) crossApp(ctx context.Context, d discovery, scopes []string, dk *dpopKey) error {
	idp := a.cfg.IdP
	c, err := a.identity(ctx, d, "", &a.rec)
	if err != nil {
		return err
	}
	resource := d.resource
	if resource == "" {
		resource = canonicalResource(a.url) // a 2025-03-26 server publishes none
	}
	im, ok, err := a.issuerMetadata(ctx, idp.Issuer, true)
	if err != nil {
		return fmt.Errorf("the IdP %s: %w", idp.Issuer, err)
	}
	if !ok {
		return fmt.Errorf("the IdP %s publishes no OpenID or OAuth metadata (tried %s): check oauth.idp.issuer", idp.Issuer, strings.Join(metadataURLs(idp.Issuer), ", "))
	}
	idpClient := &client{Issuer: im.Issuer, ID: idp.ClientID, Secret: idp.ClientSecret, AuthMethod: configuredMethod(im, idp.ClientSecret, false)}
	var idToken string
	if strings.TrimSpace(idp.IDToken) == "" {
		idToken, err = a.ssoIDToken(ctx, im, idpClient)
	} else {
		idToken, err = a.idToken()
	}
	if err != nil {
		return err
	}
	// RFC 8693 §2.1, and the extension's §4: the IdP decides, by its
	// policy, whether this client may act for the user at this server.
	form := url.Values{
		"grant_type":           {grantTokenExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"audience":             {d.as.Issuer},
		"subject_token":        {idToken},
		"subject_token_type":   {tokenTypeIDToken},
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	b, err := a.postToken(ctx, im, idpClient, resource, form, nil)
	if err != nil {
		return fmt.Errorf("exchange the ID token at the IdP: %w", err)
	}
	var ex struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
	}
	if err := json.Unmarshal(b, &ex); err != nil || ex.AccessToken == "" {
		return fmt.Errorf("exchange the ID token at the IdP %s: the answer has no access_token", im.TokenEndpoint)
	}
	if ex.IssuedTokenType != tokenTypeIDJAG {
		return fmt.Errorf("exchange the ID token at the IdP %s: it issued %q, not an ID-JAG (%s)", im.TokenEndpoint, ex.IssuedTokenType, tokenTypeIDJAG)
	}
	return a.presentJWT(ctx, d, c, resource, ex.AccessToken, scopes, dk, "the IdP's grant")
}

// idToken reads the user's ID token from oauth.idp.id_token (text or
// @PATH, read at each use so a tool may renew the file), refusing one whose
// exp has passed: the IdP would refuse it with a less useful answer.
func (a *Authorizer) idToken() (string, error) {
	v := strings.TrimSpace(a.cfg.IdP.IDToken)
	if path, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("oauth.idp.id_token of %s: %w", a.name, err)
		}
		v = strings.TrimSpace(string(b))
	}
	if v == "" {
		return "", a.signInError("the file of oauth.idp.id_token is empty")
	}
	claims, err := idClaims(v)
	if err != nil {
		return "", fmt.Errorf("oauth.idp.id_token of %s is not a JWT (an OpenID Connect ID token)", a.name)
	}
	if claims.ExpiresAt != nil && time.Now().After(claims.ExpiresAt.Time) {
		return "", a.signInError(fmt.Sprintf("the ID token in oauth.idp.id_token expired at %s: get a new one from the IdP", claims.ExpiresAt.UTC().Format(time.RFC3339)))
	}
	return v, nil
}

// idTokenClaims are the claims of an ID token the agent reads.
type idTokenClaims struct {
	jwt.RegisteredClaims
	Nonce string `json:"nonce"`
}

// idClaims reads an ID token's claims without verifying its signature: the
// IdP that checks it at the exchange is the one that signed it, and one the
// agent got itself came straight from the IdP's token endpoint (OpenID
// Connect Core §3.1.3.7: TLS stands for the signature there).
func idClaims(v string) (idTokenClaims, error) {
	var c idTokenClaims
	_, _, err := jwt.NewParser().ParseUnverified(v, &c)
	return c, err
}
