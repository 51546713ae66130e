package app

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/registry"
)

// ExitCode maps an error to the process exit code: 0 success, 2 a mistake
// in how the program was called, 1 anything else (a failed turn included).
func ExitCode(err error) int {
	var ue *UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return 2
	}
	return 1
}

// Explain adds to a turn's error what the user can do about it; the
// result keeps err's kind (errors.Is) and is err itself when there is
// nothing to add.
func (a *App) Explain(err error) error {
	if err == nil {
		return nil
	}
	if h := a.hint(err); h != "" {
		return &hinted{err: err, hint: h}
	}
	return err
}

// hint is the one place where an error's kind becomes advice.
func (a *App) hint(err error) string {
	var dns *net.DNSError
	var api *agent.APIError
	switch {
	case errors.As(err, &api) && api.Status == 404:
		// A model id the provider does not serve (or a --base-url path
		// with no API behind it): before the native-search hint, which
		// would send the user after the wrong setting.
		return a.notFoundHint()
	case errors.Is(err, agent.ErrBadRequest) && a.nativeSearch():
		// A model the table thinks searches natively, but does not.
		return "this model may not support native tool search: try --search client"
	case errors.Is(err, agent.ErrAuth):
		return a.authHint()
	case errors.Is(err, syscall.ECONNREFUSED):
		// A local server that is not running, a mistyped --base-url.
		return "nothing answers there: start the server, or point --base-url at it"
	case errors.As(err, &dns) && dns.IsNotFound:
		// No network (or no DNS), or a mistyped host: "start the server"
		// would be wrong advice for api.anthropic.com.
		return "the host name " + dns.Name + " does not resolve: check the network connection, or the host in --base-url"
	}
	return ""
}

// notFoundHint names the model the request asked for and the two settings
// a 404 comes from.
func (a *App) notFoundHint() string {
	model := ""
	if a.session != nil {
		_, model = a.session.Target()
	}
	if model == "" {
		return "the provider found nothing at that address: check --model (/model in the TUI picks from the provider's list) and --base-url"
	}
	return fmt.Sprintf("the provider serves no model %q there: check --model or the config's \"model\" (/model in the TUI picks from the provider's list), and --base-url", model)
}

// nativeSearch reports whether the session's requests use the provider's
// own tool search.
func (a *App) nativeSearch() bool {
	s := a.session
	if s == nil || s.TurnContext().Search != agent.SearchNative {
		return false
	}
	p, _ := s.Target()
	return agent.ResolveSearch(p, s.BuildRequest()) == agent.SearchNative
}

type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() + " (" + h.hint + ")" }
func (h *hinted) Unwrap() error { return h.err }

// authHint names the variable a rejected key came from and where a new one
// comes from (#27: a 401 said only "invalid x-api-key").
func (a *App) authHint() string {
	d, ok := registry.Lookup(a.Provider())
	if !ok || len(d.KeyEnv) == 0 {
		return "the server refused the credentials: check the key or the token it expects"
	}
	h := "the key was refused: set " + strings.Join(d.KeyEnv, " or ") + " to a valid key"
	for _, v := range d.KeyEnv {
		if where := keySource[v]; where != "" {
			return h + " (from " + where + ")"
		}
	}
	return h
}

// keySource is where the key each variable holds is issued.
var keySource = map[string]string{
	"ANTHROPIC_API_KEY":  "console.anthropic.com → API keys",
	"OPENAI_API_KEY":     "platform.openai.com/api-keys",
	"GEMINI_API_KEY":     "aistudio.google.com/apikey",
	"DEEPSEEK_API_KEY":   "platform.deepseek.com/api_keys",
	"MISTRAL_API_KEY":    "console.mistral.ai/api-keys",
	"OPENROUTER_API_KEY": "openrouter.ai/settings/keys",
	"GROQ_API_KEY":       "console.groq.com/keys",
}
