package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-dev/agent/internal/starttrace"
)

// One request to the provider: sent, streamed, retried with backoff when
// the provider says so, and asked again once with a larger output limit
// when a tool call was cut at the limit.

// target is the provider and model a request went to.
type target struct {
	p     Provider
	model string
}

// served describes the request t answered with resp (nil: it failed with
// no response), sent at sent.
func (t target) served(resp *Response, sent time.Time, compaction bool) *Served {
	sv := &Served{Provider: t.p.Name(), API: t.p.API(), Model: t.model, Compaction: compaction, Elapsed: time.Since(sent)}
	if resp != nil {
		sv.Search = resp.Resolved
	}
	return sv
}

// failedRequest wraps err, the failure of a request t was sent at sent
// that got no response, with what it asked.
func (t target) failedRequest(err error, sent time.Time, compaction bool) error {
	sv := t.served(nil, sent, compaction)
	sv.Failed = err
	return &requestFailed{err: err, served: sv}
}

// requestFailed is a turn's error from a provider request that got no
// response: the turn's error event carries what was asked (Served), as a
// usage event does for a request answered. Its text and kind are err's.
type requestFailed struct {
	err    error
	served *Served
}

func (e *requestFailed) Error() string { return e.err.Error() }
func (e *requestFailed) Unwrap() error { return e.err }

// request sends the request build makes, with retries. A retryable error is
// retried only while nothing has streamed, so no text is ever shown twice.
// Once the retries are spent on an overloaded model, the fallback (if any)
// is tried under the same rules; the target that answered is returned.
// Streaming text is checkpointed to the store when partials is set.
func (s *Session) request(ctx context.Context, emit func(Event), build func() *Request, partials bool) (*Response, target, error) {
	p, model := s.Target()
	var lastErr error
	for attempt := 0; ; attempt++ {
		starttrace.Mark("request build")
		req := build()
		req.Model = model
		// Checked per request: the provider and model may have changed
		// (the fallback below, a /model switch between turns).
		notice, err := s.fitTools(p, req)
		if err != nil {
			return nil, target{p, model}, err
		}
		if notice != "" {
			emit(Event{Type: EventWarning, Text: notice})
		}
		streamed := false
		partial := Message{Role: RoleAssistant}
		lastSave := time.Now()
		// A provider's search result block carries no query: the finished
		// event takes it from the call it answers.
		calls := map[string]SearchCall{}
		var thinking strings.Builder // what the user saw of the model's reasoning
		starttrace.Mark("request send")
		if s.cfg.BeforeSend != nil {
			s.cfg.BeforeSend()
		}
		// Read once here: the provider's HTTP layer may call the hook from
		// its goroutine after the request ended (a body written after an
		// early answer), when the session may be changed between turns.
		after := s.cfg.AfterSend
		var sent sync.Once
		afterSend := func() {
			if after != nil {
				sent.Do(after)
			}
		}
		sendCtx := ctx
		if after != nil {
			sendCtx = WithSentHook(ctx, afterSend)
		}
		resp, err := p.Send(sendCtx, req, func(se StreamEvent) {
			streamed = true
			afterSend()
			switch se.Type {
			case EventTextDelta:
				emit(Event{Type: EventTextDelta, Text: se.Text})
				partial.Parts = appendText(partial.Parts, se.Text)
				if partials && s.cfg.Store != nil && time.Since(lastSave) >= s.cfg.PartialEvery {
					lastSave = time.Now()
					_ = s.cfg.Store.SavePartial(context.WithoutCancel(ctx), partial)
				}
			case EventSearchStarted:
				if c := se.SearchCall; c != nil {
					calls[c.ID] = *c
					emit(Event{Type: EventSearchStarted, Search: &SearchEvent{ID: c.ID, Where: WhereProvider, Query: c.Text()}})
				}
			case EventSearchFinished:
				if r := se.SearchResult; r != nil {
					emit(Event{Type: EventSearchFinished, Search: &SearchEvent{ID: r.CallID, Where: WhereProvider, Query: calls[r.CallID].Text(), Tools: r.Tools, Error: r.Error}})
					if r.Error == "" {
						s.noteSearch(ctx, calls[r.CallID], r.Tools, WhereProvider)
					}
				}
			case EventServerTool:
				emit(Event{Type: EventServerTool, ServerTool: se.ServerTool})
			case EventReasoningDelta, EventWarning:
				if se.Type == EventReasoningDelta {
					thinking.WriteString(se.Text)
				}
				emit(Event{Type: se.Type, Text: se.Text})
			}
		})
		starttrace.Mark("response end")
		afterSend()
		used := target{p, model}
		if err == nil {
			if thinking.Len() > 0 && resp != nil {
				// Kept with the message so a resumed session shows it as it
				// streamed; no adapter sends it (the Raw part carries what a
				// provider replays).
				resp.Message.Parts = append([]Part{{Type: PartReasoning, Text: thinking.String()}}, resp.Message.Parts...)
			}
			return resp, used, nil
		}
		err = classify(ctx, resp, err)
		lastErr = err
		if streamed || ctx.Err() != nil || !retryableErr(err) {
			return resp, used, err
		}
		hint := ""
		var ae *APIError
		if errors.As(err, &ae) {
			hint = ae.RetryAfter
		}
		asked, hinted := retryAfter(hint)
		if hinted && asked > s.cfg.MaxRetryWait && (s.cfg.Fallback == nil || (p == s.cfg.Fallback && model == s.cfg.FallbackModel)) {
			return resp, used, fmt.Errorf("%w; the provider asks to wait %s before retrying (until %s), longer than max_retry_wait (%s): try again then, or raise \"max_retry_wait\" in the config file",
				err, asked.Round(time.Second), time.Now().Add(asked).Format("15:04:05"), s.cfg.MaxRetryWait)
		}
		if attempt >= s.cfg.Retries || (hinted && asked > s.cfg.MaxRetryWait) {
			if s.cfg.Fallback != nil && (p != s.cfg.Fallback || model != s.cfg.FallbackModel) {
				emit(Event{Type: EventWarning, Text: fmt.Sprintf("%s: switching to fallback model %s", err, s.cfg.FallbackModel)})
				p, model, attempt = s.cfg.Fallback, s.cfg.FallbackModel, -1
				continue
			}
			return resp, used, fmt.Errorf("gave up after %d retries: %w", s.cfg.Retries, lastErr)
		}
		d := asked
		if !hinted || asked < minRetryHint {
			// retry-after: 0 (or a few milliseconds) from a busy server
			// would bring every waiting client back at once, together: as
			// the official Python and TypeScript SDKs do, such a hint is no
			// hint, and the normal backoff with its jitter applies. A short
			// hint still sets the least wait.
			d = max(asked, backoff(s.cfg.Backoff, attempt))
		}
		emit(Event{Type: EventWarning, Text: fmt.Sprintf("%s; retrying in %s", err, d.Round(time.Millisecond))})
		select {
		case <-ctx.Done():
			return nil, used, cancelled(ctx, ctx.Err())
		case <-time.After(d):
		}
	}
}

// retryCut handles a response stopped by the output limit. A tool call cut
// there cannot run (its arguments are half a JSON document): the response
// is dropped and asked again once with the model's largest limit. Text cut
// there is kept, with a warning that says so.
func (s *Session) retryCut(resp *Response, err error, raised *bool, emit func(Event)) bool {
	s.mu.Lock()
	s.raiseOutput = false
	s.mu.Unlock()
	if err != nil || resp == nil || resp.StopReason != StopMaxTokens {
		return false
	}
	if resp.CutCall && !*raised && resp.OutputMax > resp.OutputLimit {
		*raised = true
		s.mu.Lock()
		s.raiseOutput = true
		s.totals.Add(resp.Usage)
		s.mu.Unlock()
		emit(Event{Type: EventWarning, Text: fmt.Sprintf("a tool call was cut at the output limit of %d tokens; asking again with %d", resp.OutputLimit, resp.OutputMax)})
		return true
	}
	what := "the answer was"
	if resp.CutCall {
		what = "a tool call was"
	}
	limit := ""
	if resp.OutputLimit > 0 {
		limit = fmt.Sprintf(" of %d tokens", resp.OutputLimit)
	}
	emit(Event{Type: EventWarning, Text: what + " cut at the output limit" + limit + " (raise --max-tokens)"})
	return false
}

// retryable is an error that says whether sending again may succeed
// (*APIError, a provider timeout).
type retryable interface{ Retryable() bool }

// retryableErr reports whether sending the same request again may
// succeed: the error says so (*APIError, a provider timeout, a connection
// dropped before the answer's headers), or the stream was cut by its
// connection (closed or reset, not by an error event the provider sent).
// The caller retries only when no event of the answer streamed: then
// nothing of it reached the user or the history, and sending again is as
// safe as after no answer at all. Codex CLI retries such a stream
// (stream_max_retries); a proxy that drops an upstream connection (the
// start bench's did, golang/go#40747) cuts a stream this way.
func retryableErr(err error) bool {
	var re retryable
	if errors.As(err, &re) {
		return re.Retryable()
	}
	return errors.Is(err, ErrStreamCut) && lostConnection(err)
}

// lostConnection reports whether err is a connection's end or failure:
// EOF where more was due, or a network error (reset, closed). A bad event
// is not: the same server would send it again.
func lostConnection(err error) bool {
	var ne net.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.As(err, &ne)
}

// minRetryHint is the shortest retry-after taken as it is; a shorter one
// only sets the least wait under the normal backoff.
const minRetryHint = time.Second

// retryAfter reads a retry-after value in seconds. Values that are not a
// finite, non-negative number of seconds fitting a Duration are no hint:
// the caller backs off as usual.
func retryAfter(v string) (time.Duration, bool) {
	secs, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(secs) || math.IsInf(secs, 0) || secs < 0 || secs >= float64(math.MaxInt64)/float64(time.Second) {
		return 0, false
	}
	return time.Duration(secs * float64(time.Second)), true
}

// backoff doubles base with full jitter on the upper half, up to 30 s.
func backoff(base time.Duration, attempt int) time.Duration {
	if attempt > 16 {
		attempt = 16
	}
	d := base << attempt
	if d > 30*time.Second {
		d = 30 * time.Second
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}
