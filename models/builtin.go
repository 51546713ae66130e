package models

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Every figure below carries its source in a "src:" comment, on its line
// or above the statement that holds it; `go run ./models/cmd/check` (and
// TestEveryFigureHasASource) lists those that do not. Where sources
// disagree the comment says so, and the safer value is kept: the smaller
// output limit, no images, the smaller effort set.
//
// The sources, as read in December 2026:
//   - [claude-models] platform.claude.com/docs/en/about-claude/models/overview
//     and each model's page (platform.claude.com/docs/en/models/<id>/overview);
//   - [claude-effort] platform.claude.com/docs/en/build-with-claude/effort
//     (max: Opus 4.6, Sonnet 4.6 and later; xhigh: Opus 4.7, Sonnet 5 and
//     later; Opus 4.5: low, medium, high, no beta header);
//   - [claude-deprecations] platform.claude.com/docs/en/about-claude/model-deprecations
//     (dates on Anthropic's own API; Bedrock and Vertex keep their own);
//   - [openai-models] developers.openai.com/api/docs/models/<id> and the
//     reasoning guide (gpt-5 efforts minimal..high, gpt-5.1 none..high,
//     gpt-5.2+ add xhigh; tool_search from gpt-5.4; "xhigh is supported for
//     all models after gpt-5.1-codex-max");
//   - [codex-6647] openai/codex#6647 and vercel/ai#11056: gpt-5.1-codex and
//     gpt-5.1-codex-mini reject reasoning.effort "xhigh";
//   - [gemini-models] ai.google.dev/gemini-api/docs/models and thinking pages;
//   - [deepseek] api-docs.deepseek.com: quick start, pricing, thinking_mode
//     (reasoning_effort high|max, thinking {type}), news260424 (deepseek-chat
//     and deepseek-reasoner retired 2026-07-24 15:59 UTC);
//   - [model-cards] the Mistral, Qwen and Llama model cards and the Groq
//     model pages, as read in the previous round (not re-read in this one).

// builtin resolves a model id from the built-in table, falling back to the
// conservative defaults of the family whose API the provider speaks ("" when
// it serves many vendors' models).
func builtin(family, model string) Capabilities {
	c := lookupModel(family, model)
	// Tool search and deferral are features of the vendor's own API: a
	// Claude id behind the OpenAI API (or the reverse) has neither.
	if family != "" && c.Family != "" && c.Family != family {
		c.NativeSearch, c.DeferLoading, c.EncryptedReasoning = false, false, false
	}
	return c
}

func lookupModel(family, model string) Capabilities {
	m := normalize(model)
	if strings.Contains(m, "claude") {
		if c, ok := claude(m); ok {
			return c
		}
	}
	if c, ok := openAI(m); ok {
		return c
	}
	if c, ok := prefixTable(m); ok {
		return c
	}
	return fallback(family)
}

var (
	// Compiled on first use: package init runs on every start, -p and --help too.
	bedrockVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-v\d+$`) })
	dateSuffix     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-(20\d{6}|\d{4}-\d{2}-\d{2}|\d{4})$`) })
)

// normalize reduces the spellings of one model to the form the table is
// keyed by: lower case; routing prefixes ("openai/", "models/", Bedrock
// ARNs) dropped; Bedrock's "[us.|eu.|global.]anthropic." vendor prefix and
// "-v1:0" suffix, Vertex's "@20250929", Ollama's ":8b" tag dropped.
func normalize(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.Index(m, "@"); i >= 0 {
		m = m[:i]
	}
	if i := strings.Index(m, ":"); i >= 0 {
		m = m[:i]
	}
	for _, vendor := range []string{"anthropic.", "meta.", "mistral.", "deepseek.", "qwen.", "openai.", "google."} {
		if i := strings.Index(m, vendor); i >= 0 && strings.Count(m[:i], ".") <= 1 && !strings.Contains(m[:i], "-") {
			m = m[i+len(vendor):]
			break
		}
	}
	m = bedrockVersion().ReplaceAllString(m, "")
	return m
}

// claude reads the family and version out of both namings,
// claude-<family>-<major>[-<minor>] and claude-<major>[-<minor>]-<family>
// (dots as in OpenRouter's "claude-sonnet-4.5" read like dashes), so ids
// newer than this table resolve like the latest known generation.
func claude(m string) (Capabilities, bool) {
	i := strings.Index(m, "claude-")
	if i < 0 {
		return Capabilities{}, false
	}
	rest := strings.ReplaceAll(m[i+len("claude-"):], ".", "-")
	rest = strings.TrimSuffix(rest, "-latest")
	rest = dateSuffix().ReplaceAllString(rest, "")
	fields := strings.Split(rest, "-")
	var family string
	var ver []int
	for _, f := range fields {
		if n, err := strconv.Atoi(f); err == nil && len(f) <= 2 {
			ver = append(ver, n)
			continue
		}
		if family == "" {
			family = f
			continue
		}
		break
	}
	if family == "" {
		return Capabilities{}, false
	}
	major, minor := 0, 0
	if len(ver) > 0 {
		major = ver[0]
	}
	if len(ver) > 1 {
		minor = ver[1]
	}
	v := major*10 + minor
	// src: [claude-models] 200K for Claude 3 to 4.5 (Sonnet 4 and 4.5 reach
	// 1M only with the context-1m beta header, which is not sent); every
	// current model reads images ("All current models support text and
	// image input"), and so did Claude 3.
	c := Capabilities{
		Known: true, Family: familyAnthropic, ContextWindow: 200_000,
		Reasoning: ReasoningThinking, SchemaDialect: DialectJSONSchema, TakesImages: true,
	}
	switch family {
	case "mythos", "fable":
		// Newest tier: adaptive thinking always on, no effort "none".
		// src: [claude-models] Fable 5.1: 1M context, 128K output; [claude-effort] xhigh and max.
		c.MaxOutput, c.ContextWindow = 128_000, 1_000_000
		c.Thinking, c.Efforts = ThinkingAdaptive, []string{"low", "medium", "high", "xhigh", "max"} // src: [claude-effort]
		c.NativeSearch, c.DeferLoading = true, true
		return withDefault(c), true
	case "opus", "sonnet", "haiku":
	default:
		return Capabilities{}, false
	}
	switch {
	case major == 0:
		return Capabilities{}, false
	case v < 37: // Claude 3, 3.5: no thinking, small output
		c.Reasoning, c.Thinking = ReasoningNone, ThinkingNone
		// src: [claude-models] legacy table: 8192 for 3.5, 4096 for Claude 3.
		c.MaxOutput = 8192
		if v == 30 {
			c.MaxOutput = 4096 // src: [claude-models] Claude 3 Haiku, Opus: 4096
		}
		c.Retired = claude3Retired(family, v)
	case v < 45: // 3.7, 4, 4.1: budget thinking, no tool search
		c.Thinking = ThinkingBudget
		// src: [claude-models] Sonnet 3.7, 4: 64K; Opus 4, 4.1: 32K.
		c.MaxOutput = 64_000
		if family == "opus" {
			c.MaxOutput = 32_000 // src: [claude-models] Opus 4, 4.1: 32K output
		}
		if v == 37 {
			c.Retired = "2026-02-19" // src: [claude-deprecations] claude-3-7-sonnet-20250219 retired 2026-02-19
		}
	case v < 46 || family == "haiku" && v < 50: // 4.5: tool search
		c.Thinking = ThinkingBudget
		c.MaxOutput = 64_000 // src: [claude-models] Sonnet, Haiku and Opus 4.5: 64K output, 200K context
		c.NativeSearch, c.DeferLoading = true, true
		if family == "opus" {
			// Opus 4.5 takes output_config.effort, which steers every
			// token (thinking or not); it predates "max" and "xhigh".
			c.Thinking, c.Efforts = ThinkingEffort, []string{"low", "medium", "high"} // src: [claude-effort] Opus 4.5: low, medium, high
		}
	default: // 4.6 and later: adaptive thinking, effort levels
		c.Thinking = ThinkingAdaptive
		// src: [claude-models] Opus 4.6, Sonnet 4.6 and every later model:
		// 1M context, 128K output; [claude-effort] max from 4.6.
		c.ContextWindow, c.MaxOutput = 1_000_000, 128_000
		c.Efforts = []string{"low", "medium", "high", "max"} // src: [claude-effort] max from 4.6
		if v >= 47 {
			// src: [claude-effort] xhigh on Opus 4.7+ and Sonnet 5+;
			// Haiku 5.5 is listed with the 5 generation's levels.
			c.Efforts = []string{"low", "medium", "high", "xhigh", "max"}
		}
		c.NativeSearch, c.DeferLoading = true, true
	}
	return withDefault(c), true
}

// claude3Retired is the date Anthropic's API stopped serving a Claude 3 or
// 3.5 model, "" while it serves it.
func claude3Retired(family string, v int) string {
	switch {
	case v == 35 && family == "haiku":
		return "2026-02-19" // src: [claude-deprecations] claude-3-5-haiku-20241022 retired 2026-02-19
	case v == 35 && family == "sonnet":
		// src: [claude-deprecations] both 3.5 Sonnet snapshots retired; one
		// report says 2025-10-22, another 2025-10-28: the earlier is kept.
		return "2025-10-22"
	case v == 30 && family == "haiku":
		return "2026-04-20" // src: [claude-deprecations] claude-3-haiku-20240307 retired 2026-04-20
	case v == 30 && family == "opus":
		return "2026-01-05" // src: [claude-deprecations] claude-3-opus-20240229 retired 2026-01-05
	case v == 30 && family == "sonnet":
		return "2025-07-21" // src: [claude-deprecations] claude-3-sonnet-20240229 retired 2025-07-21
	}
	return ""
}

var gptVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^gpt-(\d+)(?:\.(\d+))?(.*)$`) })

// openAI covers gpt-5.x (parsed, so later versions resolve), the o-series,
// gpt-4.1, gpt-4o and gpt-oss.
func openAI(m string) (Capabilities, bool) {
	c := Capabilities{Known: true, Family: familyOpenAI, SchemaDialect: DialectJSONSchema,
		Reasoning: ReasoningNone, Thinking: ThinkingNone, TakesImages: true}
	if sm := gptVersion().FindStringSubmatch(m); sm != nil {
		major, _ := strconv.Atoi(sm[1])
		minor := 0
		if sm[2] != "" {
			minor, _ = strconv.Atoi(sm[2])
		}
		rest := sm[3]
		if major < 5 {
			return Capabilities{}, false // gpt-4o, gpt-4.1 etc. come from the prefix table
		}
		if strings.Contains(rest, "-chat") {
			// gpt-5-chat-latest, gpt-5.1-chat-latest: the ChatGPT models.
			// No reasoning items; "Encrypted content is not supported with this model".
			c.ContextWindow, c.MaxOutput = 128_000, 16_384 // src: [openai-models] gpt-5-chat-latest
			return withDefault(c), true
		}
		c.Reasoning, c.Thinking, c.EncryptedReasoning = ReasoningEffort, ThinkingEffort, true
		c.ContextWindow, c.MaxOutput = 400_000, 128_000 // src: [openai-models] gpt-5, gpt-5.1, gpt-5.2
		switch {
		case major == 5 && minor == 0:
			c.Efforts = []string{"minimal", "low", "medium", "high"} // src: [openai-models] gpt-5
		case major == 5 && minor == 1:
			c.Efforts = []string{"none", "low", "medium", "high"} // src: [openai-models] gpt-5.1
		default:
			c.Efforts = []string{"none", "low", "medium", "high", "xhigh"} // src: [openai-models] gpt-5.2 and later
		}
		if strings.Contains(rest, "-codex") {
			// src: [codex-6647] gpt-5-codex, gpt-5.1-codex and -mini take
			// low, medium, high; [openai-models] xhigh from gpt-5.1-codex-max.
			c.Efforts = []string{"low", "medium", "high"}
			if major > 5 || minor >= 2 || strings.Contains(rest, "-codex-max") {
				c.Efforts = append(c.Efforts, "xhigh")
			} else if minor == 1 && strings.Contains(rest, "-codex-mini") {
				// src: [codex-6647] gpt-5.1-codex-mini: low, medium, high in
				// the issue; a Codex CLI provider lists medium and high
				// only (ben-vargas/ai-sdk-provider-codex-cli#8): the smaller set is kept.
				c.Efforts = []string{"medium", "high"}
			}
		}
		if strings.Contains(rest, "-pro") {
			c.Efforts = []string{"high"} // src: [openai-models] gpt-5-pro takes high only
			if major > 5 || minor >= 2 {
				c.Efforts = []string{"medium", "high", "xhigh"} // src: [openai-models] gpt-5.2-pro
			}
		}
		if major > 5 || minor >= 4 {
			c.NativeSearch, c.DeferLoading = true, true
			c.ContextWindow = 1_050_000 // src: [openai-models] gpt-5.4
			if strings.Contains(rest, "-mini") || strings.Contains(rest, "-nano") {
				c.ContextWindow = 400_000 // src: [openai-models] gpt-5.4-mini, -nano
			}
		}
		return withDefault(c), true
	}
	switch {
	case m == "o1-mini" || strings.HasPrefix(m, "o1-mini-") || strings.HasPrefix(m, "o1-preview"):
		// Neither reads images nor takes an effort.
		c.Reasoning, c.EncryptedReasoning, c.TakesImages = ReasoningEffort, true, false
		c.Thinking = ThinkingAlways
		// src: [openai-models] o1-mini: 128K context, 65,536 output.
		c.ContextWindow, c.MaxOutput = 128_000, 65_536
		if strings.HasPrefix(m, "o1-preview") {
			// src: [openai-models] o1-preview: 32,768 output (it was
			// listed here with o1-mini's 65,536).
			c.MaxOutput = 32_768
		}
	case m == "o3-mini" || strings.HasPrefix(m, "o3-mini-"):
		c.Reasoning, c.Thinking, c.EncryptedReasoning = ReasoningEffort, ThinkingEffort, true
		c.TakesImages = false                           // src: [openai-models] o3-mini: text input only
		c.Efforts = []string{"low", "medium", "high"}   // src: [openai-models] o3-mini
		c.ContextWindow, c.MaxOutput = 200_000, 100_000 // src: [openai-models] o3-mini
	case m == "o1" || strings.HasPrefix(m, "o1-") || m == "o3" || strings.HasPrefix(m, "o3-") ||
		m == "o4-mini" || strings.HasPrefix(m, "o4-mini-"):
		c.Reasoning, c.Thinking, c.EncryptedReasoning = ReasoningEffort, ThinkingEffort, true
		c.Efforts = []string{"low", "medium", "high"}   // src: [openai-models] o1, o3, o4-mini
		c.ContextWindow, c.MaxOutput = 200_000, 100_000 // src: [openai-models] o1, o3, o4-mini
		if strings.Contains(m, "-pro") {
			c.Efforts = []string{"high"} // src: [openai-models] o1-pro, o3-pro: high only
		}
	case strings.HasPrefix(m, "codex-mini"):
		c.Reasoning, c.Thinking, c.EncryptedReasoning = ReasoningEffort, ThinkingEffort, true
		c.Efforts = []string{"low", "medium", "high"}   // src: [openai-models] codex-mini-latest
		c.ContextWindow, c.MaxOutput = 200_000, 100_000 // src: [openai-models] codex-mini-latest
	case strings.HasPrefix(m, "gpt-oss"):
		// Open weights, served by Chat Completions servers: reasoning text
		// comes back as reasoning_content, effort as reasoning_effort.
		c.Reasoning, c.Thinking, c.TakesImages = ReasoningContent, ThinkingEffort, false
		c.Efforts = []string{"low", "medium", "high"} // src: [openai-models] gpt-oss: "reasoning effort (low, medium, high)"; text input only
		// src: [openai-models] gpt-oss-120b: 131,072 context and 131,072
		// output. For gpt-oss-20b one catalog lists 32,768 output where
		// OpenAI's page gives the whole window: the smaller is kept.
		c.ContextWindow, c.MaxOutput = 131_072, 32_768
		if strings.HasPrefix(m, "gpt-oss-120b") {
			c.MaxOutput = 131_072 // src: [openai-models] gpt-oss-120b: 131,072 max output tokens
		}
	default:
		return Capabilities{}, false
	}
	return withDefault(c), true
}

// entry is one prefix of the table; the longest matching prefix wins.
type entry struct {
	prefix string
	c      Capabilities
}

func known(family string, ctx, out int) Capabilities {
	return Capabilities{Known: true, Family: family, ContextWindow: ctx, MaxOutput: out,
		Reasoning: ReasoningNone, Thinking: ThinkingNone, SchemaDialect: DialectJSONSchema}
}

func with(c Capabilities, f func(*Capabilities)) Capabilities { f(&c); return c }

// seeing is c for a model that reads images.
func seeing(c Capabilities) Capabilities { c.TakesImages = true; return c }

func gemini(ctx, out int, f func(*Capabilities)) Capabilities {
	c := known(familyGoogle, ctx, out)
	// src: [gemini-models] every Gemini model takes image input.
	c.SchemaDialect, c.TakesImages = DialectGemini, true
	if f != nil {
		f(&c)
	}
	return c
}

var table = []entry{
	// OpenAI, pre-reasoning. gpt-4 (8K) and gpt-3.5-turbo read no images.
	{"gpt-4.1", seeing(known(familyOpenAI, 1_047_576, 32_768))},  // src: [openai-models] gpt-4.1
	{"gpt-4o", seeing(known(familyOpenAI, 128_000, 16_384))},     // src: [openai-models] gpt-4o
	{"chatgpt-4o", seeing(known(familyOpenAI, 128_000, 16_384))}, // src: [openai-models] chatgpt-4o-latest
	{"gpt-4-turbo", seeing(known(familyOpenAI, 128_000, 4096))},  // src: [openai-models] gpt-4-turbo
	{"gpt-4", known(familyOpenAI, 8192, 8192)},                   // src: [openai-models] gpt-4
	{"gpt-3.5-turbo", known(familyOpenAI, 16_385, 4096)},         // src: [openai-models] gpt-3.5-turbo

	// Google Gemini. 2.5: thinking budget (Pro cannot turn it off);
	// 3: thinking levels and images in function responses; both need
	// thought signatures replayed.
	{"gemini-3", gemini(1_048_576, 65_536, func(c *Capabilities) { // src: [gemini-models] Gemini 3 Pro
		c.Reasoning, c.Thinking, c.Efforts = ReasoningGemini, ThinkingLevel, []string{"low", "high"} // src: [gemini-models] thinkingLevel low, high
		c.ToolResultMedia = true
	})},
	{"gemini-3-flash", gemini(1_048_576, 65_536, func(c *Capabilities) { // src: [gemini-models] Gemini 3 Flash
		c.Reasoning, c.Thinking, c.Efforts = ReasoningGemini, ThinkingLevel, []string{"minimal", "low", "medium", "high"} // src: [gemini-models] Gemini 3 Flash levels
		c.ToolResultMedia = true
	})},
	{"gemini-2.5-pro", gemini(1_048_576, 65_536, func(c *Capabilities) { // src: [gemini-models] Gemini 2.5 Pro
		c.Reasoning, c.Thinking, c.Efforts = ReasoningGemini, ThinkingBudget, []string{"low", "medium", "high"} // src: [gemini-models] 2.5 Pro cannot turn thinking off
	})},
	{"gemini-2.5-flash", gemini(1_048_576, 65_536, func(c *Capabilities) { // src: [gemini-models] Gemini 2.5 Flash
		c.Reasoning, c.Thinking, c.Efforts = ReasoningGemini, ThinkingBudget, []string{"none", "low", "medium", "high"} // src: [gemini-models] budget 0 turns 2.5 Flash thinking off
	})},
	{"gemini-2.0", gemini(1_048_576, 8192, nil)},     // src: [gemini-models] Gemini 2.0
	{"gemini-1.5-pro", gemini(2_097_152, 8192, nil)}, // src: [gemini-models] Gemini 1.5 Pro
	{"gemini-1.5", gemini(1_048_576, 8192, nil)},     // src: [gemini-models] Gemini 1.5 Flash
	{"gemini", gemini(1_048_576, 8192, nil)},         // src: [gemini-models] the smallest of the family's limits
	{"gemma", known(familyGoogle, 128_000, 8192)},    // src: [model-cards] Gemma 3 (text only kept: Gemma 2 and 3 1B read no images)

	// DeepSeek. The API reads no images in any model ("Model do not
	// support image input"). deepseek-reasoner always thinks and needs
	// reasoning_content back on every assistant tool-call turn.
	{"deepseek-chat", with(known("deepseek", 128_000, 8192), func(c *Capabilities) { // src: [deepseek] pricing page, deepseek-chat
		c.Retired = "2026-07-24" // src: [deepseek] news260424: deepseek-chat and deepseek-reasoner retired 2026-07-24
	})},
	{"deepseek-reasoner", with(known("deepseek", 128_000, 65_536), func(c *Capabilities) { // src: [deepseek] pricing page, deepseek-reasoner
		c.Reasoning, c.Thinking = ReasoningContent, ThinkingAlways
		c.Retired = "2026-07-24" // src: [deepseek] news260424
	})},
	{"deepseek-r1", with(known("deepseek", 128_000, 32_768), func(c *Capabilities) { // src: [model-cards] DeepSeek-R1
		c.Reasoning, c.Thinking = ReasoningContent, ThinkingAlways
	})},
	{"deepseek-v3", known("deepseek", 128_000, 8192)}, // src: [model-cards] DeepSeek-V3
	// V4 (flash, pro) and deepseek-flash (V4.1 Flash, which now serves the
	// V4 names too): thinking on or off by a switch, sized by
	// reasoning_effort (high, max; low and medium are taken as high), with
	// reasoning_content that tool-call turns must carry back. Hosts other
	// than DeepSeek advertise images for V4.1 Flash; DeepSeek documents
	// none and a V4 text-only answer, so no images are kept.
	{"deepseek-v4", with(known("deepseek", 1_000_000, 384_000), deepseekV4)},    // src: [deepseek] pricing page: 1M context, 384K output
	{"deepseek-flash", with(known("deepseek", 1_000_000, 384_000), deepseekV4)}, // src: [deepseek] quick start; V4.1 Flash limits as V4's (one host lists 262,144 output for its own serving)
	{"deepseek-coder", known("deepseek", 128_000, 8192)},                        // src: [model-cards] DeepSeek-Coder-V2
	{"deepseek", known("deepseek", 128_000, 8192)},                              // src: [deepseek] the smallest of the family's limits

	// Mistral (the API has no separate output cap; the share of the
	// context below is what its SDK examples use).
	{"mistral-large", known("mistral", 128_000, 32_768)},          // src: [model-cards] Mistral Large 2
	{"mistral-medium", seeing(known("mistral", 128_000, 32_768))}, // src: [model-cards] Mistral Medium 3 (vision)
	{"mistral-small", seeing(known("mistral", 128_000, 32_768))},  // src: [model-cards] Mistral Small 3.1+ (vision)
	{"ministral", known("mistral", 128_000, 32_768)},              // src: [model-cards] Ministral 8B
	{"codestral", known("mistral", 256_000, 32_768)},              // src: [model-cards] Codestral 25.01
	{"devstral", known("mistral", 128_000, 32_768)},               // src: [model-cards] Devstral
	{"pixtral", seeing(known("mistral", 128_000, 32_768))},        // src: [model-cards] Pixtral
	{"open-mistral-nemo", known("mistral", 128_000, 32_768)},      // src: [model-cards] Mistral NeMo
	{"magistral", with(known("mistral", 128_000, 40_000), func(c *Capabilities) { // src: [model-cards] Magistral
		c.Reasoning, c.Thinking = ReasoningContent, ThinkingAlways
	})},
	{"mistral", known("mistral", 32_768, 8192)}, // src: [model-cards] Mistral 7B

	// Qwen: Qwen3 thinks by default and returns reasoning_content on
	// vLLM/SGLang/DashScope; qwq always thinks. Only the -vl models read images.
	{"qwen3", with(known("qwen", 40_960, 8192), func(c *Capabilities) { c.Reasoning = ReasoningContent })}, // src: [model-cards] Qwen3 8B
	{"qwen3-coder", known("qwen", 262_144, 65_536)},                                                        // src: [model-cards] Qwen3-Coder
	{"qwen3-max", known("qwen", 262_144, 32_768)},                                                          // src: [model-cards] Qwen3-Max
	{"qwen3-vl", seeing(known("qwen", 262_144, 32_768))},                                                   // src: [model-cards] Qwen3-VL
	{"qwen-vl", seeing(known("qwen", 32_768, 8192))},                                                       // src: [model-cards] Qwen-VL
	{"qwen2.5-vl", seeing(known("qwen", 32_768, 8192))},                                                    // src: [model-cards] Qwen2.5-VL
	{"qwen-max", known("qwen", 32_768, 8192)},                                                              // src: [model-cards] qwen-max
	{"qwen-plus", known("qwen", 131_072, 16_384)},                                                          // src: [model-cards] qwen-plus
	{"qwen-turbo", known("qwen", 1_000_000, 16_384)},                                                       // src: [model-cards] qwen-turbo
	{"qwen2.5-coder", known("qwen", 32_768, 8192)},                                                         // src: [model-cards] Qwen2.5-Coder
	{"qwen2.5", known("qwen", 32_768, 8192)},                                                               // src: [model-cards] Qwen2.5
	{"qwq", with(known("qwen", 131_072, 32_768), func(c *Capabilities) { // src: [model-cards] QwQ-32B
		c.Reasoning, c.Thinking = ReasoningContent, ThinkingAlways
	})},
	{"qwen", known("qwen", 32_768, 8192)}, // src: [model-cards] the smallest of the family's limits

	// Meta Llama ("llama3" alone is the 8k-context Llama 3). Llama 3.x
	// reads text only, but for 3.2's -vision models; Llama 4 reads images.
	{"llama3", known("meta", 8192, 4096)},                          // src: [model-cards] Llama 3
	{"llama3.", known("meta", 128_000, 8192)},                      // src: [model-cards] Llama 3.1+
	{"llama3-", known("meta", 128_000, 8192)},                      // src: [model-cards] Llama 3.1+
	{"llama-3", known("meta", 128_000, 8192)},                      // src: [model-cards] Llama 3.1+
	{"llama-3.2-11b-vision", seeing(known("meta", 128_000, 8192))}, // src: [model-cards] Llama 3.2 Vision
	{"llama-3.2-90b-vision", seeing(known("meta", 128_000, 8192))}, // src: [model-cards] Llama 3.2 Vision
	{"llama-3.3-70b-versatile", known("meta", 131_072, 32_768)},    // src: [model-cards] Groq llama-3.3-70b-versatile: text only
	{"llama4", seeing(known("meta", 128_000, 8192))},               // src: [model-cards] Llama 4 Scout, Maverick
	{"llama-4", seeing(known("meta", 128_000, 8192))},              // src: [model-cards] Llama 4 Scout, Maverick
	{"llama", known("meta", 128_000, 8192)},                        // src: [model-cards] Llama 3.1+
}

// deepseekV4 is the reasoning of the V4 generation.
func deepseekV4(c *Capabilities) {
	c.Reasoning, c.Thinking = ReasoningContent, ThinkingSwitch
	c.Efforts = []string{"high", "max"} // src: [deepseek] thinking_mode: reasoning_effort high or max
}

func prefixTable(m string) (Capabilities, bool) {
	best := -1
	var c Capabilities
	for _, e := range table {
		if strings.HasPrefix(m, e.prefix) && len(e.prefix) > best {
			best, c = len(e.prefix), e.c
		}
	}
	if best < 0 {
		return Capabilities{}, false
	}
	if c.Efforts != nil {
		c.Efforts = append([]string(nil), c.Efforts...)
	}
	return withDefault(c), true
}

// fallback is what an unknown id gets: nothing that can draw a 400 (no
// deferral, no reasoning replay, no images), a modest output limit; behind
// Gemini's API its schema dialect, behind Claude's its context window.
//
// nosource: conservative defaults, not any model's figures.
func fallback(family string) Capabilities {
	c := Capabilities{ContextWindow: 128_000, MaxOutput: 8192, DefaultMaxTokens: 4096,
		Reasoning: ReasoningNone, Thinking: ThinkingNone, SchemaDialect: DialectJSONSchema}
	switch family {
	case familyGoogle:
		c.SchemaDialect, c.Family = DialectGemini, familyGoogle
	case familyAnthropic:
		c.ContextWindow = 200_000
	}
	return c
}

// withDefault fills DefaultMaxTokens with a generous share of MaxOutput:
// all of it up to 32k, half of larger limits (capped at 64k), so one long
// tool argument (a whole file) fits while a runaway answer stays bounded.
func withDefault(c Capabilities) Capabilities {
	if c.DefaultMaxTokens == 0 {
		c.DefaultMaxTokens = defaultShare(c.MaxOutput)
	}
	return c
}

// nosource: a share of the model's limit, not a model's figure.
func defaultShare(maxOut int) int {
	switch {
	case maxOut <= 0:
		return 4096
	case maxOut <= 32_768:
		return maxOut
	case maxOut/2 < 32_000:
		return 32_000
	case maxOut/2 > 64_000:
		return 64_000
	}
	return maxOut / 2
}
