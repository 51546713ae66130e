package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mark3labs/mcp-go/client/transport"
)

// DPoP (RFC 9449, the MCP DPoP extension SEP-1932): a token bound to a key
// pair of the agent's, presented with a fresh proof JWT signed by that key
// on every request, so a token that leaks is of no use without the key.
// The agent signs ES256 (P-256), which RFC 9449 and every DPoP server
// support.
const (
	dpopAlg = "ES256"
	// tokenTypeDPoP is the token_type of a bound token (RFC 9449 §5).
	tokenTypeDPoP = "DPoP"
	// maxNonceRetries bounds the times one request is sent again with a
	// server's new DPoP-Nonce (RFC 9449 §8, §9): a server that asks for
	// one more nonce every time must not loop.
	maxNonceRetries = 1
)

// ErrDPoPNonce is a server that asked for a new DPoP nonce again after the
// request was sent with the one it gave.
var ErrDPoPNonce = errors.New("the server keeps asking for a new DPoP nonce")

// ErrDPoPAlgorithm is a DPoP the server asks for with algorithms the agent
// does not sign with.
var ErrDPoPAlgorithm = errors.New("no DPoP algorithm in common")

// dpopKey is the key pair a token is bound to. It is generated for a
// sign-in and kept with its tokens (record.DPoPKey) for as long as they
// are: a refreshed token is bound to the same key (RFC 9449 §5).
type dpopKey struct {
	priv *ecdsa.PrivateKey
	jwk  map[string]string // the public key, as the proofs' header carries it
}

func newDPoPKey() (*dpopKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("make a DPoP key: %w", err)
	}
	return dpopKeyOf(priv)
}

func dpopKeyOf(priv *ecdsa.PrivateKey) (*dpopKey, error) {
	pt, err := priv.PublicKey.Bytes() // 0x04 || X || Y, 32 bytes each
	if err != nil || len(pt) != 65 {
		return nil, errors.New("the DPoP key is not a P-256 key")
	}
	b64 := base64.RawURLEncoding.EncodeToString
	return &dpopKey{priv: priv, jwk: map[string]string{"kty": "EC", "crv": "P-256", "x": b64(pt[1:33]), "y": b64(pt[33:])}}, nil
}

// encode is the private key as kept in the record (SEC 1 DER, base64).
func (k *dpopKey) encode() (string, error) {
	der, err := x509.MarshalECPrivateKey(k.priv)
	if err != nil {
		return "", fmt.Errorf("keep the DPoP key: %w", err)
	}
	return base64.StdEncoding.EncodeToString(der), nil
}

func decodeDPoPKey(s string) (*dpopKey, error) {
	der, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, errors.New("the kept DPoP key is damaged")
	}
	priv, err := x509.ParseECPrivateKey(der)
	if err != nil || priv.Curve != elliptic.P256() {
		return nil, errors.New("the kept DPoP key is damaged")
	}
	return dpopKeyOf(priv)
}

// proof signs a DPoP proof for one request (RFC 9449 §4.2): htu is the
// target without query and fragment; ath the hash of the access token it
// comes with (none at a token endpoint); a fresh jti each time.
func (k *dpopKey) proof(method string, target *url.URL, accessToken, nonce string) (string, error) {
	htu := *target
	htu.RawQuery, htu.ForceQuery, htu.Fragment, htu.RawFragment, htu.User = "", false, "", "", nil
	jti, err := transport.GenerateRandomString(24)
	if err != nil {
		return "", err
	}
	claims := jwt.MapClaims{"jti": jti, "htm": method, "htu": htu.String(), "iat": time.Now().Unix()}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	t := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	t.Header["typ"] = "dpop+jwt"
	t.Header["jwk"] = k.jwk
	s, err := t.SignedString(k.priv)
	if err != nil {
		return "", fmt.Errorf("sign a DPoP proof: %w", err)
	}
	return s, nil
}

// dpopFor decides whether a sign-in asks for a DPoP-bound token, and
// makes its key: when the authorization server advertises ES256 in
// dpop_signing_alg_values_supported, or the resource's challenge is DPoP
// (a server that does not know DPoP ignores the proof and issues a Bearer
// token, RFC 9449 §5). nil: a Bearer sign-in.
func dpopFor(as serverMetadata, ch challenge) (*dpopKey, error) {
	advertised, asked := as.DPoPSigningAlgValuesSupported, strings.Fields(ch.DPoPAlgs)
	switch {
	case slices.Contains(advertised, dpopAlg) && (len(asked) == 0 || slices.Contains(asked, dpopAlg)):
	case ch.DPoP && len(advertised) > 0:
		return nil, fmt.Errorf("%w: the server asks for DPoP and its authorization server %s signs %s, the agent %s", ErrDPoPAlgorithm, as.Issuer, strings.Join(advertised, ", "), dpopAlg)
	case ch.DPoP && len(asked) > 0 && !slices.Contains(asked, dpopAlg):
		return nil, fmt.Errorf("%w: the server takes DPoP proofs signed with %s, the agent signs %s", ErrDPoPAlgorithm, strings.Join(asked, ", "), dpopAlg)
	case ch.DPoP:
	default:
		return nil, nil
	}
	return newDPoPKey()
}

// boundKey is the key the kept token is bound to; bound is true for a
// DPoP token, whose key may still be missing or damaged (then the token
// must not be sent at all: never as a Bearer token). mu is held.
func (a *Authorizer) boundKey() (k *dpopKey, bound bool) {
	t := a.rec.Token
	if t == nil || !strings.EqualFold(t.TokenType, tokenTypeDPoP) {
		return nil, false
	}
	k, err := decodeDPoPKey(a.rec.DPoPKey)
	if err != nil {
		return nil, true
	}
	return k, true
}

// nonces are the latest DPoP-Nonce of each server (by origin): the
// authorization server's and the resource's are each their own (RFC 9449
// §8, §9). Kept in memory only: a nonce is short-lived.
type nonces struct {
	mu sync.Mutex
	m  map[string]string
}

func origin(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }

func (n *nonces) get(u *url.URL) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.m[origin(u)]
}

// note keeps the nonce a response of u's server carries, if any; changed
// is true when it is a new one.
func (n *nonces) note(u *url.URL, h http.Header) (changed bool) {
	v := strings.TrimSpace(h.Get("DPoP-Nonce"))
	if v == "" {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.m == nil {
		n.m = map[string]string{}
	}
	changed = n.m[origin(u)] != v
	n.m[origin(u)] = v
	return changed
}
