package search

import (
	"strings"
	"unicode"
)

// Paraphrases: the words people use for an action or a thing, mapped to the
// words tool catalogs use. Tool names draw on a small vocabulary (create,
// delete, get, list, search, update, close) and people on a larger one:
// "open a pull request", "file a ticket", "wipe the cache", "pull up PR
// 42". The table was written from real catalogs (GitHub, filesystem,
// browser, Notion and memory servers) and the way people phrase requests,
// not fitted to a benchmark's queries. A verb whose sense depends on its
// object ("open a PR" creates one, "open a file" reads it) maps only when
// one of the objects it takes follows within a few words; the verb itself
// then counts half, since as a plain word it matches the other sense (a
// pull request's state "open").

// paraphrase is one expansion of a request: its words, and the request's
// word it reads differently (empty when the original keeps its weight).
type paraphrase struct {
	expand string
	demote string
}

// actionRule maps a verb (one or two words) to catalog words, when one of
// objects (nil: any) follows within objectWindow words.
type actionRule struct {
	verb    []string
	to      string
	objects map[string]bool
	// article: the verb is read so only when an article follows it ("file
	// a bug"; "file" alone is mostly a noun).
	article bool
}

// objectWindow is how many words after a verb its object may come.
const objectWindow = 4

// creatable are things a request makes when it opens, raises, files,
// submits or starts one.
var creatable = setOf("pr", "prs", "pull", "issue", "issues", "ticket", "tickets", "bug", "bugs", "branch",
	"account", "repo", "repository", "project", "discussion", "gist", "case", "incident", "request", "review",
	"release", "milestone", "thread", "conversation", "draft")

var actionRules = func() []actionRule {
	var rs []actionRule
	add := func(verbs, to string, objects map[string]bool, article bool) {
		for _, v := range strings.Split(verbs, ",") {
			rs = append(rs, actionRule{strings.Fields(v), to, objects, article})
		}
	}
	add("open,raise,submit,start,launch,kick off", "create", creatable, false)
	add("file,log", "create", creatable, true)
	add("open", "new page", setOf("tab", "tabs", "window"), false)
	add("remove,wipe,drop,erase,trash,purge,destroy,get rid of", "delete", nil, false)
	add("look up,lookup,fetch,pull up,bring up", "get read", nil, false) // show and display: verbSynonyms (view, list)
	add("find,look for,hunt for,locate", "search list", nil, false)
	add("edit,change,modify,alter,amend,tweak,rename", "update", nil, false)
	add("rename", "move", nil, false)
	add("kill,shut,terminate", "close stop", nil, false)
	add("go to,visit,browse to,head to", "navigate", nil, false)
	add("remember,memorize,note down", "save store memory", nil, false)
	// Other languages' commonest action words, so a request in them finds
	// at least the action (names are English): French, German, Spanish.
	add("créer,crée,créez,erstellen,erstelle,crear,crea,haz,hacer", "create", nil, false)
	add("supprimer,supprime,supprimez,effacer,löschen,lösche,entfernen,borrar,borra,eliminar,elimina", "delete", nil, false)
	add("lire,lis,lisez,ouvrir,ouvre,lesen,lies,öffnen,öffne,leer,lee,abrir,abre", "read open", nil, false)
	add("lister,liste,listez,auflisten,liste,listar,lista", "list", nil, false)
	add("chercher,cherche,rechercher,recherche,suchen,suche,finden,buscar,busca", "search find", nil, false)
	add("modifier,modifie,ändern,ändere,bearbeiten,modificar,modifica,editar,edita", "update edit", nil, false)
	add("fusionner,fusionne,zusammenführen,fusionar,fusiona", "merge", nil, false)
	add("fermer,ferme,schließen,schließe,cerrar,cierra", "close", nil, false)
	add("envoyer,envoie,senden,sende,enviar,envía,envia", "send", nil, false)
	add("écrire,écris,enregistrer,schreiben,schreibe,speichern,speichere,escribir,escribe,guardar,guarda", "write save", nil, false)
	return rs
}()

// nounParaphrases maps short or everyday names of things to catalog words.
var nounParaphrases = map[string]string{
	"pr": "pull request", "prs": "pull requests", "repo": "repository", "repos": "repositories",
	"dir": "directory", "dirs": "directories", "dm": "direct message", "dms": "direct messages",
	"ticket": "issue", "tickets": "issues", "bug": "issue", "bugs": "issues", "tab": "page", "tabs": "pages",
	"webpage": "page", "doc": "document", "docs": "documents",
	"creds": "credentials", "msg": "message", "img": "image", "pic": "picture",
	// French, German, Spanish
	"fichier": "file", "datei": "file", "archivo": "file", "dossier": "directory folder",
	"ordner": "directory folder", "verzeichnis": "directory", "carpeta": "directory folder",
	"página": "page", "seite": "page", "capture": "screenshot", "captura": "screenshot",
	"bildschirmfoto": "screenshot", "dépôt": "repository", "dépot": "repository",
}

// cjkParaphrases are action words of Japanese (and Chinese where CC-CEDICT
// does not already gloss them) found as substrings: CJK text has no spaces.
var cjkParaphrases = map[string]string{
	"削除": "delete", "作成": "create", "読み": "read", "一覧": "list", "検索": "search",
	"更新": "update", "ファイル": "file", "ディレクトリ": "directory", "フォルダ": "folder directory",
	"スクリーンショット": "screenshot", "閉じ": "close",
}

func setOf(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// articles are the words after which "file" or "log" is a verb.
var articles = setOf("a", "an", "the", "new", "another", "one", "some")

// paraphrases reads q's words and returns the catalog words they stand for.
func paraphrases(q string) []paraphrase {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	var out []paraphrase
	for i := range words {
		for _, r := range actionRules {
			if !hasWordsAt(words, i, r.verb) {
				continue
			}
			after := i + len(r.verb)
			if r.article && (after >= len(words) || !articles[words[after]]) {
				continue
			}
			if r.objects != nil && !objectFollows(words[after:], r.objects) {
				continue
			}
			p := paraphrase{expand: r.to}
			if r.objects != nil || r.article {
				p.demote = strings.Join(r.verb, " ")
			}
			out = append(out, p)
		}
		if n, ok := nounParaphrases[words[i]]; ok {
			out = append(out, paraphrase{expand: n})
		}
	}
	if hasHan(q) || strings.ContainsFunc(q, isKana) {
		for k, v := range cjkParaphrases {
			if strings.Contains(q, k) {
				out = append(out, paraphrase{expand: v})
			}
		}
	}
	return out
}

func isKana(r rune) bool { return unicode.In(r, unicode.Hiragana, unicode.Katakana) }

// hasWordsAt reports whether words has ws starting at i.
func hasWordsAt(words []string, i int, ws []string) bool {
	if i+len(ws) > len(words) {
		return false
	}
	for k, w := range ws {
		if words[i+k] != w {
			return false
		}
	}
	return true
}

// objectFollows reports whether one of objects is among the first
// objectWindow words.
func objectFollows(words []string, objects map[string]bool) bool {
	for _, w := range words[:min(objectWindow, len(words))] {
		if objects[w] {
			return true
		}
	}
	return false
}
