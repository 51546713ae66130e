package demo

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agent-dev/agent/tools"
)

// executor runs a catalog tool locally: a handful compute real answers
// (conversions, arithmetic, hashes, distances), the rest return plausible
// records derived deterministically from their arguments.
func executor(c CatalogTool, fs *memFS) tools.Executor {
	return func(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
		if err := ctx.Err(); err != nil {
			return tools.Result{}, err
		}
		args := map[string]any{}
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &args); err != nil {
				return tools.Result{Text: "arguments are not a JSON object: " + err.Error(), IsError: true}, nil
			}
		}
		a := argv(args)
		var v any
		var err error
		if fn, ok := specials[c.Name]; ok {
			v, err = fn(a)
		} else if strings.HasPrefix(c.Name, "files_") {
			v, err = fs.run(c.Name, a)
		} else {
			v = generic(c, a)
		}
		if err != nil {
			return tools.Result{Text: err.Error(), IsError: true}, nil
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		return tools.Result{Text: string(b)}, nil
	}
}

// argv reads arguments leniently: models send numbers as strings and back.
type argv map[string]any

func (a argv) str(k, def string) string {
	switch v := a[k].(type) {
	case string:
		if v != "" {
			return v
		}
	case float64:
		return fmt.Sprint(v)
	}
	return def
}

func (a argv) num(k string, def float64) float64 {
	switch v := a[k].(type) {
	case float64:
		return v
	case string:
		var f float64
		if _, err := fmt.Sscan(v, &f); err == nil {
			return f
		}
	}
	return def
}

// seed makes fake data stable for the same arguments.
func seed(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(strings.ToLower(p)))
		h.Write([]byte{0})
	}
	// splitmix64 finaliser: FNV alone leaves small moduli barely changed
	// when only the last byte differs.
	z := h.Sum64() + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func pick[T any](s uint64, xs []T) T { return xs[s%uint64(len(xs))] }

var skies = []string{"sunny", "partly cloudy", "cloudy", "light rain", "showers", "clear", "windy"}

var specials = map[string]func(argv) (any, error){
	"weather_current": func(a argv) (any, error) {
		city := a.str("city", "Lisbon")
		s := seed(city)
		t := 6 + float64(s%12)
		unit := "°C"
		if a.str("units", "metric") == "imperial" {
			t, unit = t*9/5+32, "°F"
		}
		return map[string]any{"city": city, "temperature": fmt.Sprintf("%.0f%s", t, unit), "sky": pick(s>>3, skies),
			"wind_kmh": 5 + s%30, "humidity_pct": 40 + s%50, "observed_at": today().Format(time.RFC3339)}, nil
	},
	"weather_forecast": func(a argv) (any, error) {
		city := a.str("city", "Lisbon")
		n := int(a.num("days", 3))
		if n < 1 || n > 7 {
			return nil, fmt.Errorf("days must be 1 to 7, got %d", n)
		}
		var days []map[string]any
		for i := 0; i < n; i++ {
			s := seed(city, fmt.Sprint(i))
			hi := 9 + int(s%9)
			days = append(days, map[string]any{"date": today().AddDate(0, 0, i).Format("Mon 2 Jan"),
				"high_c": hi, "low_c": hi - 4 - int(s%5), "sky": pick(s>>5, skies), "rain_pct": (s >> 9) % 90})
		}
		return map[string]any{"city": city, "days": days}, nil
	},
	"weather_alerts": func(a argv) (any, error) {
		return map[string]any{"region": a.str("region", "Lisbon"), "alerts": []string{}}, nil
	},
	"weather_air_quality": func(a argv) (any, error) {
		s := seed(a.str("city", "Lisbon"))
		return map[string]any{"city": a.str("city", "Lisbon"), "aqi": 20 + s%80, "main_pollutant": pick(s>>4, []string{"PM2.5", "O3", "NO2"})}, nil
	},
	"weather_sunrise_sunset": func(a argv) (any, error) {
		s := seed(a.str("city", "Lisbon"))
		return map[string]any{"city": a.str("city", "Lisbon"), "sunrise": fmt.Sprintf("07:%02d", s%60), "sunset": fmt.Sprintf("17:%02d", (s>>6)%60)}, nil
	},
	"finance_currency_convert": func(a argv) (any, error) {
		from, to := strings.ToUpper(a.str("from", "EUR")), strings.ToUpper(a.str("to", "USD"))
		rf, ok1 := usdPer[from]
		rt, ok2 := usdPer[to]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("unknown currency: use one of %s", strings.Join(currencies(), ", "))
		}
		amt := a.num("amount", 1)
		rate := rf / rt
		return map[string]any{"amount": amt, "from": from, "to": to, "rate": round(rate, 4), "result": round(amt*rate, 2), "as_of": today().Format("2006-01-02")}, nil
	},
	"finance_exchange_rates": func(a argv) (any, error) {
		base := strings.ToUpper(a.str("base", "USD"))
		rb, ok := usdPer[base]
		if !ok {
			return nil, fmt.Errorf("unknown currency %s", base)
		}
		rates := map[string]float64{}
		for c, r := range usdPer {
			if c != base {
				rates[c] = round(rb/r, 4)
			}
		}
		return map[string]any{"base": base, "rates": rates}, nil
	},
	"finance_stock_quote": func(a argv) (any, error) {
		sym := strings.ToUpper(a.str("symbol", "ACME"))
		s := seed(sym)
		p := 20 + float64(s%400) + float64(s%100)/100
		return map[string]any{"symbol": sym, "price": round(p, 2), "change_pct": round(float64(int(s%600)-300)/100, 2), "volume": 100000 + s%900000}, nil
	},
	"finance_crypto_price": func(a argv) (any, error) {
		coin := strings.ToUpper(a.str("coin", "BTC"))
		return map[string]any{"coin": coin, "currency": strings.ToUpper(a.str("currency", "USD")), "price": round(float64(seed(coin)%60000)+100, 2)}, nil
	},
	"finance_loan_payment": func(a argv) (any, error) {
		p, r, n := a.num("principal", 10000), a.num("annual_rate", 5)/1200, a.num("years", 10)*12
		if n <= 0 {
			return nil, fmt.Errorf("years must be positive")
		}
		pay := p / n
		if r > 0 {
			pay = p * r / (1 - math.Pow(1+r, -n))
		}
		return map[string]any{"monthly_payment": round(pay, 2), "total_paid": round(pay*n, 2), "total_interest": round(pay*n-p, 2)}, nil
	},
	"maps_geocode": func(a argv) (any, error) {
		name := a.str("address", "Lisbon")
		c, ok := lookupCity(name)
		if !ok {
			s := seed(name)
			c = city{name, float64(s%180) - 90, float64((s>>8)%360) - 180}
		}
		return map[string]any{"query": name, "lat": c.lat, "lng": c.lng}, nil
	},
	"maps_reverse_geocode": func(a argv) (any, error) {
		lat, lng := a.num("lat", 38.72), a.num("lng", -9.14)
		best, bd := cities[0], math.MaxFloat64
		for _, c := range cities {
			if d := haversine(lat, lng, c.lat, c.lng); d < bd {
				best, bd = c, d
			}
		}
		return map[string]any{"nearest_city": best.name, "distance_km": round(bd, 1)}, nil
	},
	"maps_distance": func(a argv) (any, error) {
		o, d := a.str("origin", "Paris"), a.str("destination", "Berlin")
		co, ok1 := lookupCity(o)
		cd, ok2 := lookupCity(d)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("unknown city: the demo knows %s", strings.Join(cityNames(), ", "))
		}
		km := haversine(co.lat, co.lng, cd.lat, cd.lng)
		return map[string]any{"origin": co.name, "destination": cd.name, "distance_km": round(km, 1), "distance_mi": round(km/1.609344, 1)}, nil
	},
	"maps_directions": func(a argv) (any, error) {
		o, d := a.str("origin", "Paris"), a.str("destination", "Berlin")
		km := 5 + float64(seed(o, d)%900)
		if co, ok := lookupCity(o); ok {
			if cd, ok := lookupCity(d); ok {
				km = haversine(co.lat, co.lng, cd.lat, cd.lng) * 1.25
			}
		}
		speed := map[string]float64{"driving": 85, "cycling": 18, "walking": 5, "transit": 60}[a.str("mode", "driving")]
		if speed == 0 {
			speed = 85
		}
		h := km / speed
		return map[string]any{"origin": o, "destination": d, "mode": a.str("mode", "driving"), "distance_km": round(km, 0), "duration": fmt.Sprintf("%dh%02dm", int(h), int(h*60)%60)}, nil
	},
	"utils_unit_convert": func(a argv) (any, error) {
		v, from, to := a.num("value", 1), strings.ToLower(a.str("from", "km")), strings.ToLower(a.str("to", "mi"))
		r, err := convertUnit(v, from, to)
		if err != nil {
			return nil, err
		}
		return map[string]any{"value": v, "from": from, "to": to, "result": round(r, 4)}, nil
	},
	"utils_timezone_convert": func(a argv) (any, error) {
		t, err := time.Parse("15:04", a.str("time", "09:00"))
		if err != nil {
			return nil, fmt.Errorf("time must be HH:MM: %w", err)
		}
		fo, ok1 := zoneOffset[a.str("from", "UTC")]
		to, ok2 := zoneOffset[a.str("to", "UTC")]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("unknown zone: the demo knows %s", strings.Join(zoneNames(), ", "))
		}
		out := t.Add(time.Duration((to - fo) * float64(time.Hour)))
		return map[string]any{"time": a.str("time", "09:00"), "from": a.str("from", "UTC"), "to": a.str("to", "UTC"), "result": out.Format("15:04")}, nil
	},
	"utils_calculate": func(a argv) (any, error) {
		e := a.str("expression", "")
		v, err := evalExpr(e)
		if err != nil {
			return nil, fmt.Errorf("cannot evaluate %q: %w", e, err)
		}
		return map[string]any{"expression": e, "result": v}, nil
	},
	"utils_uuid": func(a argv) (any, error) {
		n := int(a.num("count", 1))
		if n < 1 || n > 20 {
			return nil, fmt.Errorf("count must be 1 to 20")
		}
		var ids []string
		for i := 0; i < n; i++ {
			b := make([]byte, 16)
			_, _ = rand.Read(b)
			b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
			ids = append(ids, fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:]))
		}
		return map[string]any{"uuids": ids}, nil
	},
	"utils_hash_text": func(a argv) (any, error) {
		s := sha256.Sum256([]byte(a.str("text", "")))
		return map[string]any{"algorithm": "sha256", "hex": hex.EncodeToString(s[:])}, nil
	},
	"utils_base64_encode": func(a argv) (any, error) {
		return map[string]any{"base64": base64.StdEncoding.EncodeToString([]byte(a.str("text", "")))}, nil
	},
	"utils_base64_decode": func(a argv) (any, error) {
		b, err := base64.StdEncoding.DecodeString(a.str("data", ""))
		if err != nil {
			return nil, fmt.Errorf("not base64: %w", err)
		}
		return map[string]any{"text": string(b)}, nil
	},
	"utils_random_password": func(a argv) (any, error) {
		n := int(a.num("length", 16))
		if n < 8 || n > 128 {
			return nil, fmt.Errorf("length must be 8 to 128")
		}
		const set = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-_!"
		b := make([]byte, n)
		_, _ = rand.Read(b)
		for i := range b {
			b[i] = set[int(b[i])%len(set)]
		}
		return map[string]any{"password": string(b)}, nil
	},
	"utils_word_count": func(a argv) (any, error) {
		t := a.str("text", "")
		return map[string]any{"words": len(strings.Fields(t)), "lines": strings.Count(t, "\n") + 1, "characters": len([]rune(t))}, nil
	},
	"utils_current_time": func(a argv) (any, error) {
		z := a.str("timezone", "UTC")
		off, ok := zoneOffset[z]
		if !ok {
			z, off = "UTC", 0
		}
		now := time.Now().UTC().Add(time.Duration(off * float64(time.Hour)))
		return map[string]any{"timezone": z, "time": now.Format("2006-01-02 15:04")}, nil
	},
	"translate_text": func(a argv) (any, error) {
		text, target := a.str("text", ""), strings.ToLower(a.str("target", "fr"))
		words := strings.Fields(strings.ToLower(text))
		for i, w := range words {
			if tr, ok := dictionary[target][strings.Trim(w, ".,!?")]; ok {
				words[i] = tr
			}
		}
		return map[string]any{"target": target, "translation": strings.Join(words, " "), "note": "word-by-word demo dictionary"}, nil
	},
	"translate_detect_language": func(a argv) (any, error) {
		t := strings.ToLower(a.str("text", ""))
		lang := "en"
		for code, words := range dictionary {
			for _, w := range words {
				if strings.Contains(" "+t+" ", " "+w+" ") {
					lang = code
				}
			}
		}
		return map[string]any{"language": lang, "confidence": 0.8}, nil
	},
	"translate_list_languages": func(argv) (any, error) {
		return map[string]any{"languages": []string{"en", "fr", "de", "es", "pt"}}, nil
	},
	"database_list_tables": func(argv) (any, error) {
		return map[string]any{"tables": []map[string]any{{"name": "customers", "rows": 1204}, {"name": "orders", "rows": 8811}, {"name": "products", "rows": 342}}}, nil
	},
	"database_query": func(a argv) (any, error) {
		q := strings.ToLower(a.str("sql", ""))
		if !strings.HasPrefix(strings.TrimSpace(q), "select") {
			return nil, fmt.Errorf("only SELECT statements are allowed")
		}
		return map[string]any{"columns": []string{"id", "name", "total"}, "rows": [][]any{{1, "Ada", 120.5}, {2, "Linus", 88}, {3, "Grace", 240.25}}}, nil
	},
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

// today is fixed to the day so fake records look current.
func today() time.Time { return time.Now().UTC().Truncate(24 * time.Hour) }

// usdPer is how many US dollars one unit buys (demo rates, not live).
var usdPer = map[string]float64{"USD": 1, "EUR": 1.08, "GBP": 1.27, "JPY": 0.0067, "CHF": 1.12, "CAD": 0.73, "AUD": 0.66, "CNY": 0.14, "INR": 0.012, "BRL": 0.2}

func currencies() []string {
	var out []string
	for c := range usdPer {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

var zoneOffset = map[string]float64{"UTC": 0, "Europe/London": 0, "Europe/Lisbon": 0, "Europe/Paris": 1, "Europe/Berlin": 1,
	"America/New_York": -5, "America/Chicago": -6, "America/Los_Angeles": -8, "Asia/Tokyo": 9, "Asia/Kolkata": 5.5, "Australia/Sydney": 11}

func zoneNames() []string {
	var out []string
	for z := range zoneOffset {
		out = append(out, z)
	}
	sort.Strings(out)
	return out
}

type city struct {
	name     string
	lat, lng float64
}

var cities = []city{{"Lisbon", 38.72, -9.14}, {"Paris", 48.86, 2.35}, {"Berlin", 52.52, 13.40}, {"London", 51.51, -0.13},
	{"Madrid", 40.42, -3.70}, {"Rome", 41.90, 12.50}, {"New York", 40.71, -74.01}, {"San Francisco", 37.77, -122.42},
	{"Tokyo", 35.68, 139.69}, {"Sydney", -33.87, 151.21}, {"Amsterdam", 52.37, 4.90}, {"Vienna", 48.21, 16.37}}

func lookupCity(name string) (city, bool) {
	for _, c := range cities {
		if strings.EqualFold(c.name, strings.TrimSpace(name)) {
			return c, true
		}
	}
	return city{}, false
}

func cityNames() []string {
	var out []string
	for _, c := range cities {
		out = append(out, c.name)
	}
	return out
}

func haversine(lat1, lng1, lat2, lng2 float64) float64 {
	const r = 6371.0
	rad := math.Pi / 180
	dlat, dlng := (lat2-lat1)*rad, (lng2-lng1)*rad
	h := math.Sin(dlat/2)*math.Sin(dlat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dlng/2)*math.Sin(dlng/2)
	return 2 * r * math.Asin(math.Sqrt(h))
}

var dictionary = map[string]map[string]string{
	"fr": {"hello": "bonjour", "world": "monde", "thank": "merci", "you": "vous", "good": "bon", "morning": "matin", "cat": "chat"},
	"de": {"hello": "hallo", "world": "welt", "thank": "danke", "good": "gut", "morning": "morgen", "cat": "katze"},
	"es": {"hello": "hola", "world": "mundo", "thank": "gracias", "good": "buenos", "morning": "días", "cat": "gato"},
	"pt": {"hello": "olá", "world": "mundo", "thank": "obrigado", "good": "bom", "morning": "dia", "cat": "gato"},
}

// generic answers CRUD-style tools with records shaped by the tool's verb.
func generic(c CatalogTool, a argv) any {
	rest := strings.TrimPrefix(c.Name, c.Server+"_")
	verb, noun, _ := strings.Cut(rest, "_")
	s := seed(c.Name, fmt.Sprint(map[string]any(a)))
	record := func(i int) map[string]any {
		rs := seed(c.Name, fmt.Sprint(i), fmt.Sprint(s))
		r := map[string]any{
			"id":         fmt.Sprintf("%s-%d", strings.TrimSuffix(strings.TrimSuffix(noun, "s"), "e"), 100+rs%900),
			"title":      strings.TrimSpace(pick(rs, adjectives) + " " + strings.ReplaceAll(strings.TrimSuffix(noun, "s"), "_", " ")),
			"status":     pick(rs>>7, []string{"open", "active", "in progress", "done", "pending"}),
			"updated_at": today().AddDate(0, 0, -int(rs%14)).Format("2006-01-02"),
		}
		for k, v := range a {
			if k != "limit" && k != "query" && k != "id" {
				r[k] = v
			}
		}
		return r
	}
	switch verb {
	case "list", "search":
		n := int(a.num("limit", 3))
		if n < 1 || n > 5 {
			n = 3
		}
		items := make([]map[string]any, n)
		for i := range items {
			items[i] = record(i)
		}
		out := map[string]any{"items": items, "total": n + int(s%40)}
		if q := a.str("query", ""); q != "" {
			out["query"] = q
		}
		return out
	case "get":
		r := record(0)
		if id := a.str("id", ""); id != "" {
			r["id"] = id
		}
		return r
	case "create", "post", "add", "upload", "schedule":
		r := record(0)
		r["status"] = "created"
		return r
	case "delete", "remove":
		return map[string]any{"id": a.str("id", "unknown"), "deleted": true}
	}
	return map[string]any{"id": a.str("id", a.str("name", "unknown")), "action": verb, "result": "ok", "at": time.Now().UTC().Format(time.RFC3339)}
}

var adjectives = []string{"Quarterly", "Urgent", "Weekly", "Draft", "Customer", "Team", "Launch", "Billing", "Onboarding", "Migration"}

// memFS is a tiny in-memory file system for the files_* tools.
type memFS struct {
	mu    sync.Mutex
	files map[string]string
}

func newMemFS() *memFS {
	return &memFS{files: map[string]string{
		"/demo/README.md": "# Demo workspace\n\nFiles here live in memory while the demo runs.\n",
		"/demo/todo.md":   "- [x] try the demo\n- [ ] read the tools pane\n- [ ] resume this session with --resume\n",
		"/demo/notes.txt": "Tool search keeps hundreds of tools out of the context until the model needs one.\n",
	}}
}

func (m *memFS) run(name string, a argv) (any, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := a.str("path", "/demo")
	switch name {
	case "files_read_file":
		t, ok := m.files[p]
		if !ok {
			return nil, fmt.Errorf("%s: no such file (try /demo/todo.md)", p)
		}
		return map[string]any{"path": p, "content": t}, nil
	case "files_write_file":
		m.files[p] = a.str("content", "")
		return map[string]any{"path": p, "bytes": len(a.str("content", ""))}, nil
	case "files_list_directory", "files_search_files":
		pat := a.str("pattern", "")
		var entries []map[string]any
		for f, t := range m.files {
			base := f[strings.LastIndex(f, "/")+1:]
			if strings.HasPrefix(f, strings.TrimSuffix(p, "/")+"/") || name == "files_search_files" {
				if pat == "" || strings.Contains(base, strings.Trim(pat, "*")) {
					entries = append(entries, map[string]any{"name": f, "size": len(t)})
				}
			}
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i]["name"].(string) < entries[j]["name"].(string) })
		return map[string]any{"path": p, "entries": entries}, nil
	case "files_move_file":
		src, dst := a.str("source", ""), a.str("destination", "")
		t, ok := m.files[src]
		if !ok {
			return nil, fmt.Errorf("%s: no such file", src)
		}
		delete(m.files, src)
		m.files[dst] = t
		return map[string]any{"moved": src, "to": dst}, nil
	case "files_file_info":
		t, ok := m.files[p]
		if !ok {
			return nil, fmt.Errorf("%s: no such file", p)
		}
		return map[string]any{"path": p, "size": len(t), "mode": "-rw-r--r--"}, nil
	case "files_create_directory":
		return map[string]any{"path": p, "created": true}, nil
	}
	return nil, fmt.Errorf("%s is not implemented in the demo", name)
}
