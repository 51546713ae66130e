// Package catalogdef defines the demo's bundled tool catalog. The tools are
// synthetic (the real MCP catalogs in shared/ carry no licence of their
// own), built from a small table of servers, resources and verbs so the
// catalog is a few hundred realistic tools without hand-writing each one.
// cmd gencatalog writes it to demo/catalog.json; a test keeps the two equal.
package catalogdef

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Tool is one catalog entry, in the shape of an MCP tools/list item plus
// the server it belongs to.
type Tool struct {
	Server            string          `json:"server"`
	ServerDescription string          `json:"server_description"`
	Name              string          `json:"name"`
	Description       string          `json:"description"`
	InputSchema       json.RawMessage `json:"inputSchema"`
	// Deferred is false for the handful of tools the demo keeps active.
	Deferred bool `json:"deferred"`
}

type field struct {
	name, typ, desc string
	enum            []string
}

type resource struct {
	name, plural string
	fields       []field
	verbs        []string
}

type server struct {
	name, title, desc string
	resources         []resource
	specials          []special
}

type special struct {
	name, desc string
	params     []field
	required   []string
	active     bool
}

func f(name, typ, desc string, enum ...string) field { return field{name, typ, desc, enum} }

var crud = []string{"list", "get", "create", "update", "delete"}

var servers = []server{
	{name: "calendar", title: "Calendar", desc: "Personal and shared calendars: events, reminders, availability.",
		resources: []resource{
			{"event", "events", []field{f("title", "string", "Event title"), f("start", "string", "Start time, RFC 3339"), f("end", "string", "End time, RFC 3339"), f("location", "string", "Where it happens"), f("attendees", "array", "Email addresses of attendees")}, crud},
			{"reminder", "reminders", []field{f("text", "string", "What to be reminded of"), f("due", "string", "When, RFC 3339")}, crud},
			{"calendar", "calendars", []field{f("name", "string", "Calendar name"), f("timezone", "string", "IANA time zone")}, []string{"list", "get", "create"}},
		},
		specials: []special{{"calendar_find_free_slot", "Find the first free slot of a given length shared by a list of attendees within a date range.", []field{f("attendees", "array", "Email addresses"), f("duration_minutes", "integer", "Length of the slot"), f("date", "string", "Day to search, YYYY-MM-DD")}, []string{"duration_minutes"}, false}},
	},
	{name: "mail", title: "Mail", desc: "Email: read, search, send and organise messages.",
		resources: []resource{
			{"message", "messages", []field{f("to", "string", "Recipient email"), f("subject", "string", "Subject line"), f("body", "string", "Plain text body")}, []string{"list", "get", "create", "delete", "search"}},
			{"draft", "drafts", []field{f("to", "string", "Recipient email"), f("subject", "string", "Subject line"), f("body", "string", "Plain text body")}, crud},
			{"label", "labels", []field{f("name", "string", "Label name"), f("color", "string", "Label colour", "red", "green", "blue", "grey")}, crud},
			{"thread", "threads", []field{f("subject", "string", "Thread subject")}, []string{"list", "get", "delete", "search"}},
		},
		specials: []special{{"mail_send_email", "Send an email message immediately to one recipient.", []field{f("to", "string", "Recipient email"), f("subject", "string", "Subject line"), f("body", "string", "Plain text body")}, []string{"to", "subject", "body"}, false}},
	},
	{name: "codehost", title: "Code hosting", desc: "Git hosting: repositories, issues, pull requests, CI.",
		resources: []resource{
			{"repository", "repositories", []field{f("owner", "string", "Owner login"), f("repo", "string", "Repository name"), f("private", "boolean", "Private repository")}, []string{"list", "get", "create", "search"}},
			{"issue", "issues", []field{f("repo", "string", "owner/name"), f("title", "string", "Issue title"), f("body", "string", "Issue text"), f("state", "string", "Issue state", "open", "closed")}, []string{"list", "get", "create", "update", "search"}},
			{"pull_request", "pull_requests", []field{f("repo", "string", "owner/name"), f("title", "string", "Title"), f("head", "string", "Source branch"), f("base", "string", "Target branch")}, []string{"list", "get", "create", "update", "merge"}},
			{"branch", "branches", []field{f("repo", "string", "owner/name"), f("branch", "string", "Branch name")}, []string{"list", "create", "delete"}},
			{"commit", "commits", []field{f("repo", "string", "owner/name"), f("sha", "string", "Commit SHA")}, []string{"list", "get", "search"}},
			{"release", "releases", []field{f("repo", "string", "owner/name"), f("tag", "string", "Tag name"), f("notes", "string", "Release notes")}, []string{"list", "get", "create"}},
			{"workflow_run", "workflow_runs", []field{f("repo", "string", "owner/name"), f("workflow", "string", "Workflow file name")}, []string{"list", "get", "rerun", "cancel"}},
		},
	},
	{name: "files", title: "Files", desc: "Local file system access inside the allowed directories.",
		specials: []special{
			{"files_read_file", "Read the complete contents of a text file.", []field{f("path", "string", "File path")}, []string{"path"}, true},
			{"files_list_directory", "List files and directories at a path, with sizes.", []field{f("path", "string", "Directory path")}, []string{"path"}, true},
			{"files_write_file", "Create or overwrite a file with the given content.", []field{f("path", "string", "File path"), f("content", "string", "Text to write")}, []string{"path", "content"}, false},
			{"files_search_files", "Find files whose names match a glob pattern, recursively.", []field{f("path", "string", "Directory to search"), f("pattern", "string", "Glob pattern")}, []string{"pattern"}, false},
			{"files_move_file", "Move or rename a file.", []field{f("source", "string", "Current path"), f("destination", "string", "New path")}, []string{"source", "destination"}, false},
			{"files_file_info", "Size, permissions and timestamps of a file.", []field{f("path", "string", "File path")}, []string{"path"}, false},
			{"files_create_directory", "Create a directory, with parents.", []field{f("path", "string", "Directory path")}, []string{"path"}, false},
		},
	},
	{name: "notes", title: "Notes", desc: "A notebook app: notes, notebooks and tags.",
		resources: []resource{
			{"note", "notes", []field{f("title", "string", "Note title"), f("content", "string", "Markdown content"), f("notebook", "string", "Notebook name")}, []string{"list", "get", "create", "update", "delete", "search"}},
			{"notebook", "notebooks", []field{f("name", "string", "Notebook name")}, crud},
			{"tag", "tags", []field{f("name", "string", "Tag")}, []string{"list", "create", "delete"}},
		},
	},
	{name: "tickets", title: "Issue tracker", desc: "Project tracking: tickets, sprints, comments and projects.",
		resources: []resource{
			{"ticket", "tickets", []field{f("project", "string", "Project key"), f("summary", "string", "One-line summary"), f("priority", "string", "Priority", "low", "medium", "high", "urgent"), f("assignee", "string", "Assignee email")}, []string{"list", "get", "create", "update", "delete", "search", "assign"}},
			{"sprint", "sprints", []field{f("project", "string", "Project key"), f("name", "string", "Sprint name")}, []string{"list", "get", "create", "close"}},
			{"comment", "comments", []field{f("ticket", "string", "Ticket key"), f("text", "string", "Comment text")}, []string{"list", "create", "delete"}},
			{"project", "projects", []field{f("key", "string", "Project key"), f("name", "string", "Project name")}, []string{"list", "get", "create"}},
		},
	},
	{name: "chat", title: "Team chat", desc: "Team messaging: channels, messages, users and reactions.",
		resources: []resource{
			{"channel", "channels", []field{f("name", "string", "Channel name"), f("topic", "string", "Channel topic")}, []string{"list", "get", "create", "archive"}},
			{"message", "messages", []field{f("channel", "string", "Channel name"), f("text", "string", "Message text")}, []string{"list", "post", "update", "delete", "search"}},
			{"user", "users", []field{f("email", "string", "User email")}, []string{"list", "get", "search"}},
			{"reaction", "reactions", []field{f("channel", "string", "Channel name"), f("emoji", "string", "Emoji name")}, []string{"add", "remove"}},
		},
	},
	{name: "crm", title: "CRM", desc: "Customer relationships: contacts, companies, deals and activities.",
		resources: []resource{
			{"contact", "contacts", []field{f("name", "string", "Full name"), f("email", "string", "Email"), f("company", "string", "Company name")}, []string{"list", "get", "create", "update", "delete", "search"}},
			{"company", "companies", []field{f("name", "string", "Company name"), f("domain", "string", "Web domain")}, crud},
			{"deal", "deals", []field{f("name", "string", "Deal name"), f("amount", "number", "Value in USD"), f("stage", "string", "Pipeline stage", "lead", "qualified", "proposal", "won", "lost")}, crud},
			{"activity", "activities", []field{f("contact", "string", "Contact email"), f("kind", "string", "Activity kind", "call", "meeting", "email"), f("note", "string", "What happened")}, []string{"list", "create"}},
		},
	},
	{name: "payments", title: "Payments", desc: "Billing: invoices, customers, refunds, subscriptions and payouts.",
		resources: []resource{
			{"invoice", "invoices", []field{f("customer", "string", "Customer ID"), f("amount", "number", "Amount"), f("currency", "string", "ISO currency code")}, []string{"list", "get", "create", "void", "send"}},
			{"customer", "customers", []field{f("email", "string", "Customer email"), f("name", "string", "Customer name")}, crud},
			{"refund", "refunds", []field{f("payment", "string", "Payment ID"), f("amount", "number", "Amount to refund")}, []string{"list", "get", "create"}},
			{"subscription", "subscriptions", []field{f("customer", "string", "Customer ID"), f("plan", "string", "Plan", "free", "pro", "team")}, []string{"list", "get", "create", "cancel"}},
			{"payout", "payouts", []field{f("amount", "number", "Amount")}, []string{"list", "get"}},
		},
	},
	{name: "weather", title: "Weather", desc: "Weather conditions, forecasts and alerts worldwide.",
		specials: []special{
			{"weather_current", "Current weather conditions for a city: temperature, wind, humidity and sky.", []field{f("city", "string", "City name"), f("units", "string", "Units", "metric", "imperial")}, []string{"city"}, false},
			{"weather_forecast", "Multi-day weather forecast for a city, with highs, lows and rain chance.", []field{f("city", "string", "City name"), f("days", "integer", "Number of days, 1 to 7")}, []string{"city"}, false},
			{"weather_alerts", "Active severe weather alerts (storms, heat, floods) for a region.", []field{f("region", "string", "Region or city")}, []string{"region"}, false},
			{"weather_air_quality", "Air quality index and main pollutants for a city.", []field{f("city", "string", "City name")}, []string{"city"}, false},
			{"weather_sunrise_sunset", "Sunrise and sunset times for a city and date.", []field{f("city", "string", "City name"), f("date", "string", "YYYY-MM-DD")}, []string{"city"}, false},
		},
	},
	{name: "maps", title: "Maps", desc: "Geocoding, directions, distances and places.",
		specials: []special{
			{"maps_geocode", "Turn an address or place name into latitude and longitude.", []field{f("address", "string", "Address or place")}, []string{"address"}, false},
			{"maps_reverse_geocode", "Turn coordinates into the nearest address.", []field{f("lat", "number", "Latitude"), f("lng", "number", "Longitude")}, []string{"lat", "lng"}, false},
			{"maps_directions", "Route between two places by car, bike, foot or transit, with duration.", []field{f("origin", "string", "Start"), f("destination", "string", "End"), f("mode", "string", "Travel mode", "driving", "cycling", "walking", "transit")}, []string{"origin", "destination"}, false},
			{"maps_distance", "Straight-line distance between two cities in kilometres.", []field{f("origin", "string", "First city"), f("destination", "string", "Second city")}, []string{"origin", "destination"}, false},
			{"maps_places_search", "Search for places (restaurants, shops, sights) near a location.", []field{f("query", "string", "What to look for"), f("near", "string", "Location")}, []string{"query"}, false},
		},
	},
	{name: "finance", title: "Finance", desc: "Exchange rates, currency conversion and market quotes.",
		specials: []special{
			{"finance_currency_convert", "Convert an amount of money from one currency to another at today's rate.", []field{f("amount", "number", "Amount to convert"), f("from", "string", "ISO code, e.g. EUR"), f("to", "string", "ISO code, e.g. USD")}, []string{"amount", "from", "to"}, false},
			{"finance_exchange_rates", "Exchange rates of a base currency against major currencies.", []field{f("base", "string", "ISO code")}, []string{"base"}, false},
			{"finance_stock_quote", "Latest price, change and volume for a stock ticker.", []field{f("symbol", "string", "Ticker symbol")}, []string{"symbol"}, false},
			{"finance_crypto_price", "Current price of a cryptocurrency in a fiat currency.", []field{f("coin", "string", "Coin symbol, e.g. BTC"), f("currency", "string", "ISO code")}, []string{"coin"}, false},
			{"finance_loan_payment", "Monthly payment of a fixed-rate loan.", []field{f("principal", "number", "Loan amount"), f("annual_rate", "number", "Interest rate in percent"), f("years", "integer", "Term in years")}, []string{"principal", "annual_rate", "years"}, false},
		},
	},
	{name: "k8s", title: "Kubernetes", desc: "Cluster operations: pods, deployments, services, nodes and logs.",
		resources: []resource{
			{"pod", "pods", []field{f("namespace", "string", "Namespace"), f("name", "string", "Pod name")}, []string{"list", "get", "delete", "logs"}},
			{"deployment", "deployments", []field{f("namespace", "string", "Namespace"), f("name", "string", "Deployment name"), f("replicas", "integer", "Replica count")}, []string{"list", "get", "scale", "restart", "rollback"}},
			{"service", "services", []field{f("namespace", "string", "Namespace"), f("name", "string", "Service name")}, []string{"list", "get"}},
			{"node", "nodes", []field{f("name", "string", "Node name")}, []string{"list", "get", "cordon", "drain"}},
			{"configmap", "configmaps", []field{f("namespace", "string", "Namespace"), f("name", "string", "ConfigMap name")}, []string{"list", "get", "update"}},
		},
	},
	{name: "database", title: "Database", desc: "SQL database access: queries, tables and backups.",
		specials: []special{
			{"database_query", "Run a read-only SQL query and return the rows.", []field{f("sql", "string", "SELECT statement")}, []string{"sql"}, false},
			{"database_list_tables", "List the tables of the database with row counts.", nil, nil, false},
			{"database_describe_table", "Columns, types and indexes of a table.", []field{f("table", "string", "Table name")}, []string{"table"}, false},
			{"database_backup", "Start a backup of the database to object storage.", []field{f("label", "string", "Backup label")}, nil, false},
			{"database_explain_query", "Show the query plan of a SQL statement.", []field{f("sql", "string", "SQL statement")}, []string{"sql"}, false},
		},
	},
	{name: "wiki", title: "Wiki", desc: "Team documentation: pages, spaces and comments.",
		resources: []resource{
			{"page", "pages", []field{f("space", "string", "Space key"), f("title", "string", "Page title"), f("body", "string", "Markdown body")}, []string{"list", "get", "create", "update", "delete", "search"}},
			{"space", "spaces", []field{f("key", "string", "Space key"), f("name", "string", "Space name")}, []string{"list", "get", "create"}},
			{"comment", "comments", []field{f("page", "string", "Page ID"), f("text", "string", "Comment")}, []string{"list", "create"}},
		},
	},
	{name: "travel", title: "Travel", desc: "Flights, hotels and bookings.",
		specials: []special{
			{"travel_search_flights", "Search flights between two airports on a date, cheapest first.", []field{f("origin", "string", "IATA code or city"), f("destination", "string", "IATA code or city"), f("date", "string", "YYYY-MM-DD")}, []string{"origin", "destination"}, false},
			{"travel_search_hotels", "Search hotels in a city for a stay, with price per night.", []field{f("city", "string", "City"), f("check_in", "string", "YYYY-MM-DD"), f("nights", "integer", "Number of nights")}, []string{"city"}, false},
			{"travel_get_booking", "Details of a booking by reference.", []field{f("reference", "string", "Booking reference")}, []string{"reference"}, false},
			{"travel_cancel_booking", "Cancel a booking by reference.", []field{f("reference", "string", "Booking reference")}, []string{"reference"}, false},
			{"travel_list_bookings", "List upcoming bookings.", nil, nil, false},
		},
	},
	{name: "utils", title: "Utilities", desc: "Small computations: units, time zones, math, hashes and encodings.",
		specials: []special{
			{"utils_unit_convert", "Convert a value between units of length, mass, temperature or volume.", []field{f("value", "number", "Value"), f("from", "string", "Unit, e.g. km, mi, kg, lb, c, f"), f("to", "string", "Target unit")}, []string{"value", "from", "to"}, false},
			{"utils_timezone_convert", "Convert a time from one time zone to another.", []field{f("time", "string", "HH:MM"), f("from", "string", "IANA zone"), f("to", "string", "IANA zone")}, []string{"time", "from", "to"}, false},
			{"utils_calculate", "Evaluate an arithmetic expression with + - * / and parentheses.", []field{f("expression", "string", "Expression")}, []string{"expression"}, false},
			{"utils_uuid", "Generate random UUIDs.", []field{f("count", "integer", "How many")}, nil, false},
			{"utils_hash_text", "Hash text with SHA-256 and return the hex digest.", []field{f("text", "string", "Input text")}, []string{"text"}, false},
			{"utils_base64_encode", "Encode text as base64.", []field{f("text", "string", "Input text")}, []string{"text"}, false},
			{"utils_base64_decode", "Decode base64 to text.", []field{f("data", "string", "Base64 data")}, []string{"data"}, false},
			{"utils_random_password", "Generate a random password.", []field{f("length", "integer", "Length")}, nil, false},
			{"utils_word_count", "Count words, lines and characters of a text.", []field{f("text", "string", "Input text")}, []string{"text"}, false},
			{"utils_current_time", "Current date and time in a time zone.", []field{f("timezone", "string", "IANA zone")}, nil, true},
		},
	},
	{name: "translate", title: "Translation", desc: "Machine translation and language detection.",
		specials: []special{
			{"translate_text", "Translate text into a target language.", []field{f("text", "string", "Text"), f("target", "string", "Target language code, e.g. fr")}, []string{"text", "target"}, false},
			{"translate_detect_language", "Detect the language of a text.", []field{f("text", "string", "Text")}, []string{"text"}, false},
			{"translate_list_languages", "List the supported languages.", nil, nil, false},
		},
	},
	{name: "monitoring", title: "Monitoring", desc: "Observability: alerts, incidents, metrics and dashboards.",
		resources: []resource{
			{"alert", "alerts", []field{f("service", "string", "Service name"), f("severity", "string", "Severity", "info", "warning", "critical")}, []string{"list", "get", "acknowledge", "silence"}},
			{"incident", "incidents", []field{f("title", "string", "Incident title"), f("severity", "string", "Severity", "sev1", "sev2", "sev3")}, []string{"list", "get", "create", "resolve"}},
			{"dashboard", "dashboards", []field{f("name", "string", "Dashboard name")}, []string{"list", "get"}},
		},
		specials: []special{{"monitoring_query_metric", "Query a time series metric (e.g. CPU, latency) over the last hours.", []field{f("metric", "string", "Metric name"), f("service", "string", "Service"), f("hours", "integer", "Look-back window")}, []string{"metric"}, false}},
	},
	{name: "storage", title: "Object storage", desc: "Buckets and objects in S3-compatible storage.",
		resources: []resource{
			{"bucket", "buckets", []field{f("name", "string", "Bucket name"), f("region", "string", "Region")}, []string{"list", "get", "create", "delete"}},
			{"object", "objects", []field{f("bucket", "string", "Bucket name"), f("key", "string", "Object key")}, []string{"list", "get", "upload", "delete", "copy"}},
		},
	},
	{name: "analytics", title: "Product analytics", desc: "Events, funnels, segments and reports about product usage.",
		resources: []resource{
			{"report", "reports", []field{f("name", "string", "Report name"), f("period", "string", "Period", "day", "week", "month")}, crud},
			{"funnel", "funnels", []field{f("name", "string", "Funnel name"), f("steps", "array", "Event names in order")}, []string{"list", "get", "create"}},
			{"segment", "segments", []field{f("name", "string", "Segment name"), f("rule", "string", "Filter rule")}, []string{"list", "get", "create", "delete"}},
		},
		specials: []special{{"analytics_count_events", "Count occurrences of an event over a date range, by day.", []field{f("event", "string", "Event name"), f("from", "string", "YYYY-MM-DD"), f("to", "string", "YYYY-MM-DD")}, []string{"event"}, false}},
	},
	{name: "social", title: "Social media", desc: "Publish and schedule posts, read mentions and followers.",
		resources: []resource{
			{"post", "posts", []field{f("text", "string", "Post text"), f("network", "string", "Network", "mastodon", "bluesky", "linkedin")}, []string{"list", "get", "create", "delete", "schedule"}},
			{"mention", "mentions", []field{f("network", "string", "Network", "mastodon", "bluesky", "linkedin")}, []string{"list"}},
			{"follower", "followers", []field{f("network", "string", "Network", "mastodon", "bluesky", "linkedin")}, []string{"list"}},
		},
	},
}

var verbText = map[string]string{
	"list":        "List %[2]s in %[3]s, newest first, with paging.",
	"get":         "Get one %[1]s from %[3]s by ID, with all its fields.",
	"create":      "Create a new %[1]s in %[3]s.",
	"update":      "Update fields of an existing %[1]s in %[3]s.",
	"delete":      "Delete a %[1]s from %[3]s. This cannot be undone.",
	"search":      "Search %[2]s in %[3]s by free text; returns the best matches.",
	"merge":       "Merge a %[1]s in %[3]s.",
	"rerun":       "Re-run a %[1]s in %[3]s.",
	"cancel":      "Cancel a %[1]s in %[3]s.",
	"assign":      "Assign a %[1]s in %[3]s to a person.",
	"close":       "Close a %[1]s in %[3]s.",
	"archive":     "Archive a %[1]s in %[3]s.",
	"post":        "Post a new %[1]s in %[3]s.",
	"add":         "Add a %[1]s in %[3]s.",
	"remove":      "Remove a %[1]s in %[3]s.",
	"void":        "Void an open %[1]s in %[3]s.",
	"send":        "Send a %[1]s from %[3]s to its recipient.",
	"logs":        "Fetch the recent logs of a %[1]s in %[3]s.",
	"scale":       "Scale a %[1]s in %[3]s to a replica count.",
	"restart":     "Restart a %[1]s in %[3]s with a rolling update.",
	"rollback":    "Roll a %[1]s in %[3]s back to its previous revision.",
	"cordon":      "Cordon a %[1]s in %[3]s so no new pods land on it.",
	"drain":       "Drain a %[1]s in %[3]s, evicting its pods.",
	"acknowledge": "Acknowledge a firing %[1]s in %[3]s.",
	"silence":     "Silence a %[1]s in %[3]s for a while.",
	"resolve":     "Resolve an open %[1]s in %[3]s.",
	"upload":      "Upload an %[1]s to %[3]s.",
	"copy":        "Copy an %[1]s within %[3]s.",
	"schedule":    "Schedule a %[1]s on %[3]s for later.",
}

func schema(fields []field, required []string) json.RawMessage {
	props := map[string]any{}
	for _, fl := range fields {
		p := map[string]any{"type": fl.typ, "description": fl.desc}
		if fl.typ == "array" {
			p["items"] = map[string]any{"type": "string"}
		}
		if len(fl.enum) > 0 {
			p["enum"] = fl.enum
		}
		props[fl.name] = p
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // maps of strings always marshal
	}
	return b
}

func resourceTool(sv server, r resource, verb string) Tool {
	desc := fmt.Sprintf(verbText[verb], strings.ReplaceAll(r.name, "_", " "), strings.ReplaceAll(r.plural, "_", " "), sv.title)
	var fields []field
	var req []string
	idField := f("id", "string", "The "+strings.ReplaceAll(r.name, "_", " ")+" ID")
	switch verb {
	case "list":
		fields = append(fields, f("limit", "integer", "Maximum results"))
		for _, fl := range r.fields {
			if fl.typ == "string" && len(fields) < 3 {
				fields = append(fields, fl)
			}
		}
	case "search":
		fields = []field{f("query", "string", "Search text"), f("limit", "integer", "Maximum results")}
		req = []string{"query"}
	case "create", "post", "add", "upload", "schedule":
		fields = r.fields
		req = []string{r.fields[0].name}
	case "update":
		fields = append([]field{idField}, r.fields...)
		req = []string{"id"}
	case "scale":
		fields = r.fields
		req = []string{"name", "replicas"}
	default:
		fields = []field{idField}
		req = []string{"id"}
	}
	name := sv.name + "_" + verb + "_" + r.name
	if verb == "list" || verb == "search" {
		name = sv.name + "_" + verb + "_" + r.plural
	}
	return Tool{Server: sv.name, ServerDescription: sv.desc, Name: name, Description: desc, InputSchema: schema(fields, req), Deferred: true}
}

// Build returns the catalog.
func Build() []Tool {
	var tools []Tool
	for _, sv := range servers {
		for _, r := range sv.resources {
			for _, v := range r.verbs {
				tools = append(tools, resourceTool(sv, r, v))
			}
		}
		for _, sp := range sv.specials {
			tools = append(tools, Tool{Server: sv.name, ServerDescription: sv.desc, Name: sp.name, Description: sp.desc,
				InputSchema: schema(sp.params, sp.required), Deferred: !sp.active})
		}
	}
	return tools
}

// JSON is the catalog as written to demo/catalog.json.
func JSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	if err := enc.Encode(Build()); err != nil {
		return nil, fmt.Errorf("encode catalog: %w", err)
	}
	return buf.Bytes(), nil
}
