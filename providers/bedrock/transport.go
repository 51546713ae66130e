package bedrock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/agent-dev/agent/providers/internal/claudeplatform"
)

// loginHint is what to run when AWS refuses or cannot produce credentials.
const loginHint = "run `aws sso login` (with AWS_PROFILE set), or refresh AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN or AWS_BEARER_TOKEN_BEDROCK"

// transport signs each request and turns Bedrock's answers into the
// Messages API's: event-stream into SSE, AWS error bodies into Anthropic's.
type transport struct {
	base   http.RoundTripper
	region string
	bearer string
	creds  aws.CredentialsProvider
	signer *v4.Signer
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	stream := strings.HasSuffix(r.URL.Path, "/invoke-with-response-stream")
	r.Header.Del("anthropic-version")
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Amzn-Bedrock-Accept", "application/json")
	if stream {
		r.Header.Set("Accept", "application/vnd.amazon.eventstream")
	} else {
		r.Header.Set("Accept", "application/json")
	}
	if t.bearer != "" {
		r.Header.Set("Authorization", "Bearer "+t.bearer)
	} else {
		creds, err := t.creds.Retrieve(r.Context())
		if err != nil {
			return nil, &claudeplatform.AuthError{Platform: Name, Err: fmt.Errorf("no usable AWS credentials: %w", err), Hint: loginHint}
		}
		sum := sha256.Sum256(body)
		if err := t.signer.SignHTTP(r.Context(), creds, r, hex.EncodeToString(sum[:]), signingName, t.region, time.Now()); err != nil {
			return nil, fmt.Errorf("bedrock: sign request: %w", err)
		}
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if id := resp.Header.Get("X-Amzn-Requestid"); id != "" {
		resp.Header.Set("request-id", id)
	}
	if resp.StatusCode/100 != 2 {
		return anthropicError(resp), nil
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.amazon.eventstream") {
		resp.Body = newSSEBody(resp.Body)
		resp.Header.Set("Content-Type", "text/event-stream")
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
	return resp, nil
}

func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, fmt.Errorf("bedrock: read request body: %w", err)
	}
	return b, nil
}

// errorTypes maps Bedrock's exception names to the Messages API's error
// types, so the adapter's retry and display rules apply alike.
var errorTypes = map[string]string{
	"ValidationException":             "invalid_request_error",
	"AccessDeniedException":           "permission_error",
	"UnrecognizedClientException":     "authentication_error",
	"ExpiredTokenException":           "authentication_error",
	"InvalidSignatureException":       "authentication_error",
	"IncompleteSignatureException":    "authentication_error",
	"ResourceNotFoundException":       "not_found_error",
	"ThrottlingException":             "rate_limit_error",
	"ServiceQuotaExceededException":   "rate_limit_error",
	"ModelTimeoutException":           "timeout_error",
	"ModelNotReadyException":          "overloaded_error",
	"ServiceUnavailableException":     "overloaded_error",
	"InternalServerException":         "api_error",
	"ModelErrorException":             "api_error",
	"ModelStreamErrorException":       "api_error",
	"ModelStreamErrorExceptionStream": "api_error",
}

// exceptionType reads X-Amzn-ErrorType ("ValidationException:http://...")
// or the body's __type.
func exceptionType(h http.Header, body []byte) string {
	t := h.Get("X-Amzn-Errortype")
	if t == "" {
		var b struct {
			Type string `json:"__type"`
		}
		_ = json.Unmarshal(body, &b)
		t = b.Type
	}
	t, _, _ = strings.Cut(t, ":")
	if i := strings.LastIndex(t, "#"); i >= 0 {
		t = t[i+1:]
	}
	return t
}

// anthropicError rewrites an AWS error answer ({"message": ...}) in the
// Messages API's shape. An Anthropic-shaped body (a model's own 4xx passed
// through) is kept.
func anthropicError(resp *http.Response) *http.Response {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	var anth struct {
		Error struct {
			Type string `json:"type"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &anth) != nil || anth.Error.Type == "" {
		var aws struct {
			Message  string `json:"message"`
			Message2 string `json:"Message"`
		}
		_ = json.Unmarshal(data, &aws)
		msg := aws.Message
		if msg == "" {
			msg = aws.Message2
		}
		if msg == "" {
			msg = strings.TrimSpace(string(data))
		}
		exc := exceptionType(resp.Header, data)
		typ := errorTypes[exc]
		if typ == "" {
			typ = "api_error"
		}
		if exc != "" {
			msg = exc + ": " + msg
		}
		if resp.StatusCode == 401 || resp.StatusCode == 403 && typ == "authentication_error" {
			msg += " — " + loginHint
		}
		data, _ = json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	resp.Header.Set("Content-Type", "application/json")
	return resp
}
