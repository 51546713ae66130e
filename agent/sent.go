package agent

import "context"

// sentKey is the context key of a request's SentHook.
type sentKey struct{}

// WithSentHook returns ctx carrying fn as its SentHook. The session sends
// each request with one (Config.AfterSend).
func WithSentHook(ctx context.Context, fn func()) context.Context {
	return context.WithValue(ctx, sentKey{}, fn)
}

// SentHook returns what a provider's HTTP layer calls once the request
// sent with ctx has been written, all of its body (an httptrace
// ClientTrace's WroteRequest), or nil when no one waits for that. It may
// be called more than once (a request written again on a new connection)
// and from any goroutine.
func SentHook(ctx context.Context) func() {
	f, _ := ctx.Value(sentKey{}).(func())
	return f
}
