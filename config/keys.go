package config

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Each setting is declared once, as a field of Config with its tags; every
// layer reads the declaration instead of naming the field again:
//
//	json     the config file's key (user and project file)
//	default  the built-in value (Defaults)
//	flag     the command-line flag ("name" on every command, "name,root"
//	         on the root command only); its help is doc, with the default
//	env      the environment variable that sets it (strings, and *bool
//	         switches: 1, true, 0, false)
//	profile  an agent profile may set it, under the same key
//	stored   a session stores it and a resume restores it where no flag was
//	         given
//	enum     its closed set of values; what names it in the error
//	check    the error text for a negative number ("must be positive")
//	merge    "union": a later layer adds map entries instead of replacing
//	doc      one line for the flag's help and the generated key table
//
// A layer that needs more than the declaration (provider_tools adds up
// across layers, a profile's provider resets the model) handles that key
// by name, next to the generic loop.

// Key is one declared setting.
type Key struct {
	Name    string // config key
	Flag    string // flag name, "" for none
	Root    bool   // the flag is on the root command only
	Env     string
	EnvAlso string // read when Env is unset: another tool's name (Claude Code's)
	Profile bool
	Stored  bool
	Enum    []string
	What    string // what the key is called in an error: "search mode"
	Check   string
	Union   bool
	Doc     string
	Default string // as written in the tag

	index int
	typ   reflect.Type
}

var (
	keysOnce sync.Once
	keys     []Key
	defaults Config
)

// Keys returns the declared settings in declaration order.
func Keys() []Key {
	keysOnce.Do(declare)
	return keys
}

// Lookup returns the key named name (its config key).
func Lookup(name string) (Key, bool) {
	for _, k := range Keys() {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

func declare() {
	t := reflect.TypeOf(Config{})
	dv := reflect.ValueOf(&defaults).Elem()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		k := Key{Name: name, Env: f.Tag.Get("env"), EnvAlso: f.Tag.Get("envalso"), Doc: f.Tag.Get("doc"), What: f.Tag.Get("what"),
			Check: f.Tag.Get("check"), Default: f.Tag.Get("default"), index: i, typ: f.Type}
		_, k.Profile = f.Tag.Lookup("profile")
		_, k.Stored = f.Tag.Lookup("stored")
		k.Union = f.Tag.Get("merge") == "union"
		if fl := f.Tag.Get("flag"); fl != "" {
			k.Flag, _, _ = strings.Cut(fl, ",")
			k.Root = strings.HasSuffix(fl, ",root")
		}
		if e := f.Tag.Get("enum"); e != "" {
			k.Enum = strings.Split(e, ",")
		}
		if k.What == "" {
			k.What = strings.ReplaceAll(name, "_", " ")
		}
		if k.Check == "" {
			k.Check = "must be positive"
		}
		if k.Default != "" {
			if err := parseDefault(dv.Field(i), k.Default); err != nil {
				panic(fmt.Sprintf("config: key %s: default %q: %v", name, k.Default, err))
			}
		}
		keys = append(keys, k)
	}
}

// parseDefault reads a default tag into v.
func parseDefault(v reflect.Value, s string) error {
	if v.Type() == reflect.TypeOf(Duration(0)) {
		d, err := time.ParseDuration(s)
		v.SetInt(int64(d))
		return err
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		v.SetInt(n)
		return err
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		v.SetFloat(x)
		return err
	default:
		return fmt.Errorf("a %s has no default tag", v.Type())
	}
	return nil
}

// Ptr is a pointer to the key's field in c (*string, *int, *[]string, …).
func (k Key) Ptr(c *Config) any { return reflect.ValueOf(c).Elem().Field(k.index).Addr().Interface() }

// field is the key's field in c.
func (k Key) field(c *Config) reflect.Value { return reflect.ValueOf(c).Elem().Field(k.index) }

// IsSet tells whether c gives the key a value (a non-empty one).
func (k Key) IsSet(c *Config) bool { return !empty(k.field(c)) }

// Copy sets the key in dst to its value in src.
func (k Key) Copy(dst, src *Config) { k.field(dst).Set(k.field(src)) }

// Help is the flag's help: the doc and the built-in default, if any.
func (k Key) Help() string {
	if k.Default == "" {
		return k.Doc
	}
	return fmt.Sprintf("%s (default %s)", k.Doc, k.Default)
}

// check tells whether v is a value of the key's closed set, in the
// words of the error the user sees. The empty value is "not set".
func (k Key) check(v string) error {
	if len(k.Enum) == 0 || v == "" {
		return nil
	}
	for _, e := range k.Enum {
		if v == e {
			return nil
		}
	}
	return fmt.Errorf("unknown %s %q: use %s", k.What, v, orList(k.Enum))
}

// CheckValue checks a value given for the key by name (an agent profile's
// field, say): nil for a key without a closed set.
func CheckValue(name, v string) error {
	k, ok := Lookup(name)
	if !ok {
		return nil
	}
	return k.check(v)
}

// EnvValueError is an environment variable whose value is not one of its
// key's closed set.
type EnvValueError struct {
	Var, Value, What string
	Allowed          []string
}

func (e *EnvValueError) Error() string {
	return fmt.Sprintf("%s=%q: unknown %s: use %s", e.Var, e.Value, e.What, orList(e.Allowed))
}

// FlagValueError is a command-line flag whose value is not one of its
// closed set: the flag, the value and what to write instead, on one line.
type FlagValueError struct {
	Flag, Value, What string
	Allowed           []string
}

func (e *FlagValueError) Error() string {
	return fmt.Sprintf("--%s %q: unknown %s: use %s", e.Flag, e.Value, e.What, orList(e.Allowed))
}

// CheckFlags checks the flag values c holds (the flags' layer, before it
// is merged) against the keys' closed sets, so a bad value names the flag
// it came from rather than only itself.
func CheckFlags(c *Config) error {
	for _, k := range Keys() {
		if k.Flag == "" {
			continue
		}
		// A negative number, refused after the merge, read "max tokens
		// must be positive, got -5" with no word of the flag.
		if v := k.field(c); v.CanInt() && v.Int() < 0 || v.CanFloat() && v.Float() < 0 {
			return &FlagNumberError{Flag: k.Flag, Value: fmt.Sprint(v.Interface()), Check: k.Check}
		}
		if len(k.Enum) == 0 {
			continue
		}
		if v := k.field(c).String(); k.check(v) != nil {
			return &FlagValueError{Flag: k.Flag, Value: v, What: k.What, Allowed: k.Enum}
		}
	}
	return nil
}

// FlagNumberError is a command-line flag whose number is out of range:
// the flag, the value and what it must be.
type FlagNumberError struct {
	Flag, Value, Check string
}

func (e *FlagNumberError) Error() string {
	return fmt.Sprintf("--%s %s: %s", e.Flag, e.Value, e.Check)
}

// CheckFlag checks the flag of the key named name against a closed set
// config does not know (the providers, the themes): nil for an empty value
// or one of allowed.
func CheckFlag(name, v string, allowed []string) error {
	k, ok := Lookup(name)
	if !ok || k.Flag == "" || v == "" || slices.Contains(allowed, v) {
		return nil
	}
	return &FlagValueError{Flag: k.Flag, Value: v, What: k.What, Allowed: allowed}
}

// ValueError is a config file's or an agent profile's value outside the
// key's closed set, with where it was set (a file's path:line:col).
type ValueError struct {
	Where, Key, Value, What string
	Allowed                 []string
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("%s: %q: unknown %s %q: use %s", e.Where, e.Key, e.What, e.Value, orList(e.Allowed))
}

// CheckEnv checks the environment variable of the key named name against
// a closed set config does not know (the providers, the themes): nil when
// the variable is unset or holds one of allowed.
func CheckEnv(name string, getenv func(string) string, allowed []string) error {
	k, ok := Lookup(name)
	if !ok || k.Env == "" {
		return nil
	}
	v := getenv(k.Env)
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	return &EnvValueError{Var: k.Env, Value: v, What: k.What, Allowed: allowed}
}

// orList writes a, b or c.
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	}
	return v.IsZero()
}

// Doc renders the declared keys as a Markdown table (docs/config.md).
func Doc() string {
	var b strings.Builder
	b.WriteString("| key | flag | env | profile | stored | default | what it does |\n|---|---|---|---|---|---|---|\n")
	yes := func(ok bool) string {
		if ok {
			return "yes"
		}
		return ""
	}
	code := func(s string) string {
		if s == "" {
			return ""
		}
		return "`" + s + "`"
	}
	for _, k := range Keys() {
		flag := ""
		if k.Flag != "" {
			flag = "`--" + k.Flag + "`"
		}
		doc := k.Doc
		if len(k.Enum) > 0 {
			doc += " (" + orList(k.Enum) + ")"
		}
		env := code(k.Env)
		if k.EnvAlso != "" {
			env += " or " + code(k.EnvAlso)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s |\n", k.Name, flag, env, yes(k.Profile), yes(k.Stored),
			code(k.Default), strings.ReplaceAll(doc, "|", `\|`))
	}
	return b.String()
}
