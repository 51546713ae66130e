package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// OAuth grants a server entry may ask for.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	// GrantCrossApp is the MCP Enterprise-Managed Authorization extension
	// (cross-app access): the user's ID token from the enterprise IdP is
	// exchanged there for an ID-JAG, which the server's authorization
	// server takes as a JWT authorization grant.
	GrantCrossApp = "cross_app"
	// GrantWorkloadIdentity is workload identity federation (MCP SEP-1933):
	// the workload's own identity token from its platform (a Kubernetes
	// service account token, a SPIFFE JWT-SVID, a cloud workload token) is
	// the JWT bearer grant (RFC 7523) at the server's authorization server.
	GrantWorkloadIdentity = "workload_identity"
)

// MCPOAuth is a server's "oauth" entry: how the agent signs in to a remote
// (HTTP or SSE) server. A server without one still signs in when it answers
// 401, with dynamic registration; `"oauth": false` turns that off.
type MCPOAuth struct {
	// Off is JSON false: the server never gets the OAuth flow.
	Off bool `json:"-"`
	// ClientID and ClientSecret are a pre-registered client's.
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	// Scopes, when set, are requested instead of the server's own choice.
	Scopes []string `json:"scopes,omitempty"`
	// CallbackPort is the 127.0.0.1 port the browser is sent back to (0:
	// any free port; set it when the client is registered with one).
	CallbackPort int `json:"callback_port,omitempty"`
	// Grant is authorization_code (the default), client_credentials,
	// cross_app or workload_identity.
	Grant string `json:"grant,omitempty"`
	// WorkloadToken is the workload_identity grant's identity token (a
	// JWT): text or ${VAR}, or @PATH of a file read at each use, as
	// platforms rotate the files they mount.
	WorkloadToken string `json:"workload_token,omitempty"`
	// IdP is the enterprise identity provider of the cross_app grant.
	IdP *MCPOAuthIdP `json:"idp,omitempty"`
	// PrivateKey signs client assertions (private_key_jwt, RFC 7523): PEM
	// text, or @PATH of a PEM file.
	PrivateKey string `json:"private_key,omitempty"`
	// SigningAlg is the JWS algorithm of those assertions (default from the
	// key: ES256 for P-256, RS256 for RSA, ...).
	SigningAlg string `json:"signing_alg,omitempty"`
}

// MCPOAuthIdP is the enterprise identity provider the cross_app grant asks
// for an ID-JAG: its issuer (metadata by OpenID Connect Discovery or RFC
// 8414), the agent's client there, and the user's ID token.
type MCPOAuthIdP struct {
	Issuer       string `json:"issuer"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	// IDToken is the user's OpenID Connect ID token at the IdP: text, or
	// @PATH of a file holding it (read at each use, so a tool may renew
	// it). Empty: the agent signs the user in at the IdP through the
	// browser and keeps the ID token with the other sign-ins.
	IDToken string `json:"id_token,omitempty"`
}

// UnmarshalJSON accepts false, true (the defaults) or an object; scopes may
// be a list or one space-separated string.
func (o *MCPOAuth) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*o = MCPOAuth{}
	switch string(b) {
	case "null", "true":
		return nil
	case "false":
		o.Off = true
		return nil
	}
	type plain MCPOAuth
	var v struct {
		plain
		Scopes json.RawMessage `json:"scopes"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf(`oauth must be false or an object {"client_id", "client_secret", "scopes", "callback_port", "grant", "private_key", "signing_alg", "idp", "workload_token"}: %v`, err)
	}
	*o = MCPOAuth(v.plain)
	if raw := bytes.TrimSpace(v.Scopes); len(raw) > 0 && string(raw) != "null" {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			o.Scopes = strings.Fields(s)
		} else if err := json.Unmarshal(raw, &o.Scopes); err != nil {
			return fmt.Errorf("oauth.scopes must be a list of scopes or one space-separated string, got %s", raw)
		}
	}
	return o.check()
}

// MarshalJSON writes false for an entry that turns OAuth off.
func (o MCPOAuth) MarshalJSON() ([]byte, error) {
	if o.Off {
		return []byte("false"), nil
	}
	type plain MCPOAuth
	return json.Marshal(plain(o))
}

func (o MCPOAuth) check() error {
	switch o.Grant {
	case "", GrantAuthorizationCode:
	case GrantClientCredentials:
		if o.ClientID == "" {
			return fmt.Errorf(`oauth.grant %q needs a "client_id" (and a "client_secret" or a "private_key")`, o.Grant)
		}
		if o.ClientSecret == "" && o.PrivateKey == "" {
			return fmt.Errorf(`oauth.grant %q needs a "client_secret" or a "private_key"`, o.Grant)
		}
	case GrantCrossApp:
		if o.ClientID == "" {
			return fmt.Errorf(`oauth.grant %q needs the "client_id" the server's authorization server knows the agent by`, o.Grant)
		}
		if o.IdP == nil || o.IdP.Issuer == "" || o.IdP.ClientID == "" {
			return fmt.Errorf(`oauth.grant %q needs "idp": {"issuer", "client_id"} (and "client_secret", "id_token" where they apply)`, o.Grant)
		}
	case GrantWorkloadIdentity:
		if strings.TrimSpace(o.WorkloadToken) == "" {
			return fmt.Errorf(`oauth.grant %q needs "workload_token": the workload's identity token, ${VAR} or @PATH of the file the platform mounts`, o.Grant)
		}
	default:
		return fmt.Errorf(`oauth.grant must be %q, %q, %q or %q, got %q`, GrantAuthorizationCode, GrantClientCredentials, GrantCrossApp, GrantWorkloadIdentity, o.Grant)
	}
	if o.WorkloadToken != "" && o.Grant != GrantWorkloadIdentity {
		return fmt.Errorf(`oauth.workload_token is used by "grant": %q only`, GrantWorkloadIdentity)
	}
	if o.IdP != nil && o.Grant != GrantCrossApp {
		return fmt.Errorf(`oauth.idp is used by "grant": %q only`, GrantCrossApp)
	}
	if o.CallbackPort < 0 || o.CallbackPort > 65535 {
		return fmt.Errorf("oauth.callback_port must be a port (1-65535, or 0 for any), got %d", o.CallbackPort)
	}
	if o.SigningAlg != "" && o.PrivateKey == "" {
		return fmt.Errorf(`oauth.signing_alg %q needs a "private_key"`, o.SigningAlg)
	}
	return nil
}

// expand applies ${VAR} to every value.
func (o *MCPOAuth) expand(x func(string) string) {
	if o == nil {
		return
	}
	o.ClientID, o.ClientSecret = x(o.ClientID), x(o.ClientSecret)
	o.PrivateKey, o.SigningAlg, o.Grant = x(o.PrivateKey), x(o.SigningAlg), x(o.Grant)
	o.WorkloadToken = x(o.WorkloadToken)
	if o.IdP != nil {
		idp := *o.IdP // the entry may be shared with a merged copy
		idp.Issuer, idp.ClientID, idp.ClientSecret, idp.IDToken = x(idp.Issuer), x(idp.ClientID), x(idp.ClientSecret), x(idp.IDToken)
		o.IdP = &idp
	}
	if o.Scopes != nil {
		scopes := make([]string, 0, len(o.Scopes))
		for _, s := range o.Scopes {
			scopes = append(scopes, strings.Fields(x(s))...)
		}
		o.Scopes = scopes
	}
}
