package demo

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// unitTo maps a unit to its base (metre, kilogram, litre) and dimension.
var units = map[string]struct {
	dim   string
	scale float64
}{
	"m": {"length", 1}, "km": {"length", 1000}, "cm": {"length", 0.01}, "mm": {"length", 0.001},
	"mi": {"length", 1609.344}, "ft": {"length", 0.3048}, "in": {"length", 0.0254}, "yd": {"length", 0.9144},
	"kg": {"mass", 1}, "g": {"mass", 0.001}, "lb": {"mass", 0.45359237}, "oz": {"mass", 0.028349523125},
	"l": {"volume", 1}, "ml": {"volume", 0.001}, "gal": {"volume", 3.785411784},
}

func convertUnit(v float64, from, to string) (float64, error) {
	temp := func(u string) bool { return u == "c" || u == "f" || u == "k" }
	if temp(from) && temp(to) {
		c := v
		switch from {
		case "f":
			c = (v - 32) * 5 / 9
		case "k":
			c = v - 273.15
		}
		switch to {
		case "f":
			return c*9/5 + 32, nil
		case "k":
			return c + 273.15, nil
		}
		return c, nil
	}
	uf, ok1 := units[from]
	ut, ok2 := units[to]
	if !ok1 || !ok2 {
		return 0, fmt.Errorf("unknown unit %q or %q", from, to)
	}
	if uf.dim != ut.dim {
		return 0, fmt.Errorf("cannot convert %s (%s) to %s (%s)", from, uf.dim, to, ut.dim)
	}
	return v * uf.scale / ut.scale, nil
}

// evalExpr evaluates + - * / and parentheses by recursive descent.
func evalExpr(s string) (float64, error) {
	p := &parser{s: strings.ReplaceAll(s, " ", "")}
	v, err := p.sum()
	if err != nil {
		return 0, err
	}
	if p.i != len(p.s) {
		return 0, fmt.Errorf("unexpected %q at %d", p.s[p.i:], p.i)
	}
	return v, nil
}

type parser struct {
	s string
	i int
}

func (p *parser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *parser) sum() (float64, error) {
	v, err := p.product()
	for err == nil && (p.peek() == '+' || p.peek() == '-') {
		op := p.s[p.i]
		p.i++
		var r float64
		if r, err = p.product(); op == '+' {
			v += r
		} else {
			v -= r
		}
	}
	return v, err
}

func (p *parser) product() (float64, error) {
	v, err := p.unary()
	for err == nil && (p.peek() == '*' || p.peek() == '/') {
		op := p.s[p.i]
		p.i++
		var r float64
		r, err = p.unary()
		if err != nil {
			break
		}
		if op == '*' {
			v *= r
		} else {
			if r == 0 {
				return 0, fmt.Errorf("division by zero")
			}
			v /= r
		}
	}
	return v, err
}

func (p *parser) unary() (float64, error) {
	if p.peek() == '-' {
		p.i++
		v, err := p.unary()
		return -v, err
	}
	if p.peek() == '(' {
		p.i++
		v, err := p.sum()
		if err != nil {
			return 0, err
		}
		if p.peek() != ')' {
			return 0, fmt.Errorf("missing )")
		}
		p.i++
		return v, nil
	}
	start := p.i
	for p.i < len(p.s) && (unicode.IsDigit(rune(p.s[p.i])) || p.s[p.i] == '.') {
		p.i++
	}
	if start == p.i {
		return 0, fmt.Errorf("expected a number at %d", start)
	}
	return strconv.ParseFloat(p.s[start:p.i], 64)
}
