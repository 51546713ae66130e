package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
)

// The kinds of error a turn can end with. Test with errors.Is; an error
// may be of several kinds at once (a stream cut by an overloaded error
// event is both), KindOf picks the one that decides what to tell the user.
var (
	ErrCancelled   = errors.New("cancelled")
	ErrRateLimited = errors.New("rate limited")
	ErrOverloaded  = errors.New("overloaded")
	ErrAuth        = errors.New("authentication failed")
	ErrBadRequest  = errors.New("bad request")
	ErrStreamCut   = errors.New("stream cut")
	ErrTimeout     = errors.New("timed out")
	ErrBudgetSpent = errors.New("step budget spent")
	ErrToolFailed  = errors.New("tool failed")
)

// kinds is KindOf's order: the first that matches wins.
var kinds = []error{ErrBusy, ErrCancelled, ErrBlocked, ErrBudgetSpent, ErrAuth, ErrRateLimited, ErrOverloaded,
	ErrBadRequest, ErrTimeout, ErrStreamCut, ErrToolFailed}

// KindOf returns the kind of err (one of the Err* values above), or nil
// when it has none.
func KindOf(err error) error {
	if err == nil {
		return nil
	}
	for _, k := range kinds {
		if errors.Is(err, k) {
			return k
		}
	}
	return nil
}

// Error is an error marked with a kind. Its text is the wrapped error's.
type Error struct {
	Kind error
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return e.Kind.Error()
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(e, e.Kind) true.
func (e *Error) Is(target error) bool { return target == e.Kind }

// WithKind marks err with kind (nil stays nil).
func WithKind(kind, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: kind, Err: err}
}

// Is maps a provider's error answer to its kind: by HTTP status, and by the
// error type the provider names where the status is not telling.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrRateLimited:
		return e.Status == 429 || e.Type == "rate_limit_error" || e.Type == "rate_limit_exceeded"
	case ErrOverloaded:
		return e.Status == 529 || e.Status == 503 || e.Status == 502 || e.Status == 500 || e.Type == "overloaded_error" || e.Type == "server_error"
	case ErrAuth:
		return e.Status == 401 || e.Status == 403 || e.Type == "authentication_error" || e.Type == "permission_error"
	case ErrBadRequest:
		return e.Status == 400 || e.Status == 404 || e.Status == 413 || e.Status == 422 || e.Type == "invalid_request_error"
	case ErrTimeout:
		return e.Status == 408 || e.Status == 504
	}
	return false
}

// classify marks a provider's error with the kind the session can tell from
// the outside: cancelled, timed out, or cut mid-stream.
func classify(ctx context.Context, resp *Response, err error) error {
	if err == nil || KindOf(err) != nil {
		return err
	}
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		return cancelled(ctx, err)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return WithKind(ErrTimeout, err)
	case resp != nil && resp.Message.Interrupted:
		return WithKind(ErrStreamCut, err)
	}
	return err
}

// cancelled is the error of a turn whose ctx is done: cancelled by the
// user, or timed out by a deadline.
func cancelled(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return WithKind(ErrTimeout, fmt.Errorf("turn timed out: %w", err))
	}
	if errors.Is(err, context.Canceled) {
		// Said as it is: ctrl+c, or a signal, ended the turn. Go's own
		// words after it ("turn cancelled: context canceled", or a
		// request's "Post ...: context canceled") told the user nothing.
		return WithKind(ErrCancelled, cancelledError{err})
	}
	return WithKind(ErrCancelled, fmt.Errorf("turn cancelled: %w", err))
}

// cancelledError is a turn the user cancelled; it still unwraps to what
// the cancel gave (context.Canceled).
type cancelledError struct{ err error }

func (e cancelledError) Error() string { return "turn cancelled" }
func (e cancelledError) Unwrap() error { return e.err }

func itoa(i int) string { return strconv.Itoa(i) }
