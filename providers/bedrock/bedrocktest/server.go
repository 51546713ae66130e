// Package bedrocktest is a strict fake of Bedrock's InvokeModel for Claude:
// it serves /model/{id}/invoke and /model/{id}/invoke-with-response-stream,
// verifies each request's SigV4 signature by recomputing it with the SDK's
// signer (or a Bedrock API key), enforces the body rules (no "model", no
// "stream", anthropic_version bedrock-2023-05-31, anthropic_beta an array),
// answers streams as AWS event-stream frames whose chunks carry base64
// Messages API events, and errors as AWS does ({"message"} plus
// X-Amzn-ErrorType). Everything about the Messages body itself is checked,
// and answered, by an inner anthropictest fake: set its Script or queue.
package bedrocktest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/bedrock"
	"github.com/agent-dev/agent/providers/internal/claudeplatform/platformtest"
	"github.com/agent-dev/agent/providers/sse"
)

// Test credentials (not real: the fake only recomputes signatures with them).
const (
	AccessKey = "AKIDFAKEBEDROCK00001"
	SecretKey = "fake/secret/key/for/the/bedrock/test/only"
	Region    = "us-east-1"
)

// Server is a running fake.
type Server struct {
	URL string
	// Inner answers the Messages requests; set its Script or Enqueue on it.
	Inner *anthropictest.Server
	// AccessKey, SecretKey and SessionToken are the credentials accepted.
	AccessKey, SecretKey, SessionToken string
	Region                             string
	// BearerToken, when set, is accepted as a Bedrock API key.
	BearerToken string
	// Now is the server's clock for the signature's freshness check.
	Now func() time.Time

	log platformtest.Log
}

// NewServer starts a fake closed with the test.
func NewServer(t testing.TB) *Server {
	s := &Server{Inner: anthropictest.NewServer(t), AccessKey: AccessKey, SecretKey: SecretKey, Region: Region, Now: time.Now}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Requests returns every request received, rejected ones included.
func (s *Server) Requests() []*platformtest.Request { return s.log.All() }

// Rejected returns the requests the fake refused.
func (s *Server) Rejected() []*platformtest.Request { return s.log.Rejected() }

// Credentials are the static credentials the fake accepts.
func (s *Server) Credentials() aws.CredentialsProvider {
	return aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: s.AccessKey, SecretAccessKey: s.SecretKey, SessionToken: s.SessionToken, Source: "bedrocktest"}, nil
	})
}

var route = regexp.MustCompile(`^/model/([^/]+)/(invoke|invoke-with-response-stream)$`)

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	req := &platformtest.Request{Method: hr.Method, Path: hr.URL.EscapedPath(), Header: hr.Header.Clone(), Body: body}
	s.log.Add(req)
	reject := func(status int, exc, msg string) {
		req.Status, req.Rejection = status, exc+": "+msg
		writeError(w, status, exc, msg)
	}
	m := route.FindStringSubmatch(hr.URL.EscapedPath())
	if hr.Method != http.MethodPost || m == nil {
		reject(404, "UnknownOperationException", "")
		return
	}
	model, err := url.PathUnescape(m[1])
	if err != nil {
		reject(400, "ValidationException", "bad model id")
		return
	}
	req.Model, req.Stream = model, m[2] == "invoke-with-response-stream"
	if status, exc, msg := s.authorize(hr, body); status != 0 {
		reject(status, exc, msg)
		return
	}
	b, err := platformtest.ParseBody(body)
	if err != nil {
		reject(400, "ValidationException", "Malformed input request, please reformat your input and try again.")
		return
	}
	for _, k := range []string{"model", "stream"} {
		if _, ok := b[k]; ok {
			reject(400, "ValidationException", "Malformed input request: #: extraneous key ["+k+"] is not permitted, please reformat your input and try again.")
			return
		}
	}
	if v := b.Version(); v != bedrock.Version {
		reject(400, "ValidationException", `Malformed input request: #/anthropic_version: expected "bedrock-2023-05-31", got "`+v+`"`)
		return
	}
	if msg := b.UnavailableTool(bedrock.Name); msg != "" {
		reject(400, "ValidationException", "Malformed input request: "+msg+", please reformat your input and try again.")
		return
	}
	if hr.Header.Get("anthropic-beta") != "" {
		reject(400, "ValidationException", "anthropic-beta is read from the body's anthropic_beta array on Bedrock, not from a header")
		return
	}
	inner, betas, err := b.Messages(model, req.Stream)
	if err != nil {
		reject(400, "ValidationException", "Malformed input request: "+err.Error())
		return
	}
	resp, err := platformtest.Forward(hr.Context(), s.Inner, inner, betas, nil)
	if err != nil {
		reject(500, "InternalServerException", err.Error())
		return
	}
	defer resp.Body.Close()
	w.Header().Set("X-Amzn-Requestid", "fake-bedrock-request")
	if resp.StatusCode != 200 {
		typ, msg := platformtest.InnerError(resp)
		status, exc := awsError(resp.StatusCode, typ)
		reject(status, exc, msg)
		return
	}
	req.Status = 200
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, resp.Body)
		return
	}
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	writeStream(w, resp.Body)
}

// authorize checks a Bedrock API key or recomputes the SigV4 signature over
// the headers the client signed, with the SDK's own signer.
func (s *Server) authorize(hr *http.Request, body []byte) (int, string, string) {
	auth := hr.Header.Get("Authorization")
	if tok, ok := strings.CutPrefix(auth, "Bearer "); ok {
		if s.BearerToken == "" || tok != s.BearerToken {
			return 403, "UnrecognizedClientException", "The security token included in the request is invalid."
		}
		return 0, "", ""
	}
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 ") {
		return 403, "MissingAuthenticationTokenException", "Missing Authentication Token"
	}
	var cred, signed string
	for _, f := range strings.Split(strings.TrimPrefix(auth, "AWS4-HMAC-SHA256 "), ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
		switch k {
		case "Credential":
			cred = v
		case "SignedHeaders":
			signed = v
		}
	}
	parts := strings.Split(cred, "/")
	if len(parts) != 5 || parts[4] != "aws4_request" {
		return 403, "IncompleteSignatureException", "Authorization header requires a valid Credential."
	}
	if parts[0] != s.AccessKey {
		return 403, "UnrecognizedClientException", "The security token included in the request is invalid."
	}
	if parts[2] != s.Region || parts[3] != "bedrock" {
		return 403, "InvalidSignatureException", "Credential should be scoped to a valid region and service bedrock, not '" + parts[2] + "/" + parts[3] + "'."
	}
	at, err := time.Parse("20060102T150405Z", hr.Header.Get("X-Amz-Date"))
	if err != nil {
		return 403, "IncompleteSignatureException", "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header."
	}
	if d := s.Now().Sub(at); d > 5*time.Minute || d < -5*time.Minute {
		return 403, "InvalidSignatureException", "Signature expired: " + at.Format("20060102T150405Z") + " is now earlier than the allowed window."
	}
	if s.SessionToken != "" && hr.Header.Get("X-Amz-Security-Token") != s.SessionToken {
		return 403, "UnrecognizedClientException", "The security token included in the request is invalid."
	}
	// Recompute over exactly the signed headers, as AWS does.
	re, _ := http.NewRequest(hr.Method, "http://"+hr.Host+hr.URL.RequestURI(), bytes.NewReader(body))
	re.Header = http.Header{}
	for _, h := range strings.Split(signed, ";") {
		if h == "host" || h == "content-length" {
			continue
		}
		for _, v := range hr.Header.Values(h) {
			re.Header.Add(h, v)
		}
	}
	re.ContentLength = int64(len(body))
	if !strings.Contains(";"+signed+";", ";content-length;") {
		re.ContentLength = 0
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: s.AccessKey, SecretAccessKey: s.SecretKey, SessionToken: s.SessionToken}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, re, hex.EncodeToString(sum[:]), "bedrock", s.Region, at); err != nil {
		return 500, "InternalServerException", err.Error()
	}
	if re.Header.Get("Authorization") != auth {
		return 403, "InvalidSignatureException", "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
	}
	return 0, "", ""
}

// awsError maps the inner fake's error to Bedrock's status and exception.
func awsError(status int, typ string) (int, string) {
	switch typ {
	case "overloaded_error":
		return 503, "ServiceUnavailableException"
	case "rate_limit_error":
		return 429, "ThrottlingException"
	case "invalid_request_error":
		return 400, "ValidationException"
	case "not_found_error":
		return 404, "ResourceNotFoundException"
	case "timeout_error":
		return 408, "ModelTimeoutException"
	}
	if status >= 500 {
		return 500, "InternalServerException"
	}
	return status, "ValidationException"
}

func writeError(w http.ResponseWriter, status int, exc, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", exc+":http://internal.amazon.com/coral/com.amazon.bedrock/")
	w.Header().Set("X-Amzn-Requestid", "fake-bedrock-error")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

// writeStream re-frames the inner SSE stream as event-stream messages:
// each event's JSON, base64, in a "chunk" event; an SSE error event as a
// modelStreamErrorException (or throttlingException) frame.
func writeStream(w http.ResponseWriter, body io.Reader) {
	enc := eventstream.NewEncoder()
	fl, _ := w.(http.Flusher)
	rd := sse.NewReader(body)
	for {
		ev, err := rd.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return // cut: the client sees the frames so far
			}
			return
		}
		data := bytes.TrimSpace(ev.Data)
		var head struct {
			Type  string `json:"type"`
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(data, &head)
		var msg eventstream.Message
		if head.Type == "error" {
			exc := "modelStreamErrorException"
			switch head.Error.Type {
			case "rate_limit_error":
				exc = "throttlingException"
			case "overloaded_error":
				exc = "serviceUnavailableException"
			}
			msg.Headers.Set(":message-type", eventstream.StringValue("exception"))
			msg.Headers.Set(":exception-type", eventstream.StringValue(exc))
			msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
			msg.Payload, _ = json.Marshal(map[string]string{"message": head.Error.Message})
		} else {
			var c bytes.Buffer
			_ = json.Compact(&c, data)
			msg.Headers.Set(":message-type", eventstream.StringValue("event"))
			msg.Headers.Set(":event-type", eventstream.StringValue("chunk"))
			msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
			msg.Payload, _ = json.Marshal(map[string]any{"bytes": c.Bytes(), "p": "abcdefghijklmnopqrstuvwxyzABCDEF"})
		}
		if err := enc.Encode(w, msg); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
}
