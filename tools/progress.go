package tools

import "context"

// Progress is what a running tool reported about itself (an MCP server's
// notifications/progress): Progress rises with each report, Total is 0 when
// unknown, Message is the server's text, if any.
type Progress struct {
	Progress float64
	Total    float64
	Message  string
}

type progressKey struct{}

// WithProgress returns a context whose tool executions report their
// progress to f. The dispatcher sets it per call; f must not block.
func WithProgress(ctx context.Context, f func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// ReportProgress calls the context's progress function, if any.
func ReportProgress(ctx context.Context, p Progress) {
	if f, ok := ctx.Value(progressKey{}).(func(Progress)); ok && f != nil {
		f(p)
	}
}

// HasProgress reports whether someone listens for the context's progress.
func HasProgress(ctx context.Context) bool {
	f, ok := ctx.Value(progressKey{}).(func(Progress))
	return ok && f != nil
}
