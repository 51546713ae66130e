package search

import (
	"slices"
	"strings"
	"unicode"
)

// requestValues is what a request says through the values it carries
// rather than its words. A path means a file (and its extension a format),
// a link a URL, an address email, a path together with a verb of producing
// writing a file: the implied steps of a task ("...and save it to
// /root/report.md") whose tool shares no word with the request. Relative
// dates ("next Wednesday", "tomorrow") imply knowing today's date.
type requestValues struct {
	// text is the request with each path read as its file name: the
	// directories of a path ("/home/me/src/...") say where a file is, not
	// what the request is about, and the extension is read as a cue.
	text string
	// cues are words to add to the query, analysed like its text.
	cues []string
	// steps are the implied steps as short queries of their own ("write
	// file", "current date time"): a tool for each belongs among the first
	// results even when the request's own words, which are about the rest
	// of the task, outscore it (see Config.StepSlot).
	steps []string
}

// readValues reads a request's values in one pass over its words.
func readValues(q string) requestValues {
	var v requestValues
	seen := map[string]bool{}
	add := func(ws ...string) {
		for _, w := range ws {
			if !seen[w] {
				seen[w] = true
				v.cues = append(v.cues, w)
			}
		}
	}
	fields := strings.Fields(q)
	clean := make([]string, len(fields)) // lower case, letters and digits only at the ends
	words := map[string]bool{}
	var stems []string // fields, with paths read as file names; nil: none changed
	for i, raw := range fields {
		clean[i] = strings.ToLower(strings.TrimFunc(raw, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
		words[clean[i]] = true
		w := trimWord(raw)
		lw := strings.ToLower(w)
		switch {
		case isLink(lw):
			add("url")
		case isDomain(lw):
			add("domain", "website")
		case strings.Contains(w, "@") && strings.Contains(w[strings.Index(w, "@"):], "."):
			add("email")
		case isPathLike(w):
			add("file")
			if ext, ok := fileExt(w); ok {
				add(formatWords[ext]...)
			} else if strings.Contains(lw, "/") {
				add("directory") // a path without an extension is most often a folder
			}
			if stems == nil {
				stems = slices.Clone(fields)
			}
			stems[i] = fileStem(w)
		}
	}
	v.text = q
	if stems != nil {
		v.text = strings.Join(stems, " ")
		for _, verb := range produceVerbs {
			if words[verb] {
				add("write", "file")
				v.steps = append(v.steps, "write file")
				break
			}
		}
	}
	if relativeDate(clean, words) {
		add("current", "date", "time")
		v.steps = append(v.steps, "current date time")
	}
	if commandLine(fields, clean) {
		add("command", "execute", "terminal", "shell")
	}
	if moneyNamed(clean) >= 2 {
		add("currency")
	}
	return v
}

// moneyNamed counts the words of a request that name a currency ("500 US
// dollars", "euros", "JPY"). Two of them ("Canadian dollars for 500 US
// dollars", "from Euro to Dollar") ask for a conversion between currencies,
// a tool whose words are currency and exchange rather than the
// currencies' names; one ("a fee under 400 dollars") is only a price.
func moneyNamed(clean []string) int {
	n := 0
	for _, w := range clean {
		if currencies[w] {
			n++
		}
	}
	return n
}

// currencies are the names and codes of common currencies, as written.
// "pound" is left out (a weight as often), and so are "won" and "real".
var currencies = map[string]bool{
	"dollar": true, "dollars": true, "euro": true, "euros": true, "yen": true, "yuan": true, "renminbi": true,
	"rupee": true, "rupees": true, "peso": true, "pesos": true, "franc": true, "francs": true,
	"ruble": true, "rubles": true, "rouble": true, "roubles": true, "reais": true, "lira": true,
	"krona": true, "kronor": true, "krone": true, "kroner": true, "zloty": true, "rand": true, "baht": true,
	"ringgit": true, "dirham": true, "dirhams": true, "shekel": true, "shekels": true, "sterling": true,
	"usd": true, "eur": true, "gbp": true, "jpy": true, "cny": true, "rmb": true, "inr": true, "cad": true,
	"aud": true, "chf": true, "mxn": true, "brl": true, "krw": true, "sek": true, "nok": true, "hkd": true,
	"sgd": true, "btc": true, "bitcoin": true,
}

// commandLine reports whether a request carries a command line to run
// ("check it using docker ps", "say hi with the echo command", "tasklist
// /FI ..."): it asks for a tool that runs commands, whose name and
// description say "execute" and "command", not the words of the command.
// A program's name counts after a word that introduces a command (using,
// run, via, the command...) or before a flag; a name that is also an
// English word (start, date, find) only when "command" is said too.
func commandLine(fields, clean []string) bool {
	said := false // the request speaks of a command
	for _, w := range clean {
		if commandWords[w] {
			said = true
		}
	}
	for i, w := range clean {
		strong, known := programs[w]
		if !known || !strong && !said {
			continue
		}
		if i+1 < len(fields) && isFlag(fields[i+1]) {
			return true
		}
		for j := i - 1; j >= 0 && j >= i-3; j-- {
			if introducers[clean[j]] {
				return true
			}
			if clean[j] != "the" && clean[j] != "a" && clean[j] != "exact" && clean[j] != "called" && !commandWords[clean[j]] {
				break
			}
		}
		if i+1 < len(clean) && commandWords[clean[i+1]] {
			return true // "the echo command"
		}
	}
	return false
}

// isFlag reports whether a word of a request is a command-line flag or
// argument of a command's own syntax: -v, --version, /s (Windows), %time%.
func isFlag(raw string) bool {
	w := strings.TrimRight(raw, ".,;:!?\"'")
	switch {
	case strings.HasPrefix(w, "--") && len(w) > 2, strings.HasPrefix(w, "-") && len(w) > 1 && unicode.IsLetter(rune(w[1])):
		return true
	case strings.HasPrefix(w, "/") && len(w) >= 2 && len(w) <= 3 && unicode.IsLetter(rune(w[1])):
		return true
	case strings.HasPrefix(w, "%") && strings.HasSuffix(w, "%") && len(w) > 2:
		return true
	}
	return false
}

// commandWords are the words with which a request speaks of a command.
var commandWords = map[string]bool{
	"command": true, "commands": true, "cmd": true, "terminal": true, "shell": true, "instruction": true, "cli": true,
}

// introducers are the words after which a program's name is a command to run.
var introducers = map[string]bool{
	"using": true, "use": true, "run": true, "running": true, "via": true, "through": true, "execute": true,
	"enter": true, "command": true, "instruction": true,
}

// programs are the names of common command-line programs; true for those
// that are not also English words.
var programs = map[string]bool{
	"docker": true, "git": true, "npm": true, "npx": true, "yarn": true, "pnpm": true, "pip": true, "pip3": true,
	"kubectl": true, "helm": true, "terraform": true, "ls": true, "dir": true, "grep": true, "ps": true,
	"pkill": true, "taskkill": true, "tasklist": true, "netsh": true, "ipconfig": true, "ifconfig": true,
	"curl": true, "wget": true, "ssh": true, "scp": true, "rm": true, "del": true, "mkdir": true, "rmdir": true,
	"chmod": true, "chown": true, "sudo": true, "apt": true, "brew": true, "systemctl": true, "bash": true,
	"zsh": true, "powershell": true, "pwsh": true, "cargo": true, "df": true, "du": true, "whoami": true,
	"xcopy": true, "robocopy": true, "wsl": true, "gcc": true, "javac": true, "dotnet": true, "ffmpeg": true,
	"adb": true, "gh": true, "gcloud": true, "echo": true, "cls": true, "nslookup": true, "traceroute": true,
	"tracert": true, "netstat": true, "uname": true, "pwd": true,
	"python": false, "python3": false, "node": false, "start": false, "date": false, "time": false,
	"find": false, "make": false, "go": false, "code": false, "type": false, "move": false, "copy": false,
	"kill": false, "top": false, "timeout": false, "shutdown": false, "cat": false, "ping": false,
	"tree": false, "touch": false, "open": false, "java": false, "ruby": false, "perl": false, "php": false,
	"tar": false, "unzip": false, "hostname": false, "net": false,
}

// fileStem is a path's file name without its extension ("/root/music/"
// gives "music").
func fileStem(path string) string {
	p := strings.TrimRight(path, "/")
	base := p[strings.LastIndexByte(p, '/')+1:]
	if j := strings.LastIndexByte(base, '.'); j > 0 {
		base = base[:j]
	}
	return base
}

// isLink reports whether a lower-cased word is a web address: with a scheme,
// www., or a host name before its first slash (github.com/owner/repo).
func isLink(lw string) bool {
	if strings.Contains(lw, "://") || strings.HasPrefix(lw, "www.") {
		return true
	}
	host, _, slash := strings.Cut(lw, "/")
	if !slash || host == "" || host[0] == '.' || host[0] == '~' {
		return false
	}
	i := strings.LastIndexByte(host, '.')
	if i <= 0 || i == len(host)-1 {
		return false
	}
	for _, r := range host[i+1:] {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// isDomain reports whether a lower-cased word is a bare host name
// (amaz0n.com, example.co.uk): labels of letters, digits and hyphens, the
// last a common top-level domain. File names (report.md) are not.
func isDomain(lw string) bool {
	labels := strings.Split(lw, ".")
	if len(labels) < 2 || !commonTLDs[labels[len(labels)-1]] {
		return false
	}
	for _, l := range labels {
		if l == "" || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return false
		}
	}
	return true
}

var commonTLDs = map[string]bool{
	"com": true, "org": true, "net": true, "io": true, "dev": true, "app": true, "ai": true, "co": true,
	"edu": true, "gov": true, "info": true, "biz": true, "me": true, "us": true, "uk": true, "de": true,
	"fr": true, "cn": true, "jp": true, "ru": true, "in": true, "br": true, "au": true, "ca": true, "eu": true,
}

// isPathLike reports whether a word is a file system path or a file name.
func isPathLike(w string) bool {
	if isLink(strings.ToLower(w)) {
		return false
	}
	_, named := fileExt(w)
	return strings.HasPrefix(w, "/") && len(w) > 1 || strings.HasPrefix(w, "~/") || strings.HasPrefix(w, "./") ||
		strings.Count(w, "/") >= 2 || named
}

// trimWord cuts the punctuation around a word of a request, keeping a
// leading dot (".env", "./x") but not a sentence's full stop.
func trimWord(raw string) string {
	return strings.TrimRight(strings.TrimLeft(raw, "\"'`([{<‘“"), "\"'`)]}>,;:!?.…’”")
}

// fileExt returns the lower-cased extension of a file name or path. In a
// path any short extension counts; a bare word needs an extension files
// are known by and a name of two letters or more, so that "e.g.", "a.m."
// and "Next.js" are not files.
func fileExt(w string) (string, bool) {
	i := strings.LastIndexByte(w, '.')
	if i < 0 || i == len(w)-1 || len(w)-i-1 > 5 {
		return "", false
	}
	ext := strings.ToLower(w[i+1:])
	letters := 0
	for _, r := range ext {
		switch {
		case r >= 'a' && r <= 'z':
			letters++
		case r >= '0' && r <= '9':
		default:
			return "", false
		}
	}
	if letters == 0 || ext == "com" || ext == "org" || ext == "net" || ext == "io" {
		return "", false
	}
	if strings.Contains(w, "/") {
		return ext, true
	}
	name := w[:i]
	if _, known := formatWords[ext]; !known || len(name) < 2 && !strings.HasPrefix(w, ".") || strings.Contains(name, ".") {
		return "", false
	}
	if ext == "js" && name[0] >= 'A' && name[0] <= 'Z' {
		return "", false // Node.js, Next.js: frameworks
	}
	return ext, true
}

// produceVerbs are the verbs (as written, lower case) that, next to a path,
// ask for a file to be written.
var produceVerbs = []string{
	"save", "saved", "saving", "saves", "write", "writes", "written", "store", "stored", "export", "exported",
	"output", "generate", "generated", "create", "created", "draft", "produce", "put", "record", "dump",
}

// formatWords are the words tools use for the format a file extension names.
var formatWords = map[string][]string{
	"md": {"markdown"}, "markdown": {"markdown"},
	"txt": {"text"}, "log": {"log", "text"},
	"doc": {"word", "document"}, "docx": {"word", "document"}, "odt": {"document"}, "rtf": {"document"},
	"xls": {"excel", "spreadsheet"}, "xlsx": {"excel", "spreadsheet"}, "ods": {"spreadsheet"}, "csv": {"csv"},
	"ppt": {"powerpoint", "presentation"}, "pptx": {"powerpoint", "presentation"}, "odp": {"presentation"},
	"pdf":  {"pdf"},
	"html": {"html"}, "htm": {"html"}, "json": {"json"}, "xml": {"xml"}, "yaml": {"yaml"}, "yml": {"yaml"},
	"png": {"image"}, "jpg": {"image"}, "jpeg": {"image"}, "gif": {"image"}, "webp": {"image"}, "svg": {"image", "svg"},
	"mp3": {"audio"}, "wav": {"audio"}, "flac": {"audio"}, "ogg": {"audio"}, "m4a": {"audio"},
	"mp4": {"video"}, "mov": {"video"}, "mkv": {"video"}, "webm": {"video"},
	"zip": {"archive"}, "tar": {"archive"}, "gz": {"archive"},
	"py": {"python", "code"}, "js": {"javascript", "code"}, "ts": {"typescript", "code"}, "go": {"go", "code"},
	"sql": {"sql"}, "ipynb": {"notebook"}, "bib": {"bibliography"}, "tex": {"latex"},
	"sh": {"shell", "script"}, "rs": {"rust", "code"}, "java": {"java", "code"}, "rb": {"ruby", "code"},
	"c": {"code"}, "cpp": {"code"}, "h": {"code"}, "toml": {"config"}, "ini": {"config"}, "env": {"environment"},
}

var weekdays = map[string]bool{
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true, "sunday": true,
}

var dateUnits = map[string]bool{
	"day": true, "days": true, "week": true, "weeks": true, "weekend": true, "month": true, "months": true,
	"year": true, "years": true, "hour": true, "hours": true, "24h": true,
}

// relativeDate reports whether a request names a date relative to today
// ("tomorrow", "next Wednesday", "the past three days"), which a tool can
// only resolve knowing the current date.
func relativeDate(clean []string, words map[string]bool) bool {
	if words["tomorrow"] || words["yesterday"] || words["tonight"] {
		return true
	}
	for i, w := range clean {
		if w != "next" && w != "last" && w != "past" && w != "coming" && w != "this" {
			continue
		}
		// "next Wednesday", "last 24h", "past three days", "this week".
		for j := i + 1; j < len(clean) && j <= i+2; j++ {
			if weekdays[clean[j]] || dateUnits[clean[j]] {
				return true
			}
		}
	}
	return false
}
