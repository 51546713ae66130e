package mcp

import (
	"errors"
	"fmt"
	"net/http"
)

// ErrCrossOriginRedirect is a redirect of an HTTP MCP server to another
// origin, which is not followed.
var ErrCrossOriginRedirect = errors.New("redirect to another origin refused")

// maxRedirects is net/http's own limit.
const maxRedirects = 10

// sameOriginRedirects follows a server's redirects only within the origin
// (scheme, host and port) the request went to. Go's client would carry the
// configured headers (all but Authorization and Cookie) and, on a 307 or
// 308, the JSON-RPC body with the tool's arguments to whatever host the
// server names; a browser would not send them cross-origin either. The
// user configured that URL, not the one a server points to.
func sameOriginRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	from := via[0].URL
	if req.URL.Scheme != from.Scheme || req.URL.Host != from.Host {
		return fmt.Errorf("%w: %s redirected to %s://%s; neither the configured headers nor the request were sent there (configure that URL for the server if you trust it)",
			ErrCrossOriginRedirect, from.Scheme+"://"+from.Host, req.URL.Scheme, req.URL.Host)
	}
	return nil
}
