package vertex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"golang.org/x/oauth2"

	"github.com/agent-dev/agent/providers/internal/claudeplatform"
)

// transport adds the access token and rewrites Google's error bodies in the
// Messages API's shape.
type transport struct {
	base http.RoundTripper
	ts   oauth2.TokenSource
	// anthropic rewrites Google's error bodies for the Anthropic adapter;
	// without it (Gemini) they are kept, with the login hint on a 401.
	anthropic bool
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	tok, err := t.ts.Token()
	if err != nil {
		return nil, &claudeplatform.AuthError{Platform: Name, Err: tokenError(err), Hint: loginHint}
	}
	r = r.Clone(r.Context())
	tok.SetAuthHeader(r)
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode/100 == 2:
	case t.anthropic:
		return anthropicError(resp), nil
	case resp.StatusCode == 401:
		return hinted(resp), nil
	}
	return resp, nil
}

// tokenError keeps the token endpoint's own words (error and description),
// which say why (expired, revoked, bad key), without the response dump.
func tokenError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		msg := re.ErrorCode
		if re.ErrorDescription != "" {
			msg += ": " + re.ErrorDescription
		}
		if msg == "" {
			msg = strings.TrimSpace(string(re.Body))
			if len(msg) > 300 {
				msg = msg[:300] + "…"
			}
		}
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		return fmt.Errorf("the Google token endpoint refused to issue an access token (%d): %s", status, msg)
	}
	return fmt.Errorf("could not get a Google access token: %w", err)
}

// anthropicError rewrites a Google API error ({"error": {"code", "message",
// "status"}}, sometimes in a one-element array) in the Messages API's shape;
// an Anthropic-shaped body (the model's own 4xx) is kept.
func anthropicError(resp *http.Response) *http.Response {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	var anth struct {
		Error struct {
			Type string `json:"type"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &anth) != nil || anth.Error.Type == "" {
		type gerr struct {
			Error struct {
				Message string `json:"message"`
				Status  string `json:"status"`
			} `json:"error"`
		}
		var g gerr
		if json.Unmarshal(data, &g) != nil {
			var arr []gerr
			if json.Unmarshal(data, &arr) == nil && len(arr) > 0 {
				g = arr[0]
			}
		}
		msg := g.Error.Message
		if msg == "" {
			msg = strings.TrimSpace(string(data))
			if len(msg) > 500 {
				msg = msg[:500] + "…"
			}
		}
		if g.Error.Status != "" {
			msg = g.Error.Status + ": " + msg
		}
		typ := "api_error"
		switch resp.StatusCode {
		case 400:
			typ = "invalid_request_error"
		case 401:
			typ = "authentication_error"
		case 403:
			typ = "permission_error"
		case 404:
			typ = "not_found_error"
		case 429:
			typ = "rate_limit_error"
		case 529, 503:
			typ = "overloaded_error"
		}
		if resp.StatusCode == 401 {
			msg += " — " + loginHint
		}
		if resp.StatusCode == 404 {
			msg += " — check --model (Vertex names it like claude-sonnet-4-5@20250929), CLOUD_ML_REGION and that the model is enabled in the project"
		}
		data, _ = json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	resp.Header.Set("Content-Type", "application/json")
	return resp
}

// hinted adds what to run to a Google error body's message.
func hinted(resp *http.Response) *http.Response {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	var g map[string]map[string]any
	if json.Unmarshal(data, &g) == nil && g["error"] != nil {
		msg, _ := g["error"]["message"].(string)
		g["error"]["message"] = msg + " — " + loginHint
		data, _ = json.Marshal(g)
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	return resp
}
