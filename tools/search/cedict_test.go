package search

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestGlosses(t *testing.T) {
	tests := []struct {
		in   string
		want []string // words the glosses must have
	}{
		{"获取 BBC 新闻，提供全球新闻", []string{"get", "news", "whole world"}},
		{"查询12306余票信息。", []string{"check", "information"}},
		{"獲取天氣預報", []string{"get", "weather forecast"}}, // traditional characters
		{"plain English text", nil},
	}
	for _, tt := range tests {
		got := glosses(tt.in, nil)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("glosses(%q) = %q, want it to have %q", tt.in, got, w)
			}
		}
		if tt.want == nil && got != "" {
			t.Errorf("glosses(%q) = %q, want nothing", tt.in, got)
		}
	}
}

// Every headword of the table looks up its own gloss, and the words around
// it (a character more, a character less) only theirs: the lookup by binary
// search in blocks finds what the whole table, read line by line, says.
func TestGlossTableLooksUpEveryHeadword(t *testing.T) {
	all := map[string]string{}
	cedict.All(func(h, g string) {
		if _, dup := all[h]; dup {
			t.Errorf("headword %q twice", h)
		}
		all[h] = g
	})
	if n := len(all); n < 100000 {
		t.Fatalf("gloss table has %d headwords, want the generated ~120k", n)
	}
	for h, want := range all {
		if got, ok := lookupGloss([]byte(h)); !ok || got != want {
			t.Errorf("lookupGloss(%q) = %q, %v, want %q", h, got, ok, want)
		}
		_, size := utf8.DecodeLastRuneInString(h)
		for _, k := range []string{h + "一", h + "\x00", h[:len(h)-size]} {
			want, in := all[k]
			if got, ok := lookupGloss([]byte(k)); ok != in || got != want {
				t.Errorf("lookupGloss(%q) = %q, %v, want %q, %v", k, got, ok, want, in)
			}
		}
	}
}

// Either language finds tools described in the other.
func TestCrossLingualSearch(t *testing.T) {
	docs := []Doc{
		{Name: "get-bbc-news", Description: "获取 BBC 新闻，提供全球新闻、商业、政治、科技等资讯", Server: "trends"},
		{Name: "get-douban-rank", Description: "获取豆瓣实时热门榜单，提供当前热门的图书、电影", Server: "trends"},
		{Name: "forecast", Description: "Weather forecast for a city.", Server: "meteo"},
		{Name: "stock_quote", Description: "Current stock price for a symbol.", Server: "market"},
	}
	ix := New(docs)
	for _, tt := range []struct{ q, want string }{
		{"latest technology news", "get-bbc-news"},
		{"popular movies and books right now", "get-douban-rank"},
		{"北京明天的天气预报", "forecast"},
	} {
		hits, err := ix.Search(tt.q, Options{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Name != tt.want {
			t.Errorf("Search(%q) = %v, want %s first", tt.q, hits, tt.want)
		}
	}
	// Without glosses the Chinese description cannot match English words.
	off := DefaultConfig()
	off.Glosses = false
	hits, err := NewWithConfig(docs, off).Search("popular movies and books right now", Options{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) > 0 && hits[0].Name == "get-douban-rank" {
		t.Errorf("get-douban-rank found without glosses: the test does not test them")
	}
}
