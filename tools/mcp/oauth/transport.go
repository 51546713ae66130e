package oauth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxStepUps bounds the re-authorizations one request may cause with 403
// insufficient_scope (a server that never accepts must not loop).
const maxStepUps = 2

// Wrap returns an HTTP transport that sends the server's token, refreshes
// it before it expires and on a 401, signs in again when the server asks
// (a 401 with no usable token, a 403 insufficient_scope), and otherwise
// fails the request with a SignInError.
func (a *Authorizer) Wrap(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &roundTripper{a: a, base: base}
}

type roundTripper struct {
	a    *Authorizer
	base http.RoundTripper
}

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		// JSON-RPC messages are small; the body is sent again after a
		// sign-in. (GET streams have none.)
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	ctx := req.Context()
	stepUps, retried, nonceRetries := 0, false, 0
	for {
		r := req.Clone(ctx)
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		t.a.mu.Lock()
		tok, err := t.a.token(ctx)
		dk, bound := t.a.boundKey()
		t.a.mu.Unlock()
		if err != nil {
			return nil, err
		}
		if bound && dk == nil {
			// A DPoP token whose key is lost is of no use, and is never
			// sent as a Bearer token: the server asks for a sign-in.
			tok = ""
		}
		if err := t.a.credentials(r, tok, dk); err != nil {
			return nil, err
		}
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		fresh := dk != nil && t.a.nonces.note(r.URL, resp.Header)
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			ch := parseChallenge(resp.Header)
			discard(resp)
			if dk != nil && ch.Error == "use_dpop_nonce" {
				// RFC 9449 §9: the same request again, its proof with
				// the server's nonce; not a refusal of the token.
				if !fresh || nonceRetries >= maxNonceRetries {
					return nil, fmt.Errorf("MCP server %s: %w", t.a.name, ErrDPoPNonce)
				}
				nonceRetries++
				continue
			}
			if retried {
				return nil, t.a.refused(t.a.signInError("the server refused the new token"))
			}
			retried = true
			if err := t.a.recover(ctx, tok, ch); err != nil {
				return nil, t.a.refused(err)
			}
			dropIdle(t.base)
			continue
		case http.StatusForbidden:
			ch := parseChallenge(resp.Header)
			if ch.Error != "insufficient_scope" || stepUps >= maxStepUps {
				return resp, nil
			}
			discard(resp)
			stepUps++
			if err := t.a.stepUp(ctx, ch); err != nil {
				return nil, err
			}
			dropIdle(t.base)
			continue
		}
		return resp, nil
	}
}

// credentials sets the request's credentials: a Bearer token, or a DPoP
// token with a proof of its key for this request (RFC 9449 §7.1: method,
// URL, the token's hash, the server's latest nonce).
func (a *Authorizer) credentials(r *http.Request, tok string, dk *dpopKey) error {
	if tok == "" {
		return nil
	}
	if dk == nil {
		r.Header.Set("Authorization", "Bearer "+tok)
		return nil
	}
	proof, err := dk.proof(r.Method, r.URL, tok, a.nonces.get(r.URL))
	if err != nil {
		return err
	}
	r.Header.Set("Authorization", tokenTypeDPoP+" "+tok)
	r.Header.Set("DPoP", proof)
	return nil
}

// refused keeps err for TakeRefusal when it is a SignInError.
func (a *Authorizer) refused(err error) error {
	if se := (*SignInError)(nil); errors.As(err, &se) {
		a.refusal.Store(se)
	}
	return err
}

func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}

// recover answers a 401 to a request sent with token used: another
// request's sign-in or refresh may already have replaced it; else refresh,
// else the client credentials or cross-app grant, else the browser flow when the
// connection is up and a browser can be used; else a SignInError.
func (a *Authorizer) recover(ctx context.Context, used string, ch challenge) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.last = ch
	if t := a.rec.Token; t != nil && t.AccessToken != used && !t.IsExpired() {
		return nil // replaced while this request was out: send it again
	}
	a.rebind(ctx, ch)
	if a.rec.Token != nil && a.rec.Token.RefreshToken != "" {
		if err := a.refresh(ctx); err == nil {
			return nil
		}
	}
	if a.machineGrant() {
		return a.authorize(ctx, ch, nil)
	}
	if a.live.Load() && a.opts.Prompt != nil {
		sctx, done := signInContext(ctx)
		defer done()
		return a.authorize(sctx, ch, nil)
	}
	reason := ""
	if a.rec.Token != nil {
		reason = "the server no longer accepts the stored token"
	}
	return a.signInError(reason)
}

// rebind forgets the token when the server's protected resource metadata
// now names another authorization server than the one it came from (MCP
// SEP-2352): a registration and its tokens belong to one authorization
// server, so the old server's refresh token would only bring a token the
// resource no longer takes. The kept client stays as the record of where
// it is registered: the sign-in that follows discovers the new server and
// registers there (identity), or refuses to show it a configured client
// used with the old one. A metadata document that cannot be read changes
// nothing: the sign-in reads it again and says what is wrong. mu is held.
func (a *Authorizer) rebind(ctx context.Context, ch challenge) {
	c := a.rec.Client
	if c == nil || c.Issuer == "" {
		return
	}
	prm, found, err := a.resourceMetadata(ctx, ch)
	if err != nil || !found || len(prm.AuthorizationServers) == 0 {
		return
	}
	// The kept issuer is the one its metadata declared, which may differ
	// from the resource's entry by a trailing slash (discover allows that).
	if sameIssuer(prm.AuthorizationServers[0], c.Issuer) {
		return
	}
	a.rec.Token = nil
	_ = a.store.save(a.name, a.url, a.rec)
}

// stepUp signs in again asking for the scopes the 403 names on top of those
// granted.
func (a *Authorizer) stepUp(ctx context.Context, ch challenge) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.last = ch
	var granted []string
	if a.rec.Token != nil {
		granted = strings.Fields(a.rec.Token.Scope)
	}
	if !a.machineGrant() && a.opts.Prompt == nil {
		return a.signInError("the server asks for more scope: " + ch.Scope)
	}
	sctx, done := signInContext(ctx)
	defer done()
	return a.authorize(sctx, ch, granted)
}

// signInContext keeps the request's cancellation but not its deadline,
// which was set for a server's answer, not a person's sign-in; the sign-in
// has its own (Options.Timeout).
func signInContext(ctx context.Context) (context.Context, func()) {
	c, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel()
		}
	})
	return c, func() { stop(); cancel() }
}
