package oauth

import (
	"net/http"
	"testing"
)

// The challenges of a 401: Bearer (RFC 6750), DPoP (RFC 9449 §7.1) or both,
// in one header value or several; other schemes and their parameters are
// skipped.
func TestParseChallenge(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   challenge
	}{
		{"bearer", []string{`Bearer resource_metadata="https://r/.well-known/x", scope="a b"`},
			challenge{ResourceMetadata: "https://r/.well-known/x", Scope: "a b"}},
		{"dpop only", []string{`DPoP resource_metadata="https://r/m"`},
			challenge{ResourceMetadata: "https://r/m", DPoP: true}},
		{"dpop nonce error with algs", []string{`DPoP error="use_dpop_nonce", algs="ES256 PS256", resource_metadata="https://r/m"`},
			challenge{ResourceMetadata: "https://r/m", Error: "use_dpop_nonce", DPoP: true, DPoPAlgs: "ES256 PS256"}},
		{"both in one value", []string{`Bearer realm="mcp", scope="read", DPoP algs="ES256"`},
			challenge{Scope: "read", DPoP: true, DPoPAlgs: "ES256"}},
		{"both in two values", []string{`Basic realm="x"`, `Bearer error="invalid_token"`, `DPoP algs=ES256, resource_metadata="https://r/m"`},
			challenge{ResourceMetadata: "https://r/m", Error: "invalid_token", DPoP: true, DPoPAlgs: "ES256"}},
		{"a parameter named like a scheme", []string{`Basic dpop="x", realm="y"`}, challenge{}},
		{"none", nil, challenge{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tt.values {
				h.Add("WWW-Authenticate", v)
			}
			if got := parseChallenge(h); got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// Whether a sign-in asks for a DPoP-bound token: the agent signs ES256,
// and uses DPoP when the authorization server or the resource asks for it,
// refusing only where DPoP is asked for with no algorithm in common.
func TestDPoPFor(t *testing.T) {
	tests := []struct {
		name    string
		as      []string
		ch      challenge
		wantKey bool
		wantErr bool
	}{
		{name: "neither asks", wantKey: false},
		{name: "authorization server advertises ES256", as: []string{"RS256", "ES256"}, wantKey: true},
		{name: "resource asks, server silent", ch: challenge{DPoP: true}, wantKey: true},
		{name: "resource asks for ES256", ch: challenge{DPoP: true, DPoPAlgs: "ES256"}, wantKey: true},
		{name: "server advertises others only, resource silent", as: []string{"RS256"}, wantKey: false},
		{name: "resource asks, server signs others", as: []string{"RS256"}, ch: challenge{DPoP: true}, wantErr: true},
		{name: "resource asks for others", ch: challenge{DPoP: true, DPoPAlgs: "PS256"}, wantErr: true},
		{name: "server ES256, resource others", as: []string{"ES256"}, ch: challenge{DPoP: true, DPoPAlgs: "PS256"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := serverMetadata{DPoPSigningAlgValuesSupported: tt.as}
			k, err := dpopFor(as, tt.ch)
			if (err != nil) != tt.wantErr || (k != nil) != tt.wantKey {
				t.Fatalf("key %v, err %v; want key %v, error %v", k != nil, err, tt.wantKey, tt.wantErr)
			}
		})
	}
}
