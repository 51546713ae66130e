package app

import (
	"context"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/pricing"
	"github.com/agent-dev/agent/telemetry"
)

// startTelemetry sets up the OpenTelemetry export when the settings turn
// it on (telemetry, AGENT_ENABLE_TELEMETRY); off, nothing of the SDK is
// built. A setting it cannot use is a warning: the run goes on without it.
func (a *App) startTelemetry(ctx context.Context) {
	s := a.settings
	if s.Telemetry == nil || !*s.Telemetry || s.Demo {
		return
	}
	t, err := telemetry.Start(ctx, telemetry.Options{Getenv: a.opts.Getenv, Version: a.opts.Version,
		LogContent: s.TelemetryLogContent != nil && *s.TelemetryLogContent})
	if err != nil {
		a.warnings = append(a.warnings, "telemetry: "+err.Error()+" (see README, Telemetry)")
	}
	if t == nil {
		return
	}
	a.tel = t
	// Closers run last to first. Finish, after the session's own closers
	// (added later) and before the store's and the MCP servers', starts
	// the last export once nothing more is recorded: it runs beside those
	// closers (the store's close checkpoints the database), and Shutdown,
	// which runs last, waits for it.
	a.closers = append([]func(){func() { _ = t.Shutdown(context.Background()) }}, a.closers...)
	a.closers = append(a.closers, t.Finish)
	t.SessionStarted(ctx, a.label, a.isResume)
}

// startTurn opens a turn's span (nil Turn when telemetry is off).
func (a *App) startTurn(ctx context.Context, text string) (context.Context, *telemetry.Turn) {
	return a.startSpan(ctx, text, false)
}

// startSpan opens a turn's span, or with compaction the span of a
// compaction asked for between turns.
func (a *App) startSpan(ctx context.Context, text string, compaction bool) (context.Context, *telemetry.Turn) {
	if a.tel == nil {
		return ctx, nil
	}
	provider := a.Provider()
	return a.tel.StartTurn(ctx, telemetry.TurnInfo{
		SessionID: a.session.ID(), Provider: provider, Agent: a.settings.Agent, Prompt: text, Compaction: compaction,
		Price: func(model string, u agent.Usage) (float64, bool) { return cost(provider, model, u) },
	})
}

// cost is what u costs on model at its list price; false when the model
// has no price.
func cost(provider, model string, u agent.Usage) (float64, bool) {
	p, ok := Price(provider, model)
	if !ok {
		return 0, false
	}
	return pricing.Round(p.Cost(pricing.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens})), true
}
