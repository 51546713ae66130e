package telemetry

import (
	"go.opentelemetry.io/otel/metric"
)

// Attribute names. The gen_ai.* ones are the OpenTelemetry GenAI semantic
// conventions'; agent.* are this program's where the conventions have none.
const (
	attrOperation      = "gen_ai.operation.name"
	attrProvider       = "gen_ai.provider.name"
	attrRequestModel   = "gen_ai.request.model"
	attrResponseModel  = "gen_ai.response.model"
	attrFinishReasons  = "gen_ai.response.finish_reasons"
	attrInputTokens    = "gen_ai.usage.input_tokens"
	attrOutputTokens   = "gen_ai.usage.output_tokens"
	attrCacheRead      = "gen_ai.usage.cache_read.input_tokens"
	attrCacheCreation  = "gen_ai.usage.cache_creation.input_tokens"
	attrTokenType      = "gen_ai.token.type"
	attrConversation   = "gen_ai.conversation.id"
	attrAgentName      = "gen_ai.agent.name"
	attrToolName       = "gen_ai.tool.name"
	attrToolCallID     = "gen_ai.tool.call.id"
	attrToolType       = "gen_ai.tool.type"
	attrToolArguments  = "gen_ai.tool.call.arguments"
	attrToolResult     = "gen_ai.tool.call.result"
	attrInputMessages  = "gen_ai.input.messages"
	attrErrorType      = "error.type"
	attrAPI            = "agent.provider.api"
	attrSearchMode     = "agent.search.mode"
	attrCost           = "agent.cost.usd"
	attrPriced         = "agent.cost.priced"
	attrRequestNumber  = "agent.request.number"
	attrCompaction     = "agent.request.compaction"
	attrToolServer     = "agent.tool.server"
	attrToolOutcome    = "agent.tool.outcome"
	attrToolDiscovered = "agent.tool.discovered"
	attrSearchWhere    = "agent.search.where"
	attrSearchHits     = "agent.search.hits"
	attrSearchTools    = "agent.search.tools"
	attrSearchQuery    = "agent.search.query"
	attrRequests       = "agent.turn.requests"
)

// instruments are the metrics a run records.
type instruments struct {
	// GenAI conventions: tokens per request by type (input, output) and
	// each request's duration.
	tokenHist metric.Int64Histogram
	duration  metric.Float64Histogram
	// Counters a dashboard sums: tokens by type (input, output,
	// cache_read, cache_creation), cost in USD, requests, tool calls,
	// searches, sessions; tool and search durations.
	tokens       metric.Int64Counter
	cost         metric.Float64Counter
	requests     metric.Int64Counter
	toolCalls    metric.Int64Counter
	toolDuration metric.Float64Histogram
	searches     metric.Int64Counter
	searchTime   metric.Float64Histogram
	sessions     metric.Int64Counter
}

func newInstruments(m metric.Meter) (instruments, error) {
	var (
		in   instruments
		errs []error
	)
	keep := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	var err error
	in.tokenHist, err = m.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("Number of input and output tokens used per request"),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864))
	keep(err)
	in.duration, err = m.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of a provider request, retries included"),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92))
	keep(err)
	in.tokens, err = m.Int64Counter("agent.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens used, by gen_ai.token.type: input, output, cache_read, cache_creation"))
	keep(err)
	in.cost, err = m.Float64Counter("agent.cost.usage", metric.WithUnit("USD"),
		metric.WithDescription("Cost of the requests at the models' list prices"))
	keep(err)
	in.requests, err = m.Int64Counter("agent.request.count", metric.WithUnit("{request}"),
		metric.WithDescription("Provider requests"))
	keep(err)
	in.toolCalls, err = m.Int64Counter("agent.tool.call.count", metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls, by tool, server and outcome"))
	keep(err)
	in.toolDuration, err = m.Float64Histogram("agent.tool.call.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of a tool call, approval wait included"))
	keep(err)
	in.searches, err = m.Int64Counter("agent.search.count", metric.WithUnit("{search}"),
		metric.WithDescription("Tool searches, by where they ran (provider or client)"))
	keep(err)
	in.searchTime, err = m.Float64Histogram("agent.search.duration", metric.WithUnit("s"),
		metric.WithDescription("Latency of a tool search"))
	keep(err)
	in.sessions, err = m.Int64Counter("agent.session.count", metric.WithUnit("{session}"),
		metric.WithDescription("Sessions started or resumed"))
	keep(err)
	if len(errs) > 0 {
		return in, errs[0]
	}
	return in, nil
}
