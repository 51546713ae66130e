package store

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Redacted replaces every secret the sanitiser finds.
const Redacted = "[redacted]"

// secretKey matches setting names whose values are credentials. Header and
// env maps are redacted whole (keys kept) since any of their values may be.
// Compiled on first use: package init runs on every start, -p and --help too.
var secretKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[_-])(api_?key|key|secret|password|passwd|token|authorization|auth|cookie|credentials?|bearer|private_?key)$`)
})

// secretValue matches well-known credential shapes wherever they appear.
var secretValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)bearer\s+[^\s"]+|\b(sk-[A-Za-z0-9_\-]{12,}|ghp_[A-Za-z0-9]{16,}|gho_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})\b`)
})

var secretEnvName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(key|token|secret|password|passwd|auth|credential)`)
})

// sanitizeJSON returns doc with credentials removed: values under secret
// keys and inside headers/env maps become Redacted, and any string holding
// a secret from the environment or of a known credential shape is redacted.
// Invalid JSON is replaced by null rather than stored unchecked.
func sanitizeJSON(doc json.RawMessage, environ []string) json.RawMessage {
	if len(doc) == 0 {
		return doc
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return json.RawMessage("null")
	}
	s := newSanitizer(environ)
	out, err := json.Marshal(s.value(v, false))
	if err != nil {
		return json.RawMessage("null")
	}
	return out
}

type sanitizer struct{ envSecrets []string }

func newSanitizer(environ []string) *sanitizer {
	if environ == nil {
		environ = os.Environ()
	}
	s := &sanitizer{}
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if ok && len(val) >= 8 && secretEnvName().MatchString(name) {
			s.envSecrets = append(s.envSecrets, val)
		}
	}
	// Longest first so a secret containing another is replaced whole.
	sort.Slice(s.envSecrets, func(i, j int) bool { return len(s.envSecrets[i]) > len(s.envSecrets[j]) })
	return s
}

func (s *sanitizer) value(v any, redactAll bool) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			lk := strings.ToLower(k)
			switch {
			case lk == "headers" || lk == "env" || lk == "environment":
				t[k] = s.value(x, true)
			case redactAll || secretKey().MatchString(lk):
				if _, isStr := x.(string); isStr || x == nil {
					t[k] = Redacted
				} else {
					t[k] = s.value(x, true)
				}
			default:
				t[k] = s.value(x, false)
			}
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = s.value(x, redactAll)
		}
		return t
	case string:
		if redactAll {
			return Redacted
		}
		return s.text(t)
	}
	return v
}

// text redacts secrets inside free text such as a system prompt.
func (s *sanitizer) text(t string) string {
	for _, sec := range s.envSecrets {
		t = strings.ReplaceAll(t, sec, Redacted)
	}
	return secretValue().ReplaceAllStringFunc(t, func(m string) string {
		if strings.HasPrefix(strings.ToLower(m), "bearer") {
			return "Bearer " + Redacted
		}
		return Redacted
	})
}
