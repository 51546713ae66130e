package oauth

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mark3labs/mcp-go/client/transport"
)

// Token endpoint client authentication methods (RFC 6749 §2.3, RFC 7591
// §2, RFC 7523 §2.2).
const (
	authBasic = "client_secret_basic"
	authPost  = "client_secret_post"
	authNone  = "none"
	authJWT   = "private_key_jwt"
)

// identity picks the client the flow signs in as: the configured one, else
// the agent's Client ID Metadata Document where the server supports it,
// else one registered earlier with this server for this redirect, else a
// new dynamic registration (RFC 7591).
func (a *Authorizer) identity(ctx context.Context, d discovery, redirectURI string, rec *record) (*client, error) {
	as := d.as
	if a.cfg.ClientID != "" {
		if k := rec.Client; k != nil && k.ID == a.cfg.ClientID && k.Issuer != "" && !sameIssuer(k.Issuer, as.Issuer) {
			return nil, fmt.Errorf("%w: %s's oauth.client_id was used with %s, and the server now names %s (a client is registered with one authorization server): register a client there and set it as oauth.client_id, or, if this one is registered there too, run `agent mcp logout %s` and sign in again",
				ErrClientOfAnotherServer, a.name, k.Issuer, as.Issuer, a.name)
		}
		c := &client{Issuer: as.Issuer, ID: a.cfg.ClientID, Secret: a.cfg.ClientSecret, registeredBy: "config"}
		c.AuthMethod = configuredMethod(as, c.Secret, a.cfg.PrivateKey != "")
		return c, nil
	}
	if as.ClientIDMetadataDocumentSupported && a.opts.ClientMetadataURL != "" {
		return &client{Issuer: as.Issuer, ID: a.opts.ClientMetadataURL, AuthMethod: authNone, registeredBy: "cimd"}, nil
	}
	if c := rec.Client; c != nil && c.Issuer == as.Issuer && c.RedirectURI == redirectURI {
		c.registeredBy = "dcr"
		return c, nil
	}
	if as.RegistrationEndpoint == "" {
		return nil, fmt.Errorf("the authorization server %s offers no dynamic client registration: register a client there and set \"oauth\": {\"client_id\": ...} for this server", as.Issuer)
	}
	method := authNone
	if ms := as.TokenEndpointAuthMethodsSupported; len(ms) > 0 && !slices.Contains(ms, authNone) {
		method = authPost
		if slices.Contains(ms, authBasic) {
			method = authBasic
		}
	}
	body, _ := json.Marshal(map[string]any{
		"client_name": a.opts.ClientName,
		// OpenID Connect Dynamic Client Registration §2 (MCP SEP-837): the
		// agent is a native application with a loopback redirect; a server
		// that reads no application_type takes "web", which may not
		// register one.
		"application_type":           "native",
		"redirect_uris":              []string{redirectURI},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := a.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("register a client at %s: %w", as.RegistrationEndpoint, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("register a client at %s: %w", as.RegistrationEndpoint, oauthError(resp.StatusCode, b))
	}
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(b, &reg); err != nil || reg.ClientID == "" {
		return nil, fmt.Errorf("register a client at %s: the answer has no client_id", as.RegistrationEndpoint)
	}
	c := &client{Issuer: as.Issuer, ID: reg.ClientID, Secret: reg.ClientSecret, AuthMethod: reg.AuthMethod, RedirectURI: redirectURI, registeredBy: "dcr"}
	if c.AuthMethod == "" { // RFC 7591 §2: the default
		c.AuthMethod = authBasic
		if c.Secret == "" {
			c.AuthMethod = authNone
		}
	}
	rec.Client = c
	return c, nil
}

// ErrClientOfAnotherServer is a configured client that was used with
// another authorization server than the one the server names now (MCP
// SEP-2352): its credentials are not sent to the new one.
var ErrClientOfAnotherServer = errors.New("the configured client belongs to another authorization server")

// sameIssuer compares a kept issuer with a discovered one, which the
// discovery lets differ by a trailing slash.
func sameIssuer(a, b string) bool { return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/") }

// configuredMethod is how a configured client authenticates at a token
// endpoint: with its key, else its secret (Basic unless the server takes
// only the body), else as a public client.
func configuredMethod(as serverMetadata, secret string, key bool) string {
	switch {
	case key:
		return authJWT
	case secret == "":
		return authNone
	case !slices.Contains(as.TokenEndpointAuthMethodsSupported, authBasic) && slices.Contains(as.TokenEndpointAuthMethodsSupported, authPost):
		return authPost
	}
	// RFC 6749 §2.3.1: every server supports Basic for secrets.
	return authBasic
}

// TokenError is an error answer of a token or registration endpoint
// (RFC 6749 §5.2). Its text carries the server's code and description,
// never a credential.
type TokenError struct {
	Status      int
	Code        string
	Description string
}

func (e *TokenError) Error() string {
	s := fmt.Sprintf("%d %s", e.Status, e.Code)
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

func oauthError(status int, body []byte) error {
	var v struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(body, &v)
	if v.Error == "" {
		v.Error = http.StatusText(status)
	}
	return &TokenError{Status: status, Code: v.Error, Description: firstLine(v.Description)}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// tokenRequest posts form to the token endpoint with the client's
// authentication and the resource indicator, and reads the access token.
// dk, when set, asks for a token bound to it (DPoP); the server may still
// issue a Bearer token, which is then used as one.
func (a *Authorizer) tokenRequest(ctx context.Context, as serverMetadata, c *client, resource string, form url.Values, dk *dpopKey) (*transport.Token, error) {
	b, err := a.postToken(ctx, as, c, resource, form, dk)
	if err != nil {
		return nil, err
	}
	var tok transport.Token
	if err := json.Unmarshal(b, &tok); err != nil || tok.AccessToken == "" {
		return nil, fmt.Errorf("token request to %s: the answer has no access_token", as.TokenEndpoint)
	}
	switch {
	case strings.EqualFold(tok.TokenType, "bearer"):
	case strings.EqualFold(tok.TokenType, tokenTypeDPoP) && dk != nil:
		tok.TokenType = tokenTypeDPoP
	default:
		return nil, fmt.Errorf("token request to %s: token_type %q is not Bearer", as.TokenEndpoint, tok.TokenType)
	}
	if tok.ExpiresIn > 0 {
		tok.ExpiresAt = time.Now().Add(time.Duration(tok.ExpiresIn) * time.Second)
	}
	return &tok, nil
}

// postToken posts form to a token endpoint with the client's
// authentication and the resource indicator; it returns the body of a
// successful answer, and a TokenError for an error answer. With dk each
// post carries a DPoP proof, and a use_dpop_nonce answer is posted again
// with the server's nonce (RFC 9449 §8), at most maxNonceRetries times.
func (a *Authorizer) postToken(ctx context.Context, as serverMetadata, c *client, resource string, form url.Values, dk *dpopKey) ([]byte, error) {
	endpoint, err := url.Parse(as.TokenEndpoint)
	if err != nil {
		return nil, fmt.Errorf("token endpoint %q: %w", as.TokenEndpoint, err)
	}
	for retries := 0; ; retries++ {
		req, err := a.tokenPost(ctx, as, c, resource, form, dk, endpoint)
		if err != nil {
			return nil, err
		}
		resp, err := a.http.Do(req)
		if err != nil {
			return nil, fmt.Errorf("token request to %s: %w", as.TokenEndpoint, err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		fresh := dk != nil && a.nonces.note(endpoint, resp.Header)
		if resp.StatusCode/100 != 2 {
			err := oauthError(resp.StatusCode, b)
			if te := (*TokenError)(nil); dk != nil && errors.As(err, &te) && te.Code == "use_dpop_nonce" {
				if fresh && retries < maxNonceRetries {
					continue
				}
				err = fmt.Errorf("%w (%w)", ErrDPoPNonce, err)
			}
			return nil, fmt.Errorf("token request to %s: %w", as.TokenEndpoint, err)
		}
		var errBody struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(b, &errBody) == nil && errBody.Error != "" {
			return nil, fmt.Errorf("token request to %s: %w", as.TokenEndpoint, oauthError(resp.StatusCode, b))
		}
		return b, nil
	}
}

// tokenPost makes one token request: each has its own client assertion and
// DPoP proof, as a server refuses a jti it has seen.
func (a *Authorizer) tokenPost(ctx context.Context, as serverMetadata, c *client, resource string, form url.Values, dk *dpopKey, endpoint *url.URL) (*http.Request, error) {
	if resource != "" {
		form.Set("resource", resource) // RFC 8707 §2.2
	}
	basic := false
	switch c.AuthMethod {
	case authBasic:
		basic = true
	case authPost:
		form.Set("client_id", c.ID)
		form.Set("client_secret", c.Secret)
	case authJWT:
		assertion, err := a.clientAssertion(c.ID, as)
		if err != nil {
			return nil, err
		}
		form.Set("client_id", c.ID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	default:
		if c.ID != "" { // a workload's grant may come with no client (SEP-1933)
			form.Set("client_id", c.ID)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		// RFC 6749 §2.3.1: both are form-encoded before Basic encoding.
		req.SetBasicAuth(url.QueryEscape(c.ID), url.QueryEscape(c.Secret))
	}
	if dk != nil {
		proof, err := dk.proof(http.MethodPost, endpoint, "", a.nonces.get(endpoint))
		if err != nil {
			return nil, err
		}
		req.Header.Set("DPoP", proof)
	}
	return req, nil
}

// clientAssertion signs the RFC 7523 §3 client authentication JWT: issuer
// and subject the client, audience the authorization server (its issuer
// and its token endpoint, as servers accept either), valid five minutes.
func (a *Authorizer) clientAssertion(clientID string, as serverMetadata) (string, error) {
	key, alg, err := a.signingKey()
	if err != nil {
		return "", err
	}
	if algs := as.TokenEndpointAuthSigningAlgValuesSupported; len(algs) > 0 && !slices.Contains(algs, alg) {
		return "", fmt.Errorf("the authorization server takes client assertions signed with %s, not %s: set oauth.signing_alg or use another key", strings.Join(algs, ", "), alg)
	}
	method := jwt.GetSigningMethod(alg)
	if method == nil {
		return "", fmt.Errorf("oauth.signing_alg %q is not a JWS algorithm", alg)
	}
	jti, err := transport.GenerateRandomString(24)
	if err != nil {
		return "", err
	}
	now := time.Now()
	aud := jwt.ClaimStrings{as.Issuer}
	if as.TokenEndpoint != as.Issuer {
		aud = append(aud, as.TokenEndpoint)
	}
	claims := jwt.RegisteredClaims{
		Issuer: clientID, Subject: clientID, Audience: aud, ID: jti,
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute)),
	}
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		return "", fmt.Errorf("sign the client assertion with %s: %w", alg, err)
	}
	return s, nil
}

// signingKey reads the configured private key (PEM text or @PATH) and the
// algorithm: the configured one, else the key's usual one.
func (a *Authorizer) signingKey() (any, string, error) {
	pemText := a.cfg.PrivateKey
	if path, ok := strings.CutPrefix(pemText, "@"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, "", fmt.Errorf("oauth.private_key of %s: %w", a.name, err)
		}
		pemText = string(b)
	}
	var key any
	var err error
	if key, err = jwt.ParseECPrivateKeyFromPEM([]byte(pemText)); err != nil {
		if key, err = jwt.ParseRSAPrivateKeyFromPEM([]byte(pemText)); err != nil {
			if key, err = jwt.ParseEdPrivateKeyFromPEM([]byte(pemText)); err != nil {
				return nil, "", fmt.Errorf("oauth.private_key of %s is not a PEM EC, RSA or Ed25519 private key", a.name)
			}
		}
	}
	alg := a.cfg.SigningAlg
	if alg == "" {
		switch k := key.(type) {
		case *ecdsa.PrivateKey:
			switch k.Curve {
			case elliptic.P384():
				alg = "ES384"
			case elliptic.P521():
				alg = "ES512"
			default:
				alg = "ES256"
			}
		case *rsa.PrivateKey:
			alg = "RS256"
		case ed25519.PrivateKey:
			alg = "EdDSA"
		default:
			return nil, "", errors.New("unsupported private key type")
		}
	}
	return key, alg, nil
}
