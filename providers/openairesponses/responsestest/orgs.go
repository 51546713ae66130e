package responsestest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// DefaultOrg is the organization DefaultKey (and APIKey) belongs to.
const DefaultOrg = "org-fake"

// Every answer to a known key carries the openai-organization header, "the
// organization associated with the request" (OpenAI API reference,
// Debugging requests).
const orgHeader = "openai-organization"

// sealKey seals the fake's encrypted reasoning. One key for every fake
// server, as one platform seals every organization's content: what makes
// content unverifiable is the organization sealed in it, not the server.
var sealKey = []byte("responsestest encrypted reasoning")

// seal is the encrypted_content of reasoning item itemID made for org.
func seal(org, itemID string) string {
	payload := org + "\x00" + itemID
	return "enc_" + base64.RawURLEncoding.EncodeToString([]byte(payload+"\x00"+mac(payload)))
}

func mac(payload string) string {
	h := hmac.New(sha256.New, sealKey)
	h.Write([]byte(payload))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// unseal reads the organization and item id sealed in content; ok is false
// for content this platform did not make.
func unseal(content string) (org, itemID string, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(content, "enc_"))
	if err != nil || !strings.HasPrefix(content, "enc_") {
		return "", "", false
	}
	f := strings.Split(string(b), "\x00")
	if len(f) != 3 || !hmac.Equal([]byte(f[2]), []byte(mac(f[0]+"\x00"+f[1]))) {
		return "", "", false
	}
	return f[0], f[1], true
}

// checkEncrypted applies the API's rule to a reasoning input item's
// encrypted_content: it must be content the platform made, for the
// organization of the request's key, for the item of that id. The answer
// is a 400 invalid_encrypted_content whose reason says which failed:
// "Encrypted content could not be decrypted or parsed."
// (smallmain/vscode-unify-chat-provider#178, jlcodes99/cockpit-tools#827,
// after switching accounts), "Encrypted content organization_id did not
// match the target organization." (openai/codex#13724, old threads after
// an organization change; openai/codex#8145), "Encrypted content item_id
// did not match the target item id." (BigPizzaV3/CodexPlusPlus#1766).
func checkEncrypted(it map[string]json.RawMessage, org string, recorded bool) *apiErr {
	raw, ok := it["encrypted_content"]
	if !ok || string(raw) == "null" {
		return nil
	}
	content := str(raw)
	id := str(it["id"])
	reason := ""
	switch o, sealedID, ok := unseal(content); {
	case !ok && recorded && !strings.HasPrefix(content, "enc_"):
		return nil
	case !ok:
		reason = "Encrypted content could not be decrypted or parsed."
	case o != org:
		reason = "Encrypted content organization_id did not match the target organization."
	case id != "" && sealedID != id:
		reason = "Encrypted content item_id did not match the target item id."
	default:
		return nil
	}
	what := "for item " + id
	if id == "" {
		// Without an id the API names the content, shortened.
		short := content
		if len(short) > 8 {
			short = short[:4] + "..." + short[len(short)-4:]
		}
		what = short
	}
	return &apiErr{status: 400, code: "invalid_encrypted_content",
		message: fmt.Sprintf("The encrypted content %s could not be verified. Reason: %s", what, reason)}
}

// orgOf is the organization of an Authorization header's key, or false for
// a key the server does not accept.
func (s *Server) orgOf(auth string) (string, bool) {
	key, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		return "", false
	}
	if key == s.APIKey {
		if s.Org == "" {
			return DefaultOrg, true
		}
		return s.Org, true
	}
	org, ok := s.Keys[key]
	return org, ok
}

// streaming reports whether a request body asks for a stream.
func streaming(body []byte) bool {
	var b struct {
		Stream bool `json:"stream"`
	}
	return json.Unmarshal(body, &b) == nil && b.Stream
}

// refuseInStream answers a streaming request whose encrypted reasoning the
// fake cannot verify as Server.StreamRefusal says: a 200 whose stream
// starts, then fails with the refusal, as a response.failed event (the
// response's error) or an error event. The refusal "can also arrive
// mid-stream as a response.failed (or type: "error") SSE event"
// (openclaw/openclaw#95587, a live gpt-5.5 deployment; the error thrown
// from the SDK's stream iterator in smallmain/vscode-unify-chat-provider#178;
// "sometimes well into generation", openai/codex#8128).
func (s *Server) refuseInStream(w http.ResponseWriter, e *apiErr) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("x-request-id", "req_fake")
	seq := 0
	send := func(typ string, ev obj) {
		ev["type"], ev["sequence_number"] = typ, seq
		seq++
		b, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	resp := obj{"id": s.id("resp"), "object": "response", "status": "in_progress", "error": nil, "output": []any{}}
	send("response.created", obj{"response": resp})
	if s.StreamRefusal == "error" {
		send("error", obj{"code": e.code, "message": e.message, "param": nil})
		return
	}
	failed := obj{}
	for k, v := range resp {
		failed[k] = v
	}
	failed["status"], failed["error"] = "failed", obj{"code": e.code, "message": e.message}
	send("response.failed", obj{"response": failed})
}
