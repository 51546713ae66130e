package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/golang-jwt/jwt/v5"

	"github.com/agent-dev/agent/config"
)

// WorkloadTokenError is a workload identity token (oauth.workload_token)
// that cannot be used: a file that is missing, unreadable or empty, or text
// that is not a JWT. It never carries the token.
type WorkloadTokenError struct {
	// Path is the file's, "" for a token given as text or ${VAR}.
	Path string
	// Reason says what is wrong, in a few words.
	Reason string
}

func (e *WorkloadTokenError) Error() string {
	where := "oauth.workload_token"
	if e.Path != "" {
		where += " file " + e.Path
	}
	return where + ": " + e.Reason
}

// GrantError is a machine grant's failure that ends the request instead of
// sending it without a token (finalGrantError): the server's name and what
// went wrong, in one line.
type GrantError struct {
	Server string
	Err    error
}

func (e *GrantError) Error() string { return "MCP server " + e.Server + ": " + e.Err.Error() }

func (e *GrantError) Unwrap() error { return e.Err }

// workloadToken reads the workload's identity token: text or ${VAR} (the
// config expanded it), or @PATH read at each use, as platforms rotate the
// files they mount (a Kubernetes projected service account token lives an
// hour).
func (a *Authorizer) workloadToken() (string, error) {
	v := strings.TrimSpace(a.cfg.WorkloadToken)
	path, isFile := strings.CutPrefix(v, "@")
	fail := func(reason string) error {
		e := &WorkloadTokenError{Reason: reason}
		if isFile {
			e.Path = path
		}
		return e
	}
	if isFile {
		b, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return "", fail("no such file (the platform mounts it where the workload runs)")
		case err != nil:
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the path is named already
			}
			return "", fail(err.Error())
		}
		v = strings.TrimSpace(string(b))
	}
	if v == "" {
		return "", fail("empty")
	}
	if _, _, err := jwt.NewParser().ParseUnverified(v, jwt.MapClaims{}); err != nil {
		return "", fail("not a JWT")
	}
	return v, nil
}

// workload gets a token by workload identity federation (MCP SEP-1933):
// the workload's identity token from its platform is the RFC 7523 JWT
// bearer grant at the server's authorization server, which trusts its
// issuer. No client registration: a configured client_id (and its
// authentication) is sent when there is one. mu is held.
func (a *Authorizer) workload(ctx context.Context, d discovery, scopes []string, dk *dpopKey) error {
	assertion, err := a.workloadToken()
	if err != nil {
		return err
	}
	c := &client{Issuer: d.as.Issuer, AuthMethod: authNone, registeredBy: "config"}
	if a.cfg.ClientID != "" {
		if c, err = a.identity(ctx, d, "", &a.rec); err != nil {
			return err
		}
	}
	resource := d.resource
	if resource == "" {
		resource = canonicalResource(a.url) // a 2025-03-26 server publishes none
	}
	return a.presentJWT(ctx, d, c, resource, assertion, scopes, dk, "the workload identity token")
}

// presentJWT presents assertion (what names it) as the RFC 7523 JWT
// bearer grant at the server's authorization server and keeps the token it
// gets: the last step of both the cross-app grant (an ID-JAG) and workload
// identity federation (the platform's token). mu is held.
func (a *Authorizer) presentJWT(ctx context.Context, d discovery, c *client, resource, assertion string, scopes []string, dk *dpopKey, what string) error {
	form := url.Values{"grant_type": {grantJWTBearer}, "assertion": {assertion}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	tok, err := a.tokenRequest(ctx, d.as, c, resource, form, dk)
	if err != nil {
		return fmt.Errorf("present %s to %s: %w", what, d.as.Issuer, err)
	}
	if tok.Scope == "" {
		tok.Scope = strings.Join(scopes, " ")
	}
	return a.keep(c, d, tok, dk)
}

// finalGrantError tells whether a machine grant's failure is the last
// word, so the request fails with it instead of going out without a token
// to try the grant again on the 401: for workload identity, a token that
// cannot be read, and an authorization server's refusal (SEP-1933: a
// refused JWT bearer grant is not retried, nor another grant tried).
func (a *Authorizer) finalGrantError(err error) bool {
	if a.cfg.Grant != config.GrantWorkloadIdentity {
		return false
	}
	var we *WorkloadTokenError
	var te *TokenError
	return errors.As(err, &we) || errors.As(err, &te)
}
