package oauth

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// challenge is what a 401 or 403's WWW-Authenticate says: its Bearer
// challenge (RFC 6750 §3, RFC 9728 §5.1), or its DPoP one (RFC 9449 §7.1),
// which carries the same parameters.
type challenge struct {
	ResourceMetadata string
	Scope            string
	Error            string
	// DPoP: the server offered the DPoP scheme; DPoPAlgs are the
	// algorithms it named (space-separated, "" when it named none).
	DPoP     bool
	DPoPAlgs string
}

// parseChallenge reads the Bearer and DPoP challenges of a response; other
// schemes are skipped. A parameter both carry is the first one's.
func parseChallenge(h http.Header) challenge {
	var c challenge
	for _, line := range h.Values("WWW-Authenticate") {
		for _, scheme := range []string{"DPoP", "Bearer"} {
			params, ok := schemeParams(line, scheme)
			if !ok {
				continue
			}
			if scheme == "DPoP" {
				c.DPoP, c.DPoPAlgs = true, params["algs"]
			}
			c.ResourceMetadata = cmp.Or(c.ResourceMetadata, params["resource_metadata"])
			c.Scope = cmp.Or(c.Scope, params["scope"])
			c.Error = cmp.Or(c.Error, params["error"])
		}
	}
	return c
}

// schemeParams finds the scheme in one header value and returns its
// auth-params (token or quoted-string values).
func schemeParams(v, scheme string) (map[string]string, bool) {
	i := 0
	for {
		// Skip to the next word that may be a scheme.
		for i < len(v) && (v[i] == ' ' || v[i] == ',') {
			i++
		}
		if i >= len(v) {
			return nil, false
		}
		j := i
		for j < len(v) && v[j] != ' ' && v[j] != ',' && v[j] != '=' {
			j++
		}
		word := v[i:j]
		if j < len(v) && v[j] == '=' {
			// A parameter of another scheme: skip its value.
			_, j = paramValue(v, j+1)
			i = j
			continue
		}
		i = j
		if !strings.EqualFold(word, scheme) {
			continue
		}
		params := map[string]string{}
		for {
			for i < len(v) && (v[i] == ' ' || v[i] == ',') {
				i++
			}
			k := i
			for k < len(v) && v[k] != '=' && v[k] != ' ' && v[k] != ',' {
				k++
			}
			if k >= len(v) || v[k] != '=' {
				return params, true // the end, or the next scheme
			}
			name := strings.ToLower(v[i:k])
			var val string
			val, i = paramValue(v, k+1)
			params[name] = val
		}
	}
}

// paramValue reads a token or quoted-string starting at i.
func paramValue(v string, i int) (string, int) {
	if i < len(v) && v[i] == '"' {
		var b strings.Builder
		i++
		for i < len(v) && v[i] != '"' {
			if v[i] == '\\' && i+1 < len(v) {
				i++
			}
			b.WriteByte(v[i])
			i++
		}
		return b.String(), i + 1
	}
	j := i
	for j < len(v) && v[j] != ',' && v[j] != ' ' {
		j++
	}
	return v[i:j], j
}

// resourceMetadata is an RFC 9728 protected resource metadata document.
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// serverMetadata is RFC 8414 authorization server metadata, with the
// field of Client ID Metadata Documents mcp-go does not know.
type serverMetadata struct {
	transport.AuthServerMetadata
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported"`
	// IssParameterSupported: the server's authorization responses carry
	// its issuer as iss (RFC 9207 §3).
	IssParameterSupported bool `json:"authorization_response_iss_parameter_supported"`
	// DPoPSigningAlgValuesSupported: the server binds tokens to a DPoP
	// key signing with these (RFC 9449 §5.1).
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported"`
	// discovered is false for the 2025-03-26 default endpoints.
	discovered bool
}

// discovery is what the flow needs to know about a server's authorization.
type discovery struct {
	// resource is the RFC 8707 resource indicator ("" on a 2025-03-26
	// server, which publishes no protected resource metadata).
	resource string
	// scopesSupported is the resource's, from its metadata.
	scopesSupported []string
	as              serverMetadata
}

// ErrResourceMismatch is protected resource metadata naming another resource
// than the server's: a token obtained for it could be used elsewhere, so the
// flow stops (RFC 9728 §3.3).
var ErrResourceMismatch = errors.New("protected resource metadata names another resource")

// discover finds the authorization server of serverURL: protected resource
// metadata from the challenge, then at the path-based and root well-known
// URLs; then that server's RFC 8414 or OpenID metadata. A server with no
// resource metadata is on the 2025-03-26 rules: metadata at its origin,
// else the default /authorize, /token and /register there.
func (a *Authorizer) discover(ctx context.Context, ch challenge) (discovery, error) {
	var d discovery
	prm, found, err := a.resourceMetadata(ctx, ch)
	if err != nil {
		return d, err
	}
	issuer := ""
	if found {
		d.resource = prm.Resource
		if d.resource == "" {
			d.resource = canonicalResource(a.url)
		}
		d.scopesSupported = prm.ScopesSupported
		if len(prm.AuthorizationServers) > 0 {
			issuer = prm.AuthorizationServers[0]
		}
	}
	if issuer == "" {
		// 2025-03-26: the MCP server's origin is the authorization server.
		u, err := url.Parse(a.url)
		if err != nil {
			return d, err
		}
		issuer = u.Scheme + "://" + u.Host
	}
	// An issuer named by resource metadata must be the one the document
	// declares; a 2025-03-26 server's origin is only where its metadata
	// is, and the document's issuer may have a path.
	m, ok, err := a.issuerMetadata(ctx, issuer, found)
	if err != nil {
		return d, err
	}
	if ok {
		d.as = m
		return d, nil
	}
	if found && len(prm.AuthorizationServers) > 0 {
		return d, fmt.Errorf("authorization server %s publishes no metadata (tried %s)", issuer, strings.Join(metadataURLs(issuer), ", "))
	}
	d.as = serverMetadata{AuthServerMetadata: transport.AuthServerMetadata{
		Issuer:                issuer,
		AuthorizationEndpoint: issuer + "/authorize",
		TokenEndpoint:         issuer + "/token",
		RegistrationEndpoint:  issuer + "/register",
	}}
	return d, nil
}

// resourceMetadata fetches the server's protected resource metadata, in
// the order of the MCP authorization spec (2025-11-25).
func (a *Authorizer) resourceMetadata(ctx context.Context, ch challenge) (resourceMetadata, bool, error) {
	var candidates []string
	if ch.ResourceMetadata != "" {
		candidates = append(candidates, ch.ResourceMetadata)
	}
	u, err := url.Parse(a.url)
	if err != nil {
		return resourceMetadata{}, false, err
	}
	root := u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource"
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		candidates = append(candidates, root+p)
	}
	candidates = append(candidates, root)
	for _, c := range candidates {
		var m resourceMetadata
		ok, err := a.getJSON(ctx, c, &m)
		if err != nil {
			return m, false, err
		}
		if !ok {
			continue
		}
		if m.Resource != "" && !resourceCovers(m.Resource, a.url) {
			return m, false, fmt.Errorf("%w: %s says %q, the server is %s; not signing in", ErrResourceMismatch, c, m.Resource, a.url)
		}
		return m, true, nil
	}
	return resourceMetadata{}, false, nil
}

// issuerMetadata fetches the RFC 8414 or OpenID metadata of issuer; ok is
// false when none is published. strict: the document must name issuer.
func (a *Authorizer) issuerMetadata(ctx context.Context, issuer string, strict bool) (serverMetadata, bool, error) {
	for _, mu := range metadataURLs(issuer) {
		m, ok, err := a.fetchServerMetadata(ctx, mu)
		if err != nil {
			return m, false, err
		}
		if !ok {
			continue
		}
		if strict && strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return m, false, fmt.Errorf("authorization server metadata at %s names issuer %q, not %q (RFC 8414 §3.3): refused", mu, m.Issuer, issuer)
		}
		m.discovered = true
		return m, true, nil
	}
	return serverMetadata{}, false, nil
}

// metadataURLs lists where an issuer's metadata may be (RFC 8414 §3.1 path
// insertion, then OpenID Connect Discovery, both forms).
func metadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil
	}
	origin := u.Scheme + "://" + u.Host
	p := strings.Trim(u.EscapedPath(), "/")
	if p == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server/" + p,
		origin + "/.well-known/openid-configuration/" + p,
		origin + "/" + p + "/.well-known/openid-configuration",
	}
}

func (a *Authorizer) fetchServerMetadata(ctx context.Context, u string) (serverMetadata, bool, error) {
	var m serverMetadata
	ok, err := a.getJSON(ctx, u, &m)
	if err != nil || !ok {
		return m, ok, err
	}
	for _, e := range []string{m.AuthorizationEndpoint, m.TokenEndpoint, m.RegistrationEndpoint} {
		if e == "" {
			continue
		}
		if eu, err := url.Parse(e); err != nil || (eu.Scheme != "https" && eu.Scheme != "http") || eu.Host == "" {
			return m, false, fmt.Errorf("authorization server metadata at %s has an endpoint that is not an http(s) URL: %q", u, e)
		}
	}
	if m.TokenEndpoint == "" {
		return m, false, fmt.Errorf("authorization server metadata at %s has no token_endpoint", u)
	}
	return m, true, nil
}

// getJSON fetches a metadata document: ok is false for a 4xx answer (not
// published there) and for a body that is not JSON.
func (a *Authorizer) getJSON(ctx context.Context, u string, v any) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, nil
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", mcpgo.LATEST_PROTOCOL_VERSION)
	resp, err := a.http.Do(req)
	if err != nil {
		return false, fmt.Errorf("fetch %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return false, nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v); err != nil {
		return false, nil
	}
	return true, nil
}

// resourceCovers reports whether the resource a metadata document names is
// the server or a parent of it: same scheme and host, and a path that is
// the server's or a whole-segment prefix of it.
func resourceCovers(resource, server string) bool {
	r, err1 := url.Parse(resource)
	s, err2 := url.Parse(server)
	if err1 != nil || err2 != nil || !strings.EqualFold(r.Scheme, s.Scheme) || !strings.EqualFold(r.Host, s.Host) || r.RawQuery != "" {
		return false
	}
	rp, sp := strings.TrimSuffix(r.Path, "/"), strings.TrimSuffix(s.Path, "/")
	return rp == "" || rp == sp || strings.HasPrefix(sp, rp+"/")
}

// canonicalResource is the server URL without fragment (RFC 8707 §2).
func canonicalResource(server string) string {
	u, err := url.Parse(server)
	if err != nil {
		return server
	}
	u.Fragment = ""
	return u.String()
}
