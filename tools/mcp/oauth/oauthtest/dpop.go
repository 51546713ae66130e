package oauthtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DPoP makes the Server bind its tokens to the client's DPoP key (RFC
// 9449) when a token request carries a proof: token_type DPoP, a refresh
// token that needs a proof of the same key, and a resource that takes such
// a token only as "Authorization: DPoP" with a valid proof of that key
// for the request (typ, ES256 signature by the header's public jwk, htm,
// htu without query or fragment, iat within a minute, a jti never seen,
// ath the token's hash). A bound token sent as Bearer is refused.
type DPoP struct {
	// Unadvertised: the metadata has no dpop_signing_alg_values_supported;
	// the resource's challenge alone is DPoP.
	Unadvertised bool
	// TokenNonce and ResourceNonce make the token endpoint and the
	// resource answer use_dpop_nonce (with a DPoP-Nonce) to a proof that
	// lacks their latest nonce (RFC 9449 §8, §9).
	TokenNonce, ResourceNonce bool
	// NewNonceEachTime: every proof is answered use_dpop_nonce with a new
	// nonce, so a client that retries without bound would never stop.
	NewNonceEachTime bool
}

// Proof is a DPoP proof the Server accepted or refused, decoded.
type Proof struct {
	// Path is the endpoint's ("/token", "/mcp").
	Path   string
	Header map[string]any
	Claims jwt.MapClaims
}

// Workload makes the token endpoint take workload identity tokens as JWT
// bearer grants (MCP SEP-1933) from any client, registered or not: signed
// by Key, audience the server's issuer, not expired.
type Workload struct {
	Key *ecdsa.PublicKey
}

// dpopState is the Server's DPoP bookkeeping; s.mu guards it.
type dpopState struct {
	proofs              []Proof
	jtis                map[string]bool
	tokenNonce, rsNonce string
	nonces              int
	// jkt is the key the token request being answered proved (RFC 7638
	// thumbprint), "" for none: what its tokens are bound to.
	jkt string
}

// Proofs returns the DPoP proofs the server saw, in order.
func (s *Server) Proofs() []Proof {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Proof(nil), s.dpop.proofs...)
}

// nextNonce makes a new nonce; s.mu is held.
func (s *Server) nextNonce() string {
	s.dpop.nonces++
	return "nonce-" + strconv.Itoa(s.dpop.nonces)
}

// checkProof verifies the request's DPoP proof for the endpoint (with
// accessToken, its ath) and returns the key's thumbprint (RFC 7638) and
// the proof's nonce; why says what is wrong. s.mu is held.
func (s *Server) checkProof(r *http.Request, accessToken string) (jkt, nonce, why string) {
	vals := r.Header.Values("DPoP")
	if len(vals) != 1 || strings.Contains(vals[0], ",") {
		return "", "", "want exactly one DPoP header"
	}
	var jwk map[string]any
	claims := jwt.MapClaims{}
	tok, err := jwt.ParseWithClaims(vals[0], claims, func(t *jwt.Token) (any, error) {
		if t.Header["typ"] != "dpop+jwt" {
			return nil, errors.New("typ must be dpop+jwt")
		}
		jwk, _ = t.Header["jwk"].(map[string]any)
		if jwk == nil || jwk["d"] != nil || jwk["kty"] != "EC" || jwk["crv"] != "P-256" {
			return nil, errors.New("jwk must be a public P-256 key")
		}
		return publicKey(jwk)
	}, jwt.WithValidMethods([]string{"ES256"}), jwt.WithIssuedAt())
	p := Proof{Path: r.URL.Path, Claims: claims}
	if tok != nil {
		p.Header = tok.Header
	}
	s.dpop.proofs = append(s.dpop.proofs, p)
	if err != nil {
		return "", "", "proof: " + err.Error()
	}
	htu, _ := claims["htu"].(string)
	jti, _ := claims["jti"].(string)
	iat, _ := claims["iat"].(float64)
	nonce, _ = claims["nonce"].(string)
	switch {
	case claims["htm"] != r.Method:
		return "", "", "htm is not the request's method"
	case strings.ContainsAny(htu, "?#"):
		return "", "", "htu has a query or fragment"
	case htu != s.URL+r.URL.Path:
		return "", "", fmt.Sprintf("htu %q is not %s", htu, s.URL+r.URL.Path)
	case time.Since(time.Unix(int64(iat), 0)).Abs() > time.Minute:
		return "", "", "iat is not now"
	case jti == "" || s.dpop.jtis[jti]:
		return "", "", "jti missing or replayed"
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		if claims["ath"] != base64.RawURLEncoding.EncodeToString(sum[:]) {
			return "", "", "ath is not the token's hash"
		}
	} else if claims["ath"] != nil {
		return "", "", "ath at the token endpoint"
	}
	if s.dpop.jtis == nil {
		s.dpop.jtis = map[string]bool{}
	}
	s.dpop.jtis[jti] = true
	sum := sha256.Sum256(fmt.Appendf(nil, `{"crv":"P-256","kty":"EC","x":"%s","y":"%s"}`, jwk["x"], jwk["y"]))
	return base64.RawURLEncoding.EncodeToString(sum[:]), nonce, ""
}

func publicKey(jwk map[string]any) (*ecdsa.PublicKey, error) {
	point := []byte{4} // uncompressed: 0x04 || X || Y
	for _, k := range []string{"x", "y"} {
		v, _ := jwk[k].(string)
		b, err := base64.RawURLEncoding.DecodeString(v)
		if err != nil || len(b) != 32 {
			return nil, fmt.Errorf("jwk %s must be 32 bytes, base64url", k)
		}
		point = append(point, b...)
	}
	return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point)
}

// tokenProof checks a token request's proof, if any: "" jkt for none. ok
// is false when the request was answered (an invalid proof, or a nonce
// asked for). s.mu is held.
func (s *Server) tokenProof(w http.ResponseWriter, r *http.Request) (jkt string, ok bool) {
	if s.DPoP == nil || r.Header.Get("DPoP") == "" {
		return "", true
	}
	jkt, nonce, why := s.checkProof(r, "")
	if why != "" {
		s.fail(w, r, 400, "invalid_dpop_proof", why)
		return "", false
	}
	if s.DPoP.TokenNonce && (s.DPoP.NewNonceEachTime || nonce == "" || nonce != s.dpop.tokenNonce) {
		if s.dpop.tokenNonce == "" || s.DPoP.NewNonceEachTime {
			s.dpop.tokenNonce = s.nextNonce()
		}
		w.Header().Set("DPoP-Nonce", s.dpop.tokenNonce)
		s.fail(w, r, 400, "use_dpop_nonce", "a DPoP nonce is required")
		return "", false
	}
	return jkt, true
}

// presented reads the Authorization header: its scheme ("Bearer" or
// "DPoP") and token.
func presented(r *http.Request) (scheme, tok string) {
	scheme, tok, _ = strings.Cut(r.Header.Get("Authorization"), " ")
	return scheme, strings.TrimSpace(tok)
}

// resourceProof checks how a token with grant g was presented: a bound one
// as DPoP with a proof of its key (and the latest nonce), an unbound one as
// Bearer. It answers and returns false when the request is refused. s.mu
// is held.
func (s *Server) resourceProof(w http.ResponseWriter, r *http.Request, scheme, tok string, g *grant, meta string) bool {
	refuse := func(detail, chalErr string) bool {
		chal := fmt.Sprintf(`DPoP algs="ES256", resource_metadata="%s", error="%s"`, meta, chalErr)
		w.Header().Set("WWW-Authenticate", chal)
		s.record(r, 401, detail)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return false
	}
	switch {
	case g.jkt == "" && scheme == "Bearer":
		return true
	case g.jkt == "":
		return refuse("unbound token as "+scheme, "invalid_token")
	case scheme != "DPoP":
		return refuse("bound token as "+scheme, "invalid_token")
	}
	jkt, nonce, why := s.checkProof(r, tok)
	if why != "" {
		return refuse("invalid_dpop_proof: "+why, "invalid_dpop_proof")
	}
	if jkt != g.jkt {
		return refuse("proof of another key", "invalid_token")
	}
	if s.DPoP.ResourceNonce && (s.DPoP.NewNonceEachTime || nonce == "" || nonce != s.dpop.rsNonce) {
		if s.dpop.rsNonce == "" || s.DPoP.NewNonceEachTime {
			s.dpop.rsNonce = s.nextNonce()
		}
		w.Header().Set("DPoP-Nonce", s.dpop.rsNonce)
		return refuse("use_dpop_nonce", "use_dpop_nonce")
	}
	return true
}

// workloadGrant answers a JWT bearer grant of a workload identity token
// (Workload). s.mu is held.
func (s *Server) workloadGrant(w http.ResponseWriter, r *http.Request) {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(r.PostForm.Get("assertion"), &claims, func(*jwt.Token) (any, error) {
		return s.Workload.Key, nil
	}, jwt.WithAudience(s.URL), jwt.WithExpirationRequired(), jwt.WithValidMethods([]string{"ES256"}))
	switch {
	case err != nil:
		s.fail(w, r, 400, "invalid_grant", "assertion: "+err.Error())
	case r.PostForm.Get("resource") != s.ResourceURL:
		s.fail(w, r, 400, "invalid_target", "resource must be "+s.ResourceURL)
	default:
		s.issueAccess(w, r, &Client{ID: "workload:" + claims.Subject}, strings.Fields(r.PostForm.Get("scope")), s.ResourceURL, "", false)
	}
}
